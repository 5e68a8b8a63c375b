// Package config holds warren's settings: the model roles, the Ollama connection, budgets and
// thresholds. Values are layered defaults → warren.toml → environment → command-line flags, and
// every layer goes through the same key table, so an invalid value is reported the same way
// wherever it came from.
package config

import (
	"strings"
	"time"
)

// FileName is the name of the configuration file inside a workspace.
const FileName = "warren.toml"

// DefaultHost is where a local Ollama listens unless told otherwise.
const DefaultHost = "http://127.0.0.1:11434"

// Config is the effective configuration after all layers are applied.
type Config struct {
	Ollama     Ollama
	Chat       Role
	Fast       Role
	Embed      Role
	KB         KB
	Budgets    Budgets
	Thresholds Thresholds
	Serve      Serve
	Audit      Audit

	// Sources records, per key, which layer set the value ("default", "file", "env NAME",
	// "flag"); `warren config` shows it so an analyst can see why a value is what it is.
	Sources map[string]string
}

// Ollama is the connection to the model server shared by every role without a host of its own.
type Ollama struct {
	Host           string
	MaxConcurrency int           // requests in flight per host that does not set its own (Host.Slots)
	Retries        int           // extra attempts after a transient failure
	BackoffBase    time.Duration // first retry delay; doubles each attempt, with jitter
	BackoffMax     time.Duration
	Timeout        time.Duration // one request, including a streamed answer
	RepairAttempts int           // corrective rounds for invalid structured output
	EmbedBatchSize int
}

// Serve sets the limits of `warren serve`, the workbench over SSH.
type Serve struct {
	Listen            string        // host:port the SSH server listens on
	MaxSessions       int           // connections open at once; more are refused with a message
	IdleTimeout       time.Duration // a connection with no input for this long is closed (its jobs go on)
	MaxJobsPerAnalyst int           // long jobs one analyst may have running at once
	// LoginGrace is how long a connection may take to authenticate, and then to open the
	// workbench; a connection that does neither in time is closed.
	LoginGrace time.Duration
	// MaxStartups is how many connections may be unauthenticated at once.
	MaxStartups int
	// Keepalive is how often a quiet client is asked whether it is still there; three
	// unanswered requests close its connection (0: never asked).
	Keepalive time.Duration
	// IngestRoots are the only folders a served analyst may ingest from, absolute or relative
	// to the workspace; each is named by its last element ("inbox/report.pdf"). Empty: none.
	IngestRoots []string
	// DefaultAccess is what a served analyst may do with a collection no grant names: none,
	// read or write (read and ingest into it).
	DefaultAccess string
	// InboxWatch has `warren serve` ingest what appears in IngestRoots by itself, and remove
	// the documents of files deleted there.
	InboxWatch bool
	// InboxPoll is how often the ingest folders are looked at; InboxSettle how long a file's
	// size and modification time must stay the same before it is ingested, so that a file
	// still being copied or saved is not read half-written.
	InboxPoll   time.Duration
	InboxSettle time.Duration
}

// Audit sets what the audit trail keeps.
type Audit struct {
	// KeepQueries is "text" (searches and research questions are kept as typed) or "hash"
	// (only a sha256 of each, so equal queries still match but their words are not kept).
	KeepQueries string
}

// Role is one model role (chat, fast, embed): which model, on which hosts, with which options.
// Zero option values mean "leave it to the model's defaults".
type Role struct {
	Model string
	Host  string // one host (models.<role>.host); Resolved fills it with the first of Hosts
	// Hosts are several hosts serving the role (models.<role>.hosts); each request goes to
	// one of them. Setting host clears hosts and setting hosts clears host, so the later
	// layer wins. Resolved always returns at least one.
	Hosts       []Host
	Temperature float64 // negative: not set
	NumCtx      int
	NumPredict  int
	KeepAlive   time.Duration // zero: not set
}

// KB tunes ingest and the stores.
type KB struct {
	Embedder     string // auto, builtin or ollama
	ChunkSize    int    // bytes of text per chunk
	ChunkOverlap int
	MaxFileMB    int
	// OCR reads pages without a text layer and image files: "auto" (when Tesseract is
	// installed) or "off"; OCRLanguages are Tesseract's, joined by "+".
	OCR          string
	OCRLanguages string
	// ConvertTimeout bounds one conversion step (a converter program's run, or a loader's
	// work between two); a file that takes longer is skipped.
	ConvertTimeout time.Duration

	// Lexical ranking (BM25 and pseudo-relevance feedback)
	BM25K1        float64
	BM25B         float64 // AutoB: derived from the chunks' lengths
	HeadingWeight float64 // a heading term counts as this many body terms
	FeedbackDocs  int     // best chunks whose terms expand a query; 0: no feedback
	FeedbackTerms int     // terms they lend
	Proximity     float64 // weight of neighbouring query words close together in a chunk
	DenseWeight   float64 // the dense ranking's share in hybrid search over a model's vectors

	Backend  string // where the knowledge base lives: embedded (warren.db) or weaviate
	Weaviate Weaviate
}

