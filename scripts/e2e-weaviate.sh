#!/usr/bin/env bash
# make e2e-weaviate: proves warren's Weaviate backend against real Weaviate servers. Builds
# weaviate-server once from its Go module into the e2e cache folder, starts one node for the
# conformance suite and the kill-during-migrate test, then a three-node cluster with replication
# factor 2 for the fault tests, and stops everything it started whatever happens.
#
# Every node runs offline: no telemetry, no modules (warren sends its own vectors), anonymous
# access, and all addresses on loopback. Weaviate 1.35 binds its gRPC, internal data and
# profiling ports on every interface whatever --host says, so where the kernel allows it the
# servers and the tests run in a network namespace of their own whose only interface is
# loopback (unshare -n); where none can be made it stops, unless WARREN_WEAVIATE_NETNS=0 accepts
# servers that listen on every interface (it then names those ports).
#
#   scripts/e2e-weaviate.sh          the conformance suite, kb migrate and the fault tests
#   scripts/e2e-weaviate.sh --bench  the backend benchmarks of kb (-tags weaviate) against one
#                                    node whose Prometheus metrics are on, so the benchmarks
#                                    count their queries on the server (make bench-weaviate)
#
#   WARREN_E2E_CACHE   where the server build is kept (default ~/.cache/warren-e2e)
#   WARREN_E2E_ONLY    "single" or "cluster": run only the one-node or the three-node part
#   WARREN_BENCH       with --bench, the benchmarks to run (default: ingest and hybrid at 100k);
#                      make bench-weaviate-1m sets BackendsDense1M and WARREN_BENCH_1M=1
set -euo pipefail
cd "$(dirname "$0")/.."

WEAVIATE_VERSION=v1.35.2
cache="${WARREN_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/warren-e2e}"
server="$cache/weaviate/weaviate-server"
mode=e2e
[ "${1:-}" = --bench ] && mode=bench

