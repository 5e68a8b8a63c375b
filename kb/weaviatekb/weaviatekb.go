// Package weaviatekb keeps warren's knowledge base in a Weaviate server (kb.backend =
// "weaviate"): documents and collections as objects, each collection's chunks in a class of
// their own with the vectors warren computed (Weaviate embeds nothing: no module is used).
//
// Lexical search is warren's: Weaviate's BM25 (k1 and b as configured, no stop words, over the
// terms warren's analyser wrote) only proposes candidates, the term frequencies come from the
// documents' records (termtable.go), and warren ranks them (lexical.Rank) from statistics
// over the whole knowledge base, as the embedded store does over its index in memory. Dense
// search is Weaviate's HNSW with cosine distance; a search within one document is filtered so
// tightly that Weaviate scans it exactly. What a
// search reads that only a write changes (the index's totals, term counts, document counts)
// is kept for the next searches while the list of collections, which every write stamps,
// stays the same (cache.go).
//
// warren starts no server: it connects to the configured one, which should bind loopback (or
// a private network), run with telemetry off and with no modules (docs/weaviate.md).
package weaviatekb

import (
	"context"
	"crypto/sha1"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/weaviate/weaviate-go-client/v5/weaviate"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/auth"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/grpc"
	"github.com/weaviate/weaviate/entities/models"

	"warren/config"
	"warren/kb"
	"warren/kb/lexical"
)

// APIKeyEnv is the environment variable that holds the server's API key. The key is never
// read from warren.toml, so it is not written into a workspace that others may read.
const APIKeyEnv = "WARREN_WEAVIATE_API_KEY"

// DefaultClassPrefix begins the name of every class warren creates.
const DefaultClassPrefix = "Warren"

// Options say which server to use and how.
type Options struct {
	URL    string // http(s)://host:port of the REST API
	GRPC   string // host:port of the gRPC API, for batch writes, searches and counts; "" uses REST only
	APIKey string // "" for a server with anonymous access

	// ClassPrefix begins every class name (kb.weaviate.class_prefix, default
	// DefaultClassPrefix); tests and `warren eval` use their own so they never touch a
	// knowledge base on the same server.
	ClassPrefix string
	// Replicas is the replication factor of the classes warren creates (0: the server's
	// default). With more than one, writes wait for a quorum of replicas and reads take
	// the first answer, so a search still answers while a node is down.
	Replicas int
	// Lexical holds the lexical ranking's settings (lexical.DefaultParams when zero).
	Lexical lexical.Params
	// Timeout bounds one request (default 60 s).
	Timeout time.Duration

	// transport carries the REST requests when set (tests count them).
	transport http.RoundTripper
}

// OptionsFrom reads the backend's settings from a workspace configuration and the API key
// from the environment.
func OptionsFrom(c *config.Config, getenv func(string) string) Options {
	return Options{URL: c.KB.Weaviate.URL, GRPC: c.KB.Weaviate.GRPC, APIKey: getenv(APIKeyEnv),
		Replicas: c.KB.Weaviate.Replicas, ClassPrefix: c.KB.Weaviate.ClassPrefix, Lexical: kb.LexicalParamsFrom(c)}
}

// Backend is a knowledge base in a Weaviate server. It implements kb.Backend and
// lexical.Source.
type Backend struct {
	client *weaviate.Client
	rpc    *rpcConn // nil without kb.weaviate.grpc
	opts   Options
	cache  readCache

	mu        sync.Mutex
	lastOrder int64           // the last chunk order handed out (see nextOrder)
	classes   map[string]bool // chunk classes known to exist

	termCounts atomic.Int64 // document frequencies counted on the server (term × class), for tests

	bg     context.Context // background reads (the term table), cancelled by Close
	stopBg context.CancelFunc
	bgRuns sync.WaitGroup // the background reads, which Close waits for

	tableMu                            sync.Mutex
	tableReading                       bool   // a term table is being read
	tableGaveUp                        string // the list of collections whose table was incomplete
	tableRead                          string // the list of collections whose table was read last
	tableBuilt, tableFailed, tableUsed atomic.Int64
}

var (
	_ kb.Backend     = (*Backend)(nil)
	_ lexical.Source = (*Backend)(nil)
)

