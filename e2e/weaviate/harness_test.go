package weaviate

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// required skips the test when the script's variables are missing, or fails it under the
// script, where a missing server is a broken run and not a machine without Weaviate.
func required(t *testing.T, names ...string) {
	t.Helper()
	for _, n := range names {
		if os.Getenv(n) == "" {
			if os.Getenv("WARREN_E2E_WEAVIATE") == "1" {
				t.Fatalf("%s is not set: scripts/e2e-weaviate.sh sets it when the server started", n)
			}
			t.Skipf("%s is not set: make e2e-weaviate runs this test against real Weaviate servers", n)
		}
	}
}

// node is one Weaviate server the script started, described by the files in its folder.
type node struct {
	dir, name, url, grpc string
}

func readNode(t *testing.T, dir string) *node {
	t.Helper()
	read := func(f string) string {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatalf("couldn't read the node's %s: %v", f, err)
		}
		return strings.TrimSpace(string(b))
	}
	return &node{dir: dir, name: read("name"), url: read("url"), grpc: read("grpc")}
}

// clusterNodes reads the three nodes of WARREN_WEAVIATE_CLUSTER and waits until all are healthy.
func clusterNodes(t *testing.T) []*node {
	t.Helper()
	required(t, "WARREN_WEAVIATE_CLUSTER")
	dir := os.Getenv("WARREN_WEAVIATE_CLUSTER")
	var nodes []*node
	for i := 1; i <= 3; i++ {
		nodes = append(nodes, readNode(t, filepath.Join(dir, fmt.Sprintf("node%d", i))))
	}
	waitHealthy(t, nodes, 3, 2*time.Minute)
	return nodes
}

func (n *node) pid(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(n.dir, "pid"))
	if err != nil {
		t.Fatalf("couldn't read %s's pid: %v", n.name, err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("%s's pid file: %v", n.name, err)
	}
	return pid
}

// alive reports whether the process runs: it may be a zombie for a moment after the kill,
// until init reaps it, and a zombie holds no port.
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	f := strings.Fields(string(b))
	return len(f) > 2 && !(f[2] == "Z" || f[2] == "X")
}

// kill stops the node as a crash would (SIGKILL to its process group) and waits until it is gone.
func (n *node) kill(t *testing.T) {
	t.Helper()
	pid := n.pid(t)
	if err := syscall.Kill(-pid, syscall.SIGKILL); err != nil {
		t.Fatalf("couldn't kill %s (pid %d): %v", n.name, pid, err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("%s (pid %d) still runs 10 s after SIGKILL", n.name, pid)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("%s killed (pid %d)", n.name, pid)
}

// restart starts the node again with its own start script, over the data it had.
func (n *node) restart(t *testing.T) {
	t.Helper()
	out, err := exec.Command(filepath.Join(n.dir, "start")).CombinedOutput()
	if err != nil {
		t.Fatalf("couldn't restart %s: %v\n%s", n.name, err, out)
	}
	t.Logf("%s restarted (pid %d)", n.name, n.pid(t))
}

func (n *node) ready() bool {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, n.url+"/v1/.well-known/ready", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// nodeStatus is one entry of GET /v1/nodes?output=verbose.
type nodeStatus struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	Shards []struct {
		Name        string `json:"name"`
		Class       string `json:"class"`
		ObjectCount int64  `json:"objectCount"`
	} `json:"shards"`
}

func (n *node) nodes() ([]nodeStatus, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, n.url+"/v1/nodes?output=verbose", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /v1/nodes: %s", resp.Status)
	}
	var body struct {
		Nodes []nodeStatus `json:"nodes"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return nil, fmt.Errorf("couldn't read /v1/nodes: %w", err)
	}
	return body.Nodes, nil
}

// waitHealthy waits until every given node is ready and the first ready one lists want nodes
// as HEALTHY.
func waitHealthy(t *testing.T, nodes []*node, want int, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var last string
	for {
		ready := 0
		var asker *node
		for _, n := range nodes {
			if n.ready() {
				ready++
				if asker == nil {
					asker = n
				}
			}
		}
		if ready == len(nodes) {
			st, err := asker.nodes()
			healthy := 0
			for _, s := range st {
				if s.Status == "HEALTHY" {
					healthy++
				}
			}
			if err == nil && healthy == want {
				return
			}
			last = fmt.Sprintf("%d of %d healthy (%v)", healthy, want, err)
		} else {
			last = fmt.Sprintf("%d of %d ready", ready, len(nodes))
		}
		if time.Now().After(deadline) {
			t.Fatalf("the cluster was not healthy after %s: %s", timeout, last)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// replicaCounts gives, per shard of the classes whose names start with prefix, the object
// count each node holds.
func replicaCounts(asker *node, prefix string) (map[string]map[string]int64, error) {
	st, err := asker.nodes()
	if err != nil {
		return nil, fmt.Errorf("couldn't read the nodes' shards: %w", err)
	}
	counts := map[string]map[string]int64{}
	for _, s := range st {
		for _, sh := range s.Shards {
			if !strings.HasPrefix(sh.Class, prefix) {
				continue
			}
			key := sh.Class + "/" + sh.Name
			if counts[key] == nil {
				counts[key] = map[string]int64{}
			}
			counts[key][s.Name] = sh.ObjectCount
		}
	}
	return counts, nil
}