# The second stage runs inside the network namespace (or directly when there is none): it
# starts the nodes and runs the compiled tests, which are in $work.
if [ "${1:-}" = --stage2 ]; then
	mode=$2
	work=$3
	if [ "${WARREN_WEAVIATE_NETNS:-}" = 1 ]; then
		ip link set lo up
	fi
	nodes=()
	stop_all() {
		for d in "${nodes[@]}"; do
			[ -f "$d/pid" ] && kill -9 -- "-$(cat "$d/pid")" 2>/dev/null || true
		done
		# A node the fault tests restarted writes its pid there too; wait for every one to go.
		for d in "${nodes[@]}"; do
			[ -f "$d/pid" ] || continue
			for _ in $(seq 50); do kill -0 "$(cat "$d/pid")" 2>/dev/null || break; sleep 0.1; done
		done
	}
	trap stop_all EXIT

	# free_pair prints a port p such that p and p+1 are free on loopback. The ports are drawn
	# below the kernel's ephemeral range: a node's outgoing connection to another node takes a
	# port from that range and once took one reserved for a node not yet started.
	ephemeral_low=$(awk '{print $1}' /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
	[ "$ephemeral_low" -gt 12000 ] 2>/dev/null || ephemeral_low=32768
	free_pair() {
		local p
		while :; do
			p=$((10000 + RANDOM % (ephemeral_low - 10002)))
			if ! (echo >"/dev/tcp/127.0.0.1/$p") 2>/dev/null && ! (echo >"/dev/tcp/127.0.0.1/$((p + 1))") 2>/dev/null; then
				case " ${taken:-} " in *" $p "* | *" $((p + 1)) "*) continue ;; esac
				taken="${taken:-} $p $((p + 1))"
				echo "$p"
				return
			fi
		done
	}

	# write_node writes a node's start script into its folder: the environment and command line
	# that start it (again, after a kill), in a process group of its own whose id goes to pid.
	# Arguments: folder, name, http port, gossip port (data is +1), raft port (rpc is +1), grpc
	# port, profiling port, join address, raft join list, bootstrap expect, and optionally a
	# port for Prometheus metrics.
	write_node() {
		local d=$1
		mkdir -p "$d/data"
		cat >"$d/start" <<-EOF
			#!/usr/bin/env bash
			cd "$d"
			env -i PATH="$PATH" HOME="$d" TMPDIR="$d" \\
			  DISABLE_TELEMETRY=true DEFAULT_VECTORIZER_MODULE=none ENABLE_MODULES= \\
			  AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED=true PERSISTENCE_DATA_PATH="$d/data" \\
			  QUERY_DEFAULTS_LIMIT=25 LOG_LEVEL=info LOG_FORMAT=text \\
			  CLUSTER_HOSTNAME=$2 CLUSTER_IN_LOCALHOST=true \\
			  CLUSTER_ADVERTISE_ADDR=127.0.0.1 CLUSTER_BIND_ADDR=127.0.0.1 \\
			  CLUSTER_GOSSIP_BIND_PORT=$4 CLUSTER_DATA_BIND_PORT=$(($4 + 1)) CLUSTER_JOIN=$8 \\
			  RAFT_PORT=$5 RAFT_INTERNAL_RPC_PORT=$(($5 + 1)) RAFT_JOIN=$9 RAFT_BOOTSTRAP_EXPECT=${10} \\
			  GRPC_PORT=$6 GO_PROFILING_PORT=$7 ${11:+PROMETHEUS_MONITORING_ENABLED=true PROMETHEUS_MONITORING_PORT=${11}} \\
			  setsid "$server" --scheme http --host 127.0.0.1 --port $3 >>"$d/log" 2>&1 </dev/null &
			echo \$! >"$d/pid"
		EOF
		chmod +x "$d/start"
		echo "http://127.0.0.1:$3" >"$d/url"
		echo "127.0.0.1:$6" >"$d/grpc"
		echo "$2" >"$d/name"
		[ -n "${11:-}" ] && echo "http://127.0.0.1:${11}/metrics" >"$d/metrics"
		nodes+=("$d")
	}

	# wait_ready waits up to 120 s until every node answers ready and the first one lists them
	# all as HEALTHY; a node that exits on the way fails the run with its log.
	wait_ready() {
		local start=$SECONDS d want=$# healthy
		while :; do
			local ok=0
			for d in "$@"; do
				if ! kill -0 "$(cat "$d/pid")" 2>/dev/null; then
					echo "e2e-weaviate: node $(cat "$d/name") exited while starting; its log:" >&2
					tail -40 "$d/log" >&2
					exit 1
				fi
				[ "$(curl -s -o /dev/null -w '%{http_code}' "$(cat "$d/url")/v1/.well-known/ready")" = 200 ] && ok=$((ok + 1))
			done
			if [ "$ok" = "$want" ]; then
				healthy=$(curl -s "$(cat "$1/url")/v1/nodes" | grep -o '"status":"HEALTHY"' | wc -l)
				[ "$healthy" = "$want" ] && return 0
			fi
			if [ $((SECONDS - start)) -gt 120 ]; then
				echo "e2e-weaviate: the nodes were not ready after 120 s ($ok of $want ready); their logs:" >&2
				for d in "$@"; do echo "--- $(cat "$d/name")" >&2; tail -20 "$d/log" >&2; done
				exit 1
			fi
			sleep 0.5
		done
	}

	check_loopback() {
		[ "${WARREN_WEAVIATE_NETNS:-}" = 1 ] && return 0
		command -v ss >/dev/null || return 0
		local d open
		for d in "$@"; do
			open=$(ss -ltnH "( sport != 0 )" -p 2>/dev/null | grep "pid=$(cat "$d/pid")," | awk '{print $4}' | grep -v '^127\.0\.0\.1:' | tr '\n' ' ' || true)
			[ -n "$open" ] && echo "e2e-weaviate: note: without a network namespace node $(cat "$d/name") also listens on $open(Weaviate binds these on every interface)"
		done
		return 0
	}

	single="$work/single"
	p=$(free_pair)
	r=$(free_pair)
	g=$(free_pair)
	metrics=""
	[ "$mode" = bench ] && metrics=$(free_pair)
	write_node "$single" node1 "$(free_pair)" "$p" "$r" "$g" "$((g + 1))" "" "node1:$r" 1 "$metrics"
	t0=$SECONDS
	"$single/start"
	wait_ready "$single"
	echo "e2e-weaviate: one node ready in $((SECONDS - t0)) s at $(cat "$single/url") (gRPC $(cat "$single/grpc"))"
	check_loopback "$single"
	export WARREN_WEAVIATE_URL
	WARREN_WEAVIATE_URL=$(cat "$single/url")
	export WARREN_WEAVIATE_GRPC
	WARREN_WEAVIATE_GRPC=$(cat "$single/grpc")

	if [ "$mode" = bench ]; then
		export WARREN_WEAVIATE_METRICS
		WARREN_WEAVIATE_METRICS=$(cat "$single/metrics")
		# The benchmarks' workspaces go under $work, which goes whatever happens.
		mkdir -p "$work/tmp"
		echo "e2e-weaviate: benchmarks ${WARREN_BENCH:-Backends100k} against one node; load average $(cut -d' ' -f1-3 /proc/loadavg)"
		TMPDIR="$work/tmp" go test -tags weaviate -run '^$' -bench "${WARREN_BENCH:-Backends100k}" -benchtime 1x -timeout 120m ./kb/
		echo "e2e-weaviate: load average after the benchmarks $(cut -d' ' -f1-3 /proc/loadavg)"
		exit 0
	fi

	export WARREN_E2E_WEAVIATE=1 # the suites fail, not skip, when their server is missing
	export WARREN_E2E_WARREN="$work/warren"
	if [ "${WARREN_E2E_ONLY:-}" != cluster ]; then
		echo "e2e-weaviate: the conformance suite and kb migrate against one node"
		go test -count=1 -v -timeout 15m ./kb/weaviatekb/
		go test -count=1 -v -timeout 15m -run '^TestMigrate' ./e2e/weaviate/
	fi
	stop_all
	nodes=()
	unset WARREN_WEAVIATE_URL WARREN_WEAVIATE_GRPC

	[ "${WARREN_E2E_ONLY:-}" = single ] && exit 0

	# Three nodes: the first bootstraps Raft with the other two, which join it by gossip a few
	# seconds later.
	cluster="$work/cluster"
	gossip=() raft=()
	for i in 1 2 3; do
		gossip+=("$(free_pair)")
		raft+=("$(free_pair)")
	done
	join="node1:${raft[0]},node2:${raft[1]},node3:${raft[2]}"
	for i in 1 2 3; do
		g=$(free_pair)
		write_node "$cluster/node$i" "node$i" "$(free_pair)" "${gossip[$((i - 1))]}" "${raft[$((i - 1))]}" \
			"$g" "$((g + 1))" "127.0.0.1:${gossip[0]}" "$join" 3
	done
	t0=$SECONDS
	"$cluster/node1/start"
	sleep 3
	"$cluster/node2/start"
	"$cluster/node3/start"
	wait_ready "$cluster/node1" "$cluster/node2" "$cluster/node3"
	echo "e2e-weaviate: three nodes ready in $((SECONDS - t0)) s"
	check_loopback "$cluster/node1" "$cluster/node2" "$cluster/node3"
	export WARREN_WEAVIATE_CLUSTER="$cluster"
	echo "e2e-weaviate: the fault tests against three nodes"
	go test -count=1 -v -timeout 15m -run '^TestCluster' ./e2e/weaviate/
	exit 0