// Open connects to the server, checks that it answers, and creates the classes of
// collections and documents when they are missing.
func Open(ctx context.Context, opts Options) (*Backend, error) {
	if opts.ClassPrefix == "" {
		opts.ClassPrefix = DefaultClassPrefix
	}
	if opts.Lexical == (lexical.Params{}) {
		opts.Lexical = lexical.DefaultParams()
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 60 * time.Second
	}
	client, err := newClient(opts)
	if err != nil {
		return nil, err
	}
	b := &Backend{client: client, opts: opts, classes: map[string]bool{}}
	b.bg, b.stopBg = context.WithCancel(context.Background())
	if opts.GRPC != "" {
		if b.rpc, err = dialRPC(opts); err != nil {
			return nil, err
		}
	}
	if _, err := b.Version(ctx); err != nil {
		b.Close()
		return nil, err
	}
	if err := b.ensureBaseClasses(ctx); err != nil {
		b.Close()
		return nil, err
	}
	if err := b.ensureChunkProperties(ctx); err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

// Close ends warren's own gRPC connection and the background reads; the backend is not used
// afterwards.
func (b *Backend) Close() error {
	b.stopBg()
	b.bgRuns.Wait()
	if b.rpc == nil {
		return nil
	}
	return b.rpc.close()
}

func newClient(opts Options) (*weaviate.Client, error) {
	if opts.URL == "" {
		return nil, errors.New("kb.backend is weaviate but kb.weaviate.url is not set")
	}
	u, err := url.Parse(opts.URL)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, fmt.Errorf("kb.weaviate.url %q: not an http(s) address", opts.URL)
	}
	cfg := weaviate.Config{Host: u.Host, Scheme: u.Scheme, Timeout: opts.Timeout}
	if opts.GRPC != "" {
		// The client's own gRPC connection (v5.5.0) accepts any certificate over TLS, and the
		// API key would go with every search to whoever answers.
		if u.Scheme == "https" {
			return nil, fmt.Errorf("kb.weaviate.grpc cannot be used with an https server (%s): the Weaviate client does not check the server's certificate over gRPC; leave kb.weaviate.grpc empty and warren searches over HTTPS", opts.URL)
		}
		cfg.GrpcConfig = &grpc.Config{Host: opts.GRPC}
	}
	if opts.APIKey != "" {
		cfg.AuthConfig = auth.ApiKey{Value: opts.APIKey}
	} else if opts.transport != nil {
		cfg.ConnectionClient = &http.Client{Transport: opts.transport}
	}
	client, err := weaviate.NewClient(cfg)
	if err != nil {
		return nil, fmt.Errorf("couldn't reach Weaviate at %s: %w", opts.URL, err)
	}
	return client, nil
}

// Kind is "weaviate".
func (b *Backend) Kind() string { return kb.BackendWeaviate }

// Version returns the server's version; an error means it cannot be reached.
func (b *Backend) Version(ctx context.Context) (string, error) {
	meta, err := b.client.Misc().MetaGetter().Do(ctx)
	if err != nil {
		return "", fmt.Errorf("couldn't reach Weaviate at %s: %w", b.opts.URL, err)
	}
	return meta.Version, nil
}

// Prepare does nothing: the server is ready for writes as it is.
func (b *Backend) Prepare(context.Context) error { return nil }

// Flush does nothing: every write is durable on the server when it returns.
func (b *Backend) Flush(context.Context) error { return nil }

// Class names. A collection's name ([a-z0-9][a-z0-9_-]*) becomes part of a class name, which
// allows only letters, digits and '_': '_' is written "_0" and '-' "_1", so no two
// collections share a class.
func (b *Backend) collectionClass() string { return b.opts.ClassPrefix + "Collection" }
func (b *Backend) documentClass() string   { return b.opts.ClassPrefix + "Document" }
func (b *Backend) chunkClass(collection string) string {
	return b.opts.ClassPrefix + "Chunks_" + strings.NewReplacer("_", "_0", "-", "_1").Replace(collection)
}

// objectID is the UUID of an object: derived from its kind and key (RFC 4122 version 5
// layout over SHA-1), so writing an object again replaces it, and a resumed write never
// duplicates one.
func objectID(kind, key string) string {
	h := sha1.Sum([]byte("warren\x00" + kind + "\x00" + key))
	h[6] = h[6]&0x0f | 0x50
	h[8] = h[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16])
}

// orderStep leaves room for a document's chunks between two orders handed out.
const orderStep = 10_000

// ordersPerSecond: orders follow the clock in seconds since orderEpoch, with room for 256
// documents a second (a faster ingest runs ahead of the clock, still in order). That keeps
// them below 2^53, which GraphQL's JSON numbers hold exactly, until 2135; in milliseconds
// they would have run out in 2052.
const ordersPerSecond = 256 * orderStep

var orderEpoch = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// nextOrder hands out the order of a document's first chunk: after every order this backend
// handed out before, and after the clock's.
func (b *Backend) nextOrder() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	o := int64(time.Since(orderEpoch).Seconds()) * ordersPerSecond
	if o <= b.lastOrder {
		o = b.lastOrder + orderStep
	}
	b.lastOrder = o
	return o
}

// graphQL runs a query and decodes its data into out.
func (b *Backend) graphQL(ctx context.Context, query string, out any) error {
	resp, err := b.client.GraphQL().Raw().WithQuery(query).Do(ctx)
	if err != nil {
		return fmt.Errorf("couldn't query Weaviate: %w", err)
	}
	if len(resp.Errors) > 0 {
		msgs := make([]string, len(resp.Errors))
		for i, e := range resp.Errors {
			msgs[i] = e.Message
		}
		return fmt.Errorf("couldn't query Weaviate: %s", strings.Join(msgs, "; "))
	}
	raw, err := json.Marshal(resp.Data)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, out)
}

// quote writes a GraphQL string literal (GraphQL strings escape as JSON's do).
func quote(s string) string {
	q, _ := json.Marshal(s)
	return string(q)
}

