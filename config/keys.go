package config

import (
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// key is one setting: its dotted name (the TOML path), what it allows, and how to set it from
// text. Every layer (file, environment, flags) goes through set, so validation lives in one place.
type key struct {
	name    string
	allowed string
	help    string
	set     func(c *Config, text string) error // returns errNotAllowed for a bad value
	get     func(c *Config) any
	// excludes names a key that one layer may not set together with this one (a role's
	// host and hosts); setting this one also decides the other's value.
	excludes string
}

// errNotAllowed marks a value outside what a key allows; the caller adds key and value.
type errNotAllowed struct{}

func (errNotAllowed) Error() string { return "not allowed" }

// keys is the table of every setting, in the order `warren config` shows them.
var keys = []key{
	hostKey("ollama.host", "Ollama base URL shared by every role without its own host",
		func(c *Config) *string { return &c.Ollama.Host }, false),
	intKey("ollama.max_concurrency", "model requests in flight per host (a host in models.<role>.hosts may set its own with #N)", 1, maxSlots,
		func(c *Config) *int { return &c.Ollama.MaxConcurrency }),
	intKey("ollama.retries", "extra attempts after a transient failure", 0, 20,
		func(c *Config) *int { return &c.Ollama.Retries }),
	durationKey("ollama.backoff_base", "first retry delay (doubles each attempt, with jitter)", time.Millisecond, time.Minute,
		func(c *Config) *time.Duration { return &c.Ollama.BackoffBase }),
	durationKey("ollama.backoff_max", "longest retry delay", time.Millisecond, 10*time.Minute,
		func(c *Config) *time.Duration { return &c.Ollama.BackoffMax }),
	durationKey("ollama.timeout", "longest time one model request may take", time.Second, 24*time.Hour,
		func(c *Config) *time.Duration { return &c.Ollama.Timeout }),
	intKey("ollama.repair_attempts", "corrective rounds for invalid structured output", 0, 5,
		func(c *Config) *int { return &c.Ollama.RepairAttempts }),
	intKey("ollama.embed_batch_size", "texts per /api/embed request", 1, 1024,
		func(c *Config) *int { return &c.Ollama.EmbedBatchSize }),
}

func init() {
	for _, r := range []struct {
		name RoleName
		role func(c *Config) *Role
	}{
		{RoleChat, func(c *Config) *Role { return &c.Chat }},
		{RoleFast, func(c *Config) *Role { return &c.Fast }},
		{RoleEmbed, func(c *Config) *Role { return &c.Embed }},
	} {
		role := r.role
		prefix := "models." + string(r.name) + "."
		modelHelp := "model name, e.g. qwen3:8b"
		if r.name == RoleFast {
			modelHelp = "model name (empty: the chat model)"
		}
		keys = append(keys,
			modelKey(prefix+"model", modelHelp, func(c *Config) *string { return &role(c).Model }, r.name != RoleFast),
			roleHostKey(prefix+"host", role),
			hostsKey(prefix+"hosts", role),
			key{
				name: prefix + "temperature", allowed: "a number from 0 to 2, or -1 for the model's default",
				help: "sampling temperature",
				set: func(c *Config, s string) error {
					v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
					if err != nil || (v != -1 && (v < 0 || v > 2)) {
						return errNotAllowed{}
					}
					role(c).Temperature = v
					return nil
				},
				get: func(c *Config) any { return role(c).Temperature },
			},
			intKey(prefix+"num_ctx", "context window in tokens (0: model default)", 0, 1<<20,
				func(c *Config) *int { return &role(c).NumCtx }),
			intKey(prefix+"num_predict", "most tokens one answer may have (0: the model's default; 4096 for structured answers)", 0, 1<<20,
				func(c *Config) *int { return &role(c).NumPredict }),
			durationKey(prefix+"keep_alive", "how long Ollama keeps the model loaded (0: server default)", 0, 24*time.Hour,
				func(c *Config) *time.Duration { return &role(c).KeepAlive }),
		)
	}
	keys = append(keys,
		key{
			name: "kb.embedder", allowed: "auto, builtin or ollama",
			help: "who embeds chunks: ollama (the embed role), builtin (no model), auto (the collection's, else ollama when available)",
			set: func(c *Config, s string) error {
				switch s = strings.ToLower(strings.TrimSpace(s)); s {
				case "auto", "builtin", "ollama":
					c.KB.Embedder = s
					return nil
				}
				return errNotAllowed{}
			},
			get: func(c *Config) any { return c.KB.Embedder },
		},
		intKey("kb.chunk_size", "bytes of text per chunk", 200, 20_000,
			func(c *Config) *int { return &c.KB.ChunkSize }),
		intKey("kb.chunk_overlap", "bytes a chunk repeats of the one before it", 0, 5_000,
			func(c *Config) *int { return &c.KB.ChunkOverlap }),
		intKey("kb.max_file_mb", "largest file ingested, in MB", 1, 4096,
			func(c *Config) *int { return &c.KB.MaxFileMB }),
		key{
			name: "kb.ocr", allowed: "auto or off",
			help: "read scanned pages (PDF pages without a text layer) and images (PNG, JPEG, TIFF) by OCR: auto (when Tesseract is installed; `warren doctor` says) or off (they are skipped with that reason)",
			set: func(c *Config, s string) error {
				switch s = strings.ToLower(strings.TrimSpace(s)); s {
				case "auto", "off":
					c.KB.OCR = s
					return nil
				}
				return errNotAllowed{}
			},
			get: func(c *Config) any { return c.KB.OCR },
		},
		key{
			name: "kb.ocr_languages", allowed: `Tesseract language names joined by "+", such as deu+eng (letters, digits and "_")`,
			help: "the languages OCR reads, each installed as a package (tesseract-ocr-deu, tesseract-ocr-eng)",
			set: func(c *Config, s string) error {
				s = strings.TrimSpace(s)
				if len(s) > 200 || !ocrLanguages.MatchString(s) {
					return errNotAllowed{}
				}
				c.KB.OCRLanguages = s
				return nil
			},
			get: func(c *Config) any { return c.KB.OCRLanguages },
		},
		durationKey("kb.convert_timeout", "longest a converter may take on one step (a page through OCR, or parsing a file); a file that takes longer is skipped with that reason", time.Second, 24*time.Hour,
			func(c *Config) *time.Duration { return &c.KB.ConvertTimeout }),
		floatKey("kb.bm25_k1", "BM25 term-frequency saturation: how much a word's repeats in a chunk add (0: none)", 0, 10,
			func(c *Config) *float64 { return &c.KB.BM25K1 }),
		key{
			name: "kb.bm25_b", allowed: "a number from 0 to 1, or auto",
			help: "BM25 length normalisation: 0 ignores a chunk's length, 1 divides by it fully, auto derives it from the chunks' lengths",
			set: func(c *Config, s string) error {
				s = strings.ToLower(strings.TrimSpace(s))
				if s == "auto" {
					c.KB.BM25B = AutoB
					return nil
				}
				v, err := strconv.ParseFloat(s, 64)
				if err != nil || v < 0 || v > 1 {
					return errNotAllowed{}
				}
				c.KB.BM25B = v
				return nil
			},
			get: func(c *Config) any {
				if c.KB.BM25B < 0 {
					return "auto"
				}
				return c.KB.BM25B
			},
		},
		floatKey("kb.heading_weight", "how many body words a word of a chunk's heading or section label counts as", 1, 20,
			func(c *Config) *float64 { return &c.KB.HeadingWeight }),
		intKey("kb.feedback_docs", "best chunks of a lexical search whose words expand the query for a second ranking (0: off)", 0, 50,
			func(c *Config) *int { return &c.KB.FeedbackDocs }),
		intKey("kb.feedback_terms", "words those chunks add to the query", 1, 200,
			func(c *Config) *int { return &c.KB.FeedbackTerms }),
		floatKey("kb.proximity", "how much neighbouring query words found close together in a chunk add to its BM25 score (0: nothing)", 0, 5,
			func(c *Config) *float64 { return &c.KB.Proximity }),
		floatKey("kb.dense_weight", "share of the dense ranking in hybrid search over an embedding model's vectors (the built-in embedder's only follow the lexical ranking)", 0.01, 1,
			func(c *Config) *float64 { return &c.KB.DenseWeight }),
		key{
			name: "kb.backend", allowed: "embedded or weaviate",
			help: "where the knowledge base lives: embedded (warren.db and the workspace's vector files) or weaviate (the server at kb.weaviate.url)",
			set: func(c *Config, s string) error {
				switch s = strings.ToLower(strings.TrimSpace(s)); s {
				case "embedded", "weaviate":
					c.KB.Backend = s
					return nil
				}
				return errNotAllowed{}
			},
			get: func(c *Config) any { return c.KB.Backend },
		},
		key{
			name: "kb.weaviate.url", allowed: "an http(s) address such as http://127.0.0.1:8080, or empty",
			help: "Weaviate's REST address when kb.backend is weaviate (the API key comes from WARREN_WEAVIATE_API_KEY only)",
			set: func(c *Config, s string) error {
				s = strings.TrimSpace(s)
				if s != "" && !strings.Contains(s, "://") {
					s = "http://" + s
				}
				if u, err := url.Parse(s); s != "" && (err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https")) {
					return errNotAllowed{}
				}
				c.KB.Weaviate.URL = strings.TrimRight(s, "/")
				return nil
			},
			get: func(c *Config) any { return c.KB.Weaviate.URL },
		},
		key{
			name: "kb.weaviate.grpc", allowed: "host:port, or empty for REST only",
			help: "Weaviate's gRPC address, for batch writes, searches and term counts (empty: REST only; not with an https server, whose certificate the client would not check over gRPC)",
			set: func(c *Config, s string) error {
				s = strings.TrimSpace(s)
				if s != "" {
					host, port, err := net.SplitHostPort(s)
					if n, perr := strconv.Atoi(port); err != nil || perr != nil || n <= 0 || n > 65535 || host == "" || strings.ContainsAny(host, " /") {
						return errNotAllowed{}
					}
				}
				c.KB.Weaviate.GRPC = s
				return nil
			},
			get: func(c *Config) any { return c.KB.Weaviate.GRPC },
		},
		key{
			name: "kb.weaviate.class_prefix", allowed: "a capital letter, then up to 31 letters and digits",
			help: "how the names of warren's classes in Weaviate begin, so several knowledge bases can share one server",
			set: func(c *Config, s string) error {
				s = strings.TrimSpace(s)
				if len(s) == 0 || len(s) > 32 || s[0] < 'A' || s[0] > 'Z' || strings.IndexFunc(s, func(r rune) bool {
					return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
				}) >= 0 {
					return errNotAllowed{}
				}
				c.KB.Weaviate.ClassPrefix = s
				return nil
			},
			get: func(c *Config) any { return c.KB.Weaviate.ClassPrefix },
		},
		intKey("kb.weaviate.replicas", "replication factor of the classes warren creates in Weaviate (0: the server's default)", 0, 64,
			func(c *Config) *int { return &c.KB.Weaviate.Replicas }),
		intKey("budgets.model_calls", "model calls one run may make, each counted before it is sent, so calls in flight when a process dies count on resume (0: unlimited)", 0, 1_000_000,
			func(c *Config) *int { return &c.Budgets.ModelCalls }),
		intKey("budgets.tokens", "prompt + completion tokens one run may use (0: unlimited)", 0, 1_000_000_000,
			func(c *Config) *int { return &c.Budgets.Tokens }),
		intKey("budgets.reference_depth", "how deep reference following goes: passages this many references from a search hit are read, their references not followed; a task also stops following when one document comes back a third time", 0, 10,
			func(c *Config) *int { return &c.Budgets.ReferenceDepth }),
		intKey("budgets.reference_tokens", "tokens of followed references per research task; the first reference that would exceed them ends the task's following (0: unlimited)", 0, 10_000_000,
			func(c *Config) *int { return &c.Budgets.ReferenceTokens }),
		durationKey("budgets.run_time", "longest wall time of one run", time.Second, 7*24*time.Hour,
			func(c *Config) *time.Duration { return &c.Budgets.RunTime }),
		floatKey("thresholds.relevance", "relevance score a retrieved chunk needs", 0, 1,
			func(c *Config) *float64 { return &c.Thresholds.Relevance }),
		intKey("thresholds.min_results", "chunks kept even below the relevance threshold", 0, 100,
			func(c *Config) *int { return &c.Thresholds.MinResults }),
		intKey("thresholds.quality", "report quality score (of 500) below which a retry is considered", 0, 500,
			func(c *Config) *int { return &c.Thresholds.Quality }),
		floatKey("thresholds.fuzzy_match", "Jaro-Winkler score a misspelt document name in a reference needs to resolve (registry fuzzy tier)", 0, 1,
			func(c *Config) *float64 { return &c.Thresholds.FuzzyMatch }),
		floatKey("thresholds.fill_confidence", "confidence a filled gas-table value needs", 0, 1,
			func(c *Config) *float64 { return &c.Thresholds.FillConfidence }),
		floatKey("thresholds.overwrite_margin", "confidence gain needed to overwrite a filled value", 0, 1,
			func(c *Config) *float64 { return &c.Thresholds.OverwriteMargin }),
		key{
			name: "serve.listen", allowed: "host:port, e.g. 127.0.0.1:2222",
			help: "where `warren serve` listens for SSH connections",
			set: func(c *Config, s string) error {
				s = strings.TrimSpace(s)
				host, port, err := net.SplitHostPort(s)
				if n, perr := strconv.Atoi(port); err != nil || perr != nil || n < 0 || n > 65535 || strings.ContainsAny(host, " /") {
					return errNotAllowed{}
				}
				c.Serve.Listen = s
				return nil
			},
			get: func(c *Config) any { return c.Serve.Listen },
		},
		intKey("serve.max_sessions", "SSH connections `warren serve` holds at once", 1, 10_000,
			func(c *Config) *int { return &c.Serve.MaxSessions }),
		durationKey("serve.idle_timeout", "a connection without input this long is closed; its jobs go on", time.Minute, 7*24*time.Hour,
			func(c *Config) *time.Duration { return &c.Serve.IdleTimeout }),
		intKey("serve.max_jobs_per_analyst", "long jobs (runs, fills, batches) one analyst may have running at once", 1, 100,
			func(c *Config) *int { return &c.Serve.MaxJobsPerAnalyst }),
		durationKey("serve.login_grace", "time a connection has to authenticate, and then to open the workbench; then it is closed", time.Second, 10*time.Minute,
			func(c *Config) *time.Duration { return &c.Serve.LoginGrace }),
		intKey("serve.max_startups", "connections that may be unauthenticated at once; a new one beyond them takes the place of one silent for a second, or is dropped", 1, 1000,
			func(c *Config) *int { return &c.Serve.MaxStartups }),
		durationKey("serve.keepalive", "how often a quiet client is asked if it is still there; 3 unanswered close its connection (0: never)", 0, 10*time.Minute,
			func(c *Config) *time.Duration { return &c.Serve.Keepalive }),
		key{
			name: "serve.ingest_roots",
			allowed: `a list of folders, absolute or relative to the workspace, whose last names differ (they are what ` +
				`analysts type), such as ["inbox", "/srv/shared/sds"]; empty turns ingest off in warren serve; ` +
				`in the environment separated by commas`,
			help: "the only folders analysts of `warren serve` may ingest from, each named by its last name (inbox/report.pdf); symbolic links out of them are refused",
			set: func(c *Config, s string) error {
				roots, err := ParseIngestRoots(s)
				if err != nil {
					return errNotAllowed{}
				}
				c.Serve.IngestRoots = roots
				return nil
			},
			get: func(c *Config) any { return append([]string{}, c.Serve.IngestRoots...) },
		},
		key{
			name: "serve.default_access", allowed: "none, read or write",
			help: "what an analyst of `warren serve` may do with a collection no grant names (`warren access`): none, read, or write (read and ingest into it)",
			set: func(c *Config, s string) error {
				switch s = strings.ToLower(strings.TrimSpace(s)); s {
				case "none", "read", "write":
					c.Serve.DefaultAccess = s
					return nil
				}
				return errNotAllowed{}
			},
			get: func(c *Config) any { return c.Serve.DefaultAccess },
		},
		key{
			name: "serve.inbox_watch", allowed: "true or false (on or off)",
			help: "`warren serve` ingests new and changed files of serve.ingest_roots by itself, each into the collection of its first sub-folder, and removes the documents of deleted ones",
			set: func(c *Config, s string) error {
				switch strings.ToLower(strings.TrimSpace(s)) {
				case "true", "on":
					c.Serve.InboxWatch = true
				case "false", "off":
					c.Serve.InboxWatch = false
				default:
					return errNotAllowed{}
				}
				return nil
			},
			get: func(c *Config) any { return c.Serve.InboxWatch },
		},
		durationKey("serve.inbox_poll", "how often `warren serve` looks for new, changed and deleted files in serve.ingest_roots", 100*time.Millisecond, 10*time.Minute,
			func(c *Config) *time.Duration { return &c.Serve.InboxPoll }),
		durationKey("serve.inbox_settle", "how long a file's size and time must stay the same before `warren serve` ingests it (a copy or save in progress is waited for)", 0, time.Hour,
			func(c *Config) *time.Duration { return &c.Serve.InboxSettle }),
		key{
			name: "audit.keep_queries", allowed: "text or hash",
			help: "how the audit trail keeps searches and research questions: text (as typed) or hash (a sha256 that matches equal queries without keeping their words)",
			set: func(c *Config, s string) error {
				switch s = strings.ToLower(strings.TrimSpace(s)); s {
				case "text", "hash":
					c.Audit.KeepQueries = s
					return nil
				}
				return errNotAllowed{}
			},
			get: func(c *Config) any { return c.Audit.KeepQueries },
		},
	)
}

// ocrLanguages is what kb.ocr_languages allows: it is passed to tesseract, where anything else
// could be read as an option.
var ocrLanguages = regexp.MustCompile(`^[A-Za-z0-9_]+(\+[A-Za-z0-9_]+)*$`)

func lookupKey(name string) (key, bool) {
	for _, k := range keys {
		if k.name == name {
			return k, true
		}
	}
	return key{}, false
}

// KeyNames lists every configuration key in display order.
func KeyNames() []string {
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = k.name
	}
	return names
}

