// Package llmkb hands the model gateway to the knowledge base and retrieval in the form they
// take it: an embedding function with its model's name, and a searcher that embeds its
// queries. kb and retrieval import nothing from llm; whoever holds a gateway (the service, the
// doctor, the agents' tests) builds them here, once.
package llmkb

import (
	"warren/config"
	"warren/kb"
	"warren/llm"
	"warren/retrieval"
)

// Embedder is g's embed role as the knowledge base takes an embedder: the model's name and the
// gateway's Embed, outside any run.
func Embedder(g *llm.Gateway) kb.Ollama {
	model, _ := g.Model(config.RoleEmbed)
	return kb.Ollama{Model: model, Func: g.EmbedFor(llm.Call{})}
}

// Searcher searches store, embedding the queries of collections a model built with g's embed
// role (and asking g for the model's dimension when a collection no longer matches).
func Searcher(store kb.Backend, g *llm.Gateway, denseWeight float64) *retrieval.Searcher {
	return &retrieval.Searcher{Store: store, Model: Embedder(g), Dimension: g.EmbedDimension, DenseWeight: denseWeight}
}