fi

suite_start=$SECONDS
if [ ! -x "$server" ]; then
	echo "e2e-weaviate: building weaviate-server $WEAVIATE_VERSION from its Go module (about 4 minutes cold on 2 cores)"
	build_start=$SECONDS
	mkdir -p "$(dirname "$server")"
	gobin=$(mktemp -d)
	GOBIN="$gobin" GOFLAGS=-buildvcs=false go install "github.com/weaviate/weaviate/cmd/weaviate-server@$WEAVIATE_VERSION"
	mv "$gobin/weaviate-server" "$server"
	rmdir "$gobin"
	echo "e2e-weaviate: built in $((SECONDS - build_start)) s"
fi
command -v curl >/dev/null || { echo "e2e-weaviate: curl is needed to wait for the nodes" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Everything is compiled before the namespace, which has no way out to the module proxy; inside
# it the go command works from the module and build caches alone.
go build -o "$work/warren" ./cmd/warren
go test -count=1 -run '^$' ./kb/... ./e2e/weaviate/ >/dev/null
[ "$mode" = bench ] && go test -tags weaviate -count=1 -run '^$' ./kb/ >/dev/null
export GOPROXY=off GOFLAGS=-mod=readonly

netns=()
if [ "${WARREN_WEAVIATE_NETNS:-auto}" != 0 ] && command -v unshare >/dev/null && command -v ip >/dev/null; then
	if [ "$(id -u)" = 0 ] && unshare -n true 2>/dev/null; then
		netns=(unshare -n)
	elif unshare -rn true 2>/dev/null; then
		netns=(unshare -rn)
	fi
fi
if [ ${#netns[@]} -gt 0 ]; then
	echo "e2e-weaviate: nodes and tests in a network namespace of their own (loopback only)"
	WARREN_WEAVIATE_NETNS=1 "${netns[@]}" bash "$0" --stage2 "$mode" "$work"
elif [ "${WARREN_WEAVIATE_NETNS:-auto}" = 0 ]; then
	echo "e2e-weaviate: WARREN_WEAVIATE_NETNS=0: no network namespace; nodes bind loopback where Weaviate lets them"
	WARREN_WEAVIATE_NETNS=0 bash "$0" --stage2 "$mode" "$work"
else
	# Weaviate binds some of its ports on every interface whatever it is told: without a
	# namespace of loopback alone, the servers would be reachable from the network.
	echo "e2e-weaviate: can't make a network namespace here (unshare -n and unshare -rn refused, or ip is missing)," >&2
	echo "  and without one Weaviate listens on every interface. Run as root, allow unprivileged user" >&2
	echo "  namespaces (sysctl kernel.unprivileged_userns_clone=1, or on Ubuntu kernel.apparmor_restrict_unprivileged_userns=0)," >&2
	echo "  install iproute2 for ip, or accept the open ports with WARREN_WEAVIATE_NETNS=0." >&2
	exit 1
fi
echo "e2e-weaviate: passed in $((SECONDS - suite_start)) s"