// EnvName is the environment variable that sets a key: WARREN_ and the key in capitals with
// dots as underscores (models.chat.model → WARREN_MODELS_CHAT_MODEL).
func EnvName(keyName string) string {
	return "WARREN_" + strings.ToUpper(strings.ReplaceAll(keyName, ".", "_"))
}

func intKey(name, help string, lo, hi int, field func(c *Config) *int) key {
	return key{
		name: name, help: help, allowed: fmt.Sprintf("a whole number from %d to %d", lo, hi),
		set: func(c *Config, s string) error {
			v, err := strconv.Atoi(strings.TrimSpace(strings.ReplaceAll(s, "_", "")))
			if err != nil || v < lo || v > hi {
				return errNotAllowed{}
			}
			*field(c) = v
			return nil
		},
		get: func(c *Config) any { return *field(c) },
	}
}

func floatKey(name, help string, lo, hi float64, field func(c *Config) *float64) key {
	return key{
		name: name, help: help, allowed: fmt.Sprintf("a number from %g to %g", lo, hi),
		set: func(c *Config, s string) error {
			v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil || v < lo || v > hi {
				return errNotAllowed{}
			}
			*field(c) = v
			return nil
		},
		get: func(c *Config) any { return *field(c) },
	}
}

func durationKey(name, help string, lo, hi time.Duration, field func(c *Config) *time.Duration) key {
	return key{
		name: name, help: help,
		allowed: fmt.Sprintf("a duration such as 30s, 5m or 1h, from %s to %s", lo, hi),
		set: func(c *Config, s string) error {
			s = strings.TrimSpace(s)
			v, err := time.ParseDuration(s)
			if s == "0" {
				v, err = 0, nil
			}
			if err != nil || v < lo || v > hi {
				return errNotAllowed{}
			}
			*field(c) = v
			return nil
		},
		get: func(c *Config) any { return field(c).String() },
	}
}

