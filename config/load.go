package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
	edlib "github.com/hbollon/go-edlib"
)

// ValueError reports a setting whose value is not allowed, naming the key, the value, where it
// came from and what is allowed, in one line.
type ValueError struct {
	Key, Value, Source, Allowed string
}

func (e *ValueError) Error() string {
	return fmt.Sprintf("invalid setting %s = %q (from %s): allowed is %s", e.Key, e.Value, e.Source, e.Allowed)
}

// UnknownKeyError reports a key that warren does not know, with the closest known key.
type UnknownKeyError struct {
	Key, Source, Suggestion string
}

func (e *UnknownKeyError) Error() string {
	msg := fmt.Sprintf("unknown setting %q (from %s)", e.Key, e.Source)
	if e.Suggestion != "" {
		msg += fmt.Sprintf(": did you mean %q?", e.Suggestion)
	}
	return msg + "; `warren config` lists every setting"
}

// Sources are the layers above the defaults, applied in this order.
type Sources struct {
	File  string            // path of warren.toml; a missing file is not an error
	Env   []string          // KEY=value pairs, usually os.Environ()
	Flags map[string]string // key name → value given on the command line
}

// Load builds the effective configuration: defaults → file → environment → flags.
func Load(src Sources) (*Config, error) {
	c := Default()
	if src.File != "" {
		if err := c.applyFile(src.File); err != nil {
			return nil, err
		}
	}
	if err := c.applyEnv(src.Env); err != nil {
		return nil, err
	}
	names := make([]string, 0, len(src.Flags))
	for name := range src.Flags {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := c.Set(name, src.Flags[name], "flag"); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// Set sets one key from text, recording source as where it came from.
func (c *Config) Set(name, value, source string) error {
	k, ok := lookupKey(name)
	if !ok {
		return &UnknownKeyError{Key: name, Source: source, Suggestion: closestKey(name)}
	}
	if other, ok := lookupKey(k.excludes); ok && strings.TrimSpace(value) != "" && c.Sources[other.name] == source &&
		!isEmpty(other.get(c)) {
		return &ValueError{Key: name, Value: value, Source: source,
			Allowed: fmt.Sprintf("one of %s and %s in one place, not both", other.name, name)}
	}
	if err := k.set(c, value); err != nil {
		return &ValueError{Key: name, Value: value, Source: source, Allowed: k.allowed}
	}
	c.Sources[name] = source
	if k.excludes != "" && strings.TrimSpace(value) != "" {
		c.Sources[k.excludes] = source // its value was decided here
	}
	return nil
}

// isEmpty says whether a key's value is unset: an empty string or list.
func isEmpty(v any) bool {
	switch t := v.(type) {
	case string:
		return t == ""
	case []string:
		return len(t) == 0
	}
	return false
}

func (c *Config) applyFile(path string) error {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("couldn't read %s: %w", path, err)
	}
	var tree map[string]any
	if _, err := toml.Decode(string(data), &tree); err != nil {
		return fmt.Errorf("couldn't parse %s: %w (fix the TOML syntax, or move the file away to use defaults)", path, err)
	}
	flat := map[string]any{}
	flatten("", tree, flat)
	names := make([]string, 0, len(flat))
	for name := range flat {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := c.Set(name, valueText(flat[name]), path); err != nil {
			return err
		}
	}
	return nil
}

func (c *Config) applyEnv(env []string) error {
	vars := map[string]string{}
	for _, kv := range env {
		if name, value, ok := strings.Cut(kv, "="); ok {
			vars[name] = value
		}
	}
	// OLLAMA_HOST is what every Ollama user already sets; WARREN_OLLAMA_HOST wins over it.
	if v, ok := vars["OLLAMA_HOST"]; ok && v != "" {
		if err := c.Set("ollama.host", v, "env OLLAMA_HOST"); err != nil {
			return err
		}
	}
	for _, k := range keys {
		name := EnvName(k.name)
		if v, ok := vars[name]; ok {
			if err := c.Set(k.name, v, "env "+name); err != nil {
				return err
			}
		}
	}
	return nil
}

func flatten(prefix string, tree map[string]any, out map[string]any) {
	for k, v := range tree {
		name := k
		if prefix != "" {
			name = prefix + "." + k
		}
		if sub, ok := v.(map[string]any); ok {
			flatten(name, sub, out)
			continue
		}
		out[name] = v
	}
}

func valueText(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case int64:
		return strconv.FormatInt(t, 10)
	case float64:
		return strconv.FormatFloat(t, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(t)
	case time.Duration:
		return t.String()
	case []any:
		// A list (models.<role>.hosts) reaches the key table as the environment writes it.
		parts := make([]string, len(t))
		for i, x := range t {
			parts[i] = valueText(x)
		}
		return strings.Join(parts, ",")
	default:
		return fmt.Sprint(t)
	}
}

// closestKey suggests the known key within a small edit distance, so a typo like
// models.chat.modle points at models.chat.model.
func closestKey(name string) string {
	best, bestDist := "", 4
	for _, k := range keys {
		if d := edlib.LevenshteinDistance(name, k.name); d < bestDist {
			best, bestDist = k.name, d
		}
	}
	return best
}

// Entry is one setting as `warren config` shows it.
type Entry struct {
	Key     string `json:"key"`
	Value   any    `json:"value"`
	Source  string `json:"source"`
	Env     string `json:"env"`
	Allowed string `json:"allowed"`
	Help    string `json:"help"`
}

// Entries lists every setting with its effective value and where it came from.
func (c *Config) Entries() []Entry {
	out := make([]Entry, len(keys))
	for i, k := range keys {
		out[i] = Entry{Key: k.name, Value: k.get(c), Source: c.Sources[k.name], Env: EnvName(k.name),
			Allowed: k.allowed, Help: k.help}
	}
	return out
}

// DefaultFile is the warren.toml that `warren init` writes: the model roles set, every other
// key present as a comment with its default, generated from the key table so it never drifts.
func DefaultFile() string {
	var b strings.Builder
	b.WriteString("# warren workspace settings. Precedence: defaults < this file < environment (WARREN_*,\n")
	b.WriteString("# OLLAMA_HOST) < command-line flags. `warren config` shows every key and its source.\n")
	d := Default()
	section := ""
	for _, k := range keys {
		sec, field := splitKey(k.name)
		if sec != section {
			section = sec
			fmt.Fprintf(&b, "\n[%s]\n", sec)
		}
		val := k.get(d)
		literal := tomlLiteral(val)
		active := strings.HasSuffix(k.name, ".model") && literal != `""`
		prefix := "# "
		if active {
			prefix = ""
		}
		fmt.Fprintf(&b, "%s%s = %s  # %s\n", prefix, field, literal, k.help)
	}
	return b.String()
}

func splitKey(name string) (section, field string) {
	i := strings.LastIndex(name, ".")
	return name[:i], name[i+1:]
}

func tomlLiteral(v any) string {
	switch t := v.(type) {
	case string:
		return strconv.Quote(t)
	case float64:
		return strconv.FormatFloat(t, 'f', -1, 64)
	case []string:
		quoted := make([]string, len(t))
		for i, x := range t {
			quoted[i] = strconv.Quote(x)
		}
		return "[" + strings.Join(quoted, ", ") + "]"
	default:
		return fmt.Sprint(t)
	}
}
