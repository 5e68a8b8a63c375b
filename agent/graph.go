// Package agent is warren's graph runtime. A graph has named nodes over a typed state (a Go
// struct serialised as JSON), static edges and conditional routers. A run checkpoints the
// state after every node; a node may interrupt the run to ask the analyst, and Resume goes on
// from there with the answer. Runs emit events to a sink and never touch the user interface.
package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"warren/llm"
)

// End is the pseudo-node a finished run routes to.
const End = "END"

// Node does one step of work on the state. It returns an interrupt to stop and ask the
// analyst, or an error to fail the run (which stays resumable from before the node). call is
// the run's Runner.Call made by this node (llm.Call.At): the node passes it with every model
// call it makes, so that the call is metered, kept in the ledger under the node's name and
// replayed when the run resumes.
type Node[S any] func(ctx context.Context, call llm.Call, s *S) (*Interrupt, error)

// Router chooses the next node from the state after a node has run.
type Router[S any] func(s *S) string

// Interrupt stops a run to ask the analyst. Kind names the question ("questions", "plan");
// Payload carries what the analyst needs to answer it.
type Interrupt struct {
	Kind    string          `json:"kind"`
	Payload json.RawMessage `json:"payload"`
}

// NewInterrupt builds an interrupt with a JSON payload.
func NewInterrupt(kind string, payload any) (*Interrupt, error) {
	data, err := json.Marshal(payload)
	if err != nil {
		return nil, fmt.Errorf("couldn't encode the %s interrupt: %w", kind, err)
	}
	return &Interrupt{Kind: kind, Payload: data}, nil
}

// Graph is the shape of a run: nodes and how they connect.
type Graph[S any] struct {
	Name    string
	start   string
	nodes   map[string]Node[S]
	edges   map[string]string
	routers map[string]Router[S]
}

// NewGraph starts an empty graph.
func NewGraph[S any](name string) *Graph[S] {
	return &Graph[S]{Name: name, nodes: map[string]Node[S]{}, edges: map[string]string{}, routers: map[string]Router[S]{}}
}

// Node adds a node; the first node added is the start unless Start says otherwise.
func (g *Graph[S]) Node(name string, n Node[S]) *Graph[S] {
	g.nodes[name] = n
	if g.start == "" {
		g.start = name
	}
	return g
}

// Start sets the first node.
func (g *Graph[S]) Start(name string) *Graph[S] { g.start = name; return g }

// Edge always goes from one node to the next.
func (g *Graph[S]) Edge(from, to string) *Graph[S] { g.edges[from] = to; return g }

// Route chooses the next node after from by looking at the state.
func (g *Graph[S]) Route(from string, r Router[S]) *Graph[S] { g.routers[from] = r; return g }

// Validate checks that every node has a way on, and that every static edge leads to a node.
func (g *Graph[S]) Validate() error {
	var errs []error
	if _, ok := g.nodes[g.start]; !ok {
		errs = append(errs, fmt.Errorf("start node %q does not exist", g.start))
	}
	names := make([]string, 0, len(g.nodes))
	for name := range g.nodes {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		to, hasEdge := g.edges[name]
		_, hasRouter := g.routers[name]
		switch {
		case hasEdge && hasRouter:
			errs = append(errs, fmt.Errorf("node %q has both an edge and a router", name))
		case !hasEdge && !hasRouter:
			errs = append(errs, fmt.Errorf("node %q has no way on (add an edge or a router)", name))
		case hasEdge && to != End:
			if _, ok := g.nodes[to]; !ok {
				errs = append(errs, fmt.Errorf("edge %s → %s leads to no node", name, to))
			}
		}
	}
	for from := range g.edges {
		if _, ok := g.nodes[from]; !ok {
			errs = append(errs, fmt.Errorf("edge from unknown node %q", from))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("graph %s: %w", g.Name, errors.Join(errs...))
	}
	return nil
}

// next returns the node after from.
func (g *Graph[S]) next(from string, s *S) (to string, err error) {
	if r, ok := g.routers[from]; ok {
		// A router's panic fails the run as its node's would.
		defer func() {
			if v := recover(); v != nil {
				pe := NewPanicError(v)
				pe.Node = from
				to, err = "", pe
			}
		}()
		to = r(s)
		if _, ok := g.nodes[to]; !ok && to != End {
			return "", fmt.Errorf("router after %s chose unknown node %q", from, to)
		}
		return to, nil
	}
	return g.edges[from], nil
}