func modelKey(name, help string, field func(c *Config) *string, required bool) key {
	allowed := "a model name such as qwen3:8b (letters, digits, '.', '-', '_', ':', '/')"
	return key{
		name: name, help: help, allowed: allowed,
		set: func(c *Config, s string) error {
			s = strings.TrimSpace(s)
			if s == "" && required {
				return errNotAllowed{}
			}
			for _, r := range s {
				ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(".-_:/", r)
				if !ok {
					return errNotAllowed{}
				}
			}
			*field(c) = s
			return nil
		},
		get: func(c *Config) any { return *field(c) },
	}
}

func hostKey(name, help string, field func(c *Config) *string, optional bool) key {
	return key{
		name: name, help: help,
		allowed: "an http(s) address such as http://127.0.0.1:11434 or host:port",
		set: func(c *Config, s string) error {
			s = strings.TrimSpace(s)
			if s == "" && optional {
				*field(c) = ""
				return nil
			}
			host, err := NormalizeHost(s)
			if err != nil {
				return errNotAllowed{}
			}
			*field(c) = host
			return nil
		},
		get: func(c *Config) any { return *field(c) },
	}
}

// roleHostKey is models.<role>.host: one host, which replaces a list set by an earlier layer.
func roleHostKey(name string, role func(c *Config) *Role) key {
	k := hostKey(name, "Ollama base URL for this role (empty: ollama.host)", func(c *Config) *string { return &role(c).Host }, true)
	set := k.set
	k.set = func(c *Config, s string) error {
		if err := set(c, s); err != nil {
			return err
		}
		if role(c).Host != "" {
			role(c).Hosts = nil
		}
		return nil
	}
	k.excludes = name + "s"
	return k
}

// NormalizeHost turns the forms Ollama users write ("localhost", "10.0.0.5:11434",
// "http://gpu-box") into a base URL with scheme and port.
func NormalizeHost(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", fmt.Errorf("empty host")
	}
	if !strings.Contains(s, "://") {
		s = "http://" + s
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return "", fmt.Errorf("not an http(s) address: %q", s)
	}
	if u.Port() == "" {
		port := "11434"
		if u.Scheme == "https" {
			port = "443"
		}
		u.Host = net.JoinHostPort(u.Hostname(), port)
	}
	u.Path = strings.TrimRight(u.Path, "/")
	return u.String(), nil
}
