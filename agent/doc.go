// Package agent is warren's graph runtime: typed state, nodes, edges, conditional routing,
// interrupts for the analyst, checkpoints after each node, and an event stream. Model calls go
// through the gateway in llm. It knows nothing of the user interface.
package agent
