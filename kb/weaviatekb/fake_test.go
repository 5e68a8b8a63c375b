package weaviatekb

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/weaviate/weaviate/entities/models"
)

// fakeWeaviate answers the REST requests a backend without gRPC makes, from objects in
// memory, and records them, so the order and number of a write's requests can be tested
// without a server. Its GraphQL knows what warren asks: Get of classes filtered by one Equal or
// ContainsAny on a text property, with limit, offset and after (a later page is empty).
type fakeWeaviate struct {
	mu      sync.Mutex
	classes map[string]*models.Class
	objects map[string]map[string]fakeObject // class → UUID → object
	log     []fakeRequest
	writes  int // batch writes and deletes so far
	failAt  int // the write that fails (0: none)
}

type fakeObject struct {
	props  map[string]any
	vector []float32
}

// fakeRequest is one request as the tests look at it.
type fakeRequest struct {
	method, path string
	objects      []fakeWritten // a batch write's objects
	deleted      []string      // the IDs a batch delete matched (their chunk_id or doc_id)
	query        string        // a GraphQL query
}

type fakeWritten struct {
	class string
	props map[string]any
}

func newFakeWeaviate(t *testing.T) (*fakeWeaviate, Options) {
	f := &fakeWeaviate{classes: map[string]*models.Class{}, objects: map[string]map[string]fakeObject{}}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, Options{URL: srv.URL, ClassPrefix: "WarrenFake"}
}

// requests returns the requests recorded since the mark (a length of the log).
func (f *fakeWeaviate) requests(since int) []fakeRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.log[since:])
}

func (f *fakeWeaviate) mark() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.log)
}

// props returns the properties of the objects of a class, sorted by key.
func (f *fakeWeaviate) props(class, key string) []map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []map[string]any
	for _, o := range f.objects[class] {
		out = append(out, o.props)
	}
	slices.SortFunc(out, func(a, b map[string]any) int { return strings.Compare(str(a[key]), str(b[key])) })
	return out
}

func str(v any) string { s, _ := v.(string); return s }

func (f *fakeWeaviate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	body, _ := io.ReadAll(r.Body)
	path := strings.TrimPrefix(r.URL.Path, "/v1")
	req := fakeRequest{method: r.Method, path: path}
	defer func() { f.log = append(f.log, req) }()
	reply := func(code int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		if v != nil {
			json.NewEncoder(w).Encode(v)
		}
	}
	parts := strings.Split(strings.Trim(path, "/"), "/")
	switch {
	case r.Method == http.MethodGet && path == "/meta":
		reply(200, map[string]any{"version": "1.35.2"})
	case r.Method == http.MethodGet && path == "/schema":
		var cs []*models.Class
		for _, c := range f.classes {
			cs = append(cs, c)
		}
		reply(200, map[string]any{"classes": cs})
	case r.Method == http.MethodGet && parts[0] == "schema" && len(parts) == 2:
		if c, ok := f.classes[parts[1]]; ok {
			reply(200, c)
		} else {
			reply(404, nil)
		}
	case r.Method == http.MethodPost && path == "/schema":
		var c models.Class
		json.Unmarshal(body, &c)
		f.classes[c.Class] = &c
		reply(200, c)
	case r.Method == http.MethodPost && parts[0] == "schema" && len(parts) == 3 && parts[2] == "properties":
		var p models.Property
		json.Unmarshal(body, &p)
		f.classes[parts[1]].Properties = append(f.classes[parts[1]].Properties, &p)
		reply(200, p)
	case r.Method == http.MethodDelete && parts[0] == "schema" && len(parts) == 2:
		delete(f.classes, parts[1])
		delete(f.objects, parts[1])
		reply(200, nil)
	case r.Method == http.MethodPost && path == "/batch/objects":
		var in struct{ Objects []*models.Object }
		json.Unmarshal(body, &in)
		if f.fail() {
			reply(500, map[string]any{"error": []map[string]string{{"message": "the fake fails this write"}}})
			return
		}
		var out []map[string]any
		for _, o := range in.Objects {
			props, _ := o.Properties.(map[string]any)
			if f.objects[o.Class] == nil {
				f.objects[o.Class] = map[string]fakeObject{}
			}
			f.objects[o.Class][string(o.ID)] = fakeObject{props: props, vector: o.Vector}
			req.objects = append(req.objects, fakeWritten{class: o.Class, props: props})
			out = append(out, map[string]any{"class": o.Class, "id": o.ID, "result": map[string]any{}})
		}
		reply(200, out)
	case r.Method == http.MethodDelete && path == "/batch/objects":
		var in struct {
			Match struct {
				Class string
				Where *models.WhereFilter
			}
		}
		json.Unmarshal(body, &in)
		if f.fail() {
			reply(500, map[string]any{"error": []map[string]string{{"message": "the fake fails this delete"}}})
			return
		}
		values := in.Match.Where.ValueTextArray
		if in.Match.Where.ValueText != nil {
			values = []string{*in.Match.Where.ValueText}
		}
		prop := in.Match.Where.Path[0]
		for id, o := range f.objects[in.Match.Class] {
			if slices.Contains(values, str(o.props[prop])) {
				req.deleted = append(req.deleted, str(o.props[prop]))
				delete(f.objects[in.Match.Class], id)
			}
		}
		slices.Sort(req.deleted)
		reply(200, map[string]any{"results": map[string]any{"matches": len(req.deleted), "successful": len(req.deleted)}})
	case r.Method == http.MethodPatch && parts[0] == "objects" && len(parts) == 3:
		o, ok := f.objects[parts[1]][parts[2]]
		if !ok {
			reply(404, nil)
			return
		}
		var in models.Object
		json.Unmarshal(body, &in)
		for k, v := range in.Properties.(map[string]any) {
			o.props[k] = v
		}
		reply(204, nil)
	case r.Method == http.MethodPost && path == "/graphql":
		var in struct{ Query string }
		json.Unmarshal(body, &in)
		req.query = in.Query
		reply(200, map[string]any{"data": map[string]any{"Get": f.get(in.Query)}})
	default:
		reply(404, map[string]any{"error": []map[string]string{{"message": "the fake does not know " + r.Method + " " + path}}})
	}
}