// isAlreadyExists reports a create that lost a race with another writer.
func isAlreadyExists(err error) bool {
	return err != nil && strings.Contains(strings.ToLower(err.Error()), "already exists")
}

// ensureBaseClasses creates the classes of collections and documents when missing, and adds
// the properties that a class created by an earlier warren lacks.
func (b *Backend) ensureBaseClasses(ctx context.Context) error {
	for _, c := range []*models.Class{b.collectionSchema(), b.documentSchema()} {
		exists, err := b.client.Schema().ClassExistenceChecker().WithClassName(c.Class).Do(ctx)
		if err != nil {
			return fmt.Errorf("couldn't read Weaviate's schema: %w", err)
		}
		if !exists {
			if err := b.client.Schema().ClassCreator().WithClass(c).Do(ctx); err != nil && !isAlreadyExists(err) {
				return fmt.Errorf("couldn't create class %s: %w", c.Class, err)
			}
			continue
		}
		if err := b.addMissingProperties(ctx, c); err != nil {
			return err
		}
	}
	return nil
}

// addMissingProperties adds to a stored class the properties warren's schema has and it lacks
// (the collections' version and the documents' file size and time came after the first
// release of this backend); records written before read them as null.
func (b *Backend) addMissingProperties(ctx context.Context, want *models.Class) error {
	got, err := b.client.Schema().ClassGetter().WithClassName(want.Class).Do(ctx)
	if err != nil {
		return fmt.Errorf("couldn't read class %s: %w", want.Class, err)
	}
	return b.addProperties(ctx, want.Class, missingProperties(want.Properties, got))
}

// ensureChunkProperties adds to the chunk classes an earlier warren created the properties
// they lack (a chunk's page and OCR came later), so that reads, which ask for every property,
// work on them; their objects read as having no page until written again.
func (b *Backend) ensureChunkProperties(ctx context.Context) error {
	s, err := b.client.Schema().Getter().Do(ctx)
	if err != nil {
		return fmt.Errorf("couldn't read Weaviate's schema: %w", err)
	}
	want := b.chunkSchema("").Properties // the same for every collection
	for _, c := range s.Classes {
		if !strings.HasPrefix(c.Class, b.opts.ClassPrefix+"Chunks_") {
			continue
		}
		if err := b.addProperties(ctx, c.Class, missingProperties(want, c)); err != nil {
			return err
		}
	}
	return nil
}

// missingProperties are those of want that the stored class got lacks.
func missingProperties(want []*models.Property, got *models.Class) []*models.Property {
	have := map[string]bool{}
	for _, p := range got.Properties {
		have[p.Name] = true
	}
	var out []*models.Property
	for _, p := range want {
		if !have[p.Name] {
			out = append(out, p)
		}
	}
	return out
}

func (b *Backend) addProperties(ctx context.Context, class string, props []*models.Property) error {
	for _, p := range props {
		if err := b.client.Schema().PropertyCreator().WithClassName(class).WithProperty(p).Do(ctx); err != nil && !isAlreadyExists(err) {
			return fmt.Errorf("couldn't add property %s to class %s: %w", p.Name, class, err)
		}
	}
	return nil
}

// ensureChunkClass creates a collection's chunk class when missing, and adds the properties
// one lacks.
func (b *Backend) ensureChunkClass(ctx context.Context, collection string) error {
	name := b.chunkClass(collection)
	b.mu.Lock()
	known := b.classes[name]
	b.mu.Unlock()
	if known {
		return nil
	}
	exists, err := b.client.Schema().ClassExistenceChecker().WithClassName(name).Do(ctx)
	if err != nil {
		return fmt.Errorf("couldn't read Weaviate's schema: %w", err)
	}
	if !exists {
		if err := b.client.Schema().ClassCreator().WithClass(b.chunkSchema(collection)).Do(ctx); err != nil && !isAlreadyExists(err) {
			return fmt.Errorf("couldn't create the class of collection %s: %w", collection, err)
		}
	} else if err := b.addMissingProperties(ctx, b.chunkSchema(collection)); err != nil {
		// An earlier warren may have created it since Open added what old classes lack.
		return err
	}
	b.mu.Lock()
	b.classes[name] = true
	b.mu.Unlock()
	return nil
}

// DropAll deletes every class under the backend's prefix: the whole knowledge base.
func (b *Backend) DropAll(ctx context.Context) error {
	s, err := b.client.Schema().Getter().Do(ctx)
	if err != nil {
		return fmt.Errorf("couldn't read Weaviate's schema: %w", err)
	}
	for _, c := range s.Classes {
		if !b.ownsClass(c.Class) {
			continue
		}
		if err := b.client.Schema().ClassDeleter().WithClassName(c.Class).Do(ctx); err != nil {
			return fmt.Errorf("couldn't delete class %s: %w", c.Class, err)
		}
	}
	b.mu.Lock()
	clear(b.classes)
	b.mu.Unlock()
	b.cache.invalidate()
	return nil
}

func (b *Backend) ownsClass(name string) bool {
	return name == b.collectionClass() || name == b.documentClass() || strings.HasPrefix(name, b.opts.ClassPrefix+"Chunks_")
}