// AutoB as kb.bm25_b derives BM25's b from the chunks' lengths.
const AutoB = -1.0

// Weaviate is the server of the knowledge base when KB.Backend is "weaviate". Its API key
// comes from the environment only (WARREN_WEAVIATE_API_KEY), never from a file.
type Weaviate struct {
	URL      string // REST address, e.g. http://127.0.0.1:8080
	GRPC     string // gRPC host:port for batch writes; empty: REST only
	Replicas int    // replication factor of the classes warren creates; 0: the server's default
	// ClassPrefix begins the names of warren's classes, so knowledge bases can share a server.
	ClassPrefix string
}

// Budgets bound one run. Zero means unlimited for calls and tokens.
type Budgets struct {
	ModelCalls      int
	Tokens          int
	ReferenceDepth  int
	ReferenceTokens int
	RunTime         time.Duration
}

// Thresholds tune retrieval, quality checks and the gas-table merge rules.
type Thresholds struct {
	Relevance       float64
	MinResults      int
	Quality         int
	FuzzyMatch      float64
	FillConfidence  float64
	OverwriteMargin float64
}

// Default returns the built-in configuration.
func Default() *Config {
	c := &Config{
		Ollama: Ollama{
			Host:           DefaultHost,
			MaxConcurrency: 2,
			Retries:        4,
			BackoffBase:    250 * time.Millisecond,
			BackoffMax:     8 * time.Second,
			Timeout:        10 * time.Minute,
			RepairAttempts: 2,
			EmbedBatchSize: 32,
		},
		Chat:  Role{Model: "qwen3:8b", Temperature: -1},
		Fast:  Role{Temperature: -1},
		Embed: Role{Model: "nomic-embed-text", Temperature: -1},
		KB: KB{Embedder: "auto", ChunkSize: 1200, ChunkOverlap: 150, MaxFileMB: 20,
			OCR: "auto", OCRLanguages: "deu+eng", ConvertTimeout: 2 * time.Minute,
			BM25K1: 2, BM25B: AutoB, HeadingWeight: 2, FeedbackDocs: 5, FeedbackTerms: 30, Proximity: 0.2, DenseWeight: 0.02,
			Backend: "embedded", Weaviate: Weaviate{ClassPrefix: "Warren"}},
		Budgets: Budgets{
			ModelCalls:      300,
			Tokens:          1_000_000,
			ReferenceDepth:  2,
			ReferenceTokens: 50_000,
			RunTime:         60 * time.Minute,
		},
		Thresholds: Thresholds{
			Relevance:       0.6,
			MinResults:      2,
			Quality:         375,
			FuzzyMatch:      0.7,
			FillConfidence:  0.3,
			OverwriteMargin: 0.2,
		},
		Serve: Serve{Listen: "127.0.0.1:2222", MaxSessions: 20, IdleTimeout: 30 * time.Minute, MaxJobsPerAnalyst: 2,
			LoginGrace: 30 * time.Second, MaxStartups: 10, Keepalive: 15 * time.Second,
			IngestRoots: []string{"inbox"}, DefaultAccess: "write",
			InboxWatch: true, InboxPoll: 2 * time.Second, InboxSettle: 3 * time.Second},
		Audit:   Audit{KeepQueries: "text"},
		Sources: map[string]string{},
	}
	for _, k := range keys {
		c.Sources[k.name] = "default"
	}
	return c
}

// RoleName names a model role.
type RoleName string

// The three model roles.
const (
	RoleChat  RoleName = "chat"
	RoleFast  RoleName = "fast"
	RoleEmbed RoleName = "embed"
)

// Roles lists the roles in display order.
var Roles = []RoleName{RoleChat, RoleFast, RoleEmbed}

// SameModel compares model names the way Ollama does: a name without a tag means ":latest",
// and case and surrounding spaces do not count.
func SameModel(a, b string) bool {
	norm := func(s string) string {
		s = strings.ToLower(strings.TrimSpace(s))
		if !strings.Contains(s[strings.LastIndex(s, "/")+1:], ":") {
			s += ":latest"
		}
		return s
	}
	return norm(a) == norm(b)
}

// Resolved returns the role with its defaults filled in: the fast role falls back to the chat
// model (and its hosts), and every role without a host uses the shared Ollama host. Hosts
// holds every host of the role, at least one, and Host the first of them.
func (c *Config) Resolved(name RoleName) Role {
	var r Role
	switch name {
	case RoleChat:
		r = c.Chat
	case RoleFast:
		r = c.Fast
		if r.Model == "" {
			r.Model = c.Chat.Model
			if r.Host == "" && len(r.Hosts) == 0 {
				r.Host, r.Hosts = c.Chat.Host, c.Chat.Hosts
			}
		}
	case RoleEmbed:
		r = c.Embed
	}
	switch {
	case len(r.Hosts) > 0:
		r.Hosts = append([]Host(nil), r.Hosts...)
	case r.Host != "":
		r.Hosts = []Host{{URL: r.Host}}
	default:
		r.Hosts = []Host{{URL: c.Ollama.Host}}
	}
	r.Host = r.Hosts[0].URL
	return r
}
