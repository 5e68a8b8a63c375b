// Package weaviate proves warren's Weaviate backend against real servers that
// scripts/e2e-weaviate.sh (make e2e-weaviate) starts: killing warren during `warren kb migrate`
// and running it again (one node), and a node of a three-node cluster with replication factor 2
// killed while searches and an ingest run. The benchmarks that set the Weaviate backend beside
// the embedded one are kb's, built with -tags weaviate (make bench-weaviate).
//
// The tests skip unless the script's variables are set: WARREN_WEAVIATE_URL and
// WARREN_WEAVIATE_GRPC for one node, WARREN_WEAVIATE_CLUSTER for the cluster's folder (one
// folder per node with its url, grpc address, pid and the start script that brings it back).
// Under the script (WARREN_E2E_WEAVIATE=1) a missing variable fails the test instead.
package weaviate