// fail counts a write and tells whether it is the one to fail.
func (f *fakeWeaviate) fail() bool {
	f.writes++
	return f.writes == f.failAt
}

var (
	fakeGet   = regexp.MustCompile(`(\w+)\(([^()]*)\)`)
	fakeWhere = regexp.MustCompile(`path: \["(\w+)"\], operator: (\w+), valueText: (\[[^\]]*\]|"(?:[^"\\]|\\.)*")`)
	fakeInt   = func(args, name string) int {
		m := regexp.MustCompile(name + `: (\d+)`).FindStringSubmatch(args)
		if m == nil {
			return -1
		}
		n, _ := strconv.Atoi(m[1])
		return n
	}
)

// get answers a GraphQL Get, class by class.
func (f *fakeWeaviate) get(query string) map[string][]map[string]any {
	out := map[string][]map[string]any{}
	for _, m := range fakeGet.FindAllStringSubmatch(query, -1) {
		class, args := m[1], m[2]
		out[class] = []map[string]any{}
		if fakeInt(args, "offset") > 0 || strings.Contains(args, "after:") {
			continue // one page holds everything the tests store
		}
		var prop string
		var values []string
		if w := fakeWhere.FindStringSubmatch(args); w != nil {
			prop = w[1]
			if strings.HasPrefix(w[3], "[") {
				json.Unmarshal([]byte(w[3]), &values)
			} else {
				var v string
				json.Unmarshal([]byte(w[3]), &v)
				values = []string{v}
			}
		}
		ids := make([]string, 0, len(f.objects[class]))
		for id := range f.objects[class] {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		for _, id := range ids {
			o := f.objects[class][id]
			if prop != "" && !slices.Contains(values, str(o.props[prop])) {
				continue
			}
			if limit := fakeInt(args, "limit"); limit >= 0 && len(out[class]) == limit {
				break
			}
			obj := map[string]any{"_additional": map[string]any{"id": id, "vector": o.vector}}
			for k, v := range o.props {
				obj[k] = v
			}
			out[class] = append(out[class], obj)
		}
	}
	return out
}
