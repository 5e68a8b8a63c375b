// Package doctor checks that a workspace and its model hosts are ready: the configuration is
// valid, the stores open, OCR can run (or why not), every host of every role answers and has
// the role's model.
// `warren doctor` prints the report; the workbench header shows it.
package doctor

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"warren/config"
	"warren/internal/schema"
	"warren/kb"
	"warren/kb/weaviatekb"
	"warren/llm"
	"warren/registry"
)

// Status is the outcome of one check.
type Status string

// Check outcomes. A skipped check could not run because an earlier one failed.
const (
	OK   Status = "ok"
	Fail Status = "fail"
	Skip Status = "skip"
)

// Check is one line of the report.
type Check struct {
	Name   string `json:"name"`
	Status Status `json:"status"`
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"`
}

// Report is the outcome of every check.
type Report struct {
	Workspace string  `json:"workspace"`
	OK        bool    `json:"ok"`
	Checks    []Check `json:"checks"`

	log *slog.Logger
}

// Input says what to check.
type Input struct {
	Workspace string         // the workspace folder
	Sources   config.Sources // environment and flags; the file is the workspace's warren.toml
	Options   []llm.Option   // gateway options (tests shorten timeouts)
	Logger    *slog.Logger   // receives each check; nil: discarded
	// Weaviate is the open knowledge-base server of the caller, checked instead of opening
	// another connection (warren serve checks every minute); nil: the check opens its own.
	Weaviate *weaviatekb.Backend
}

// Run performs every check. It never returns an error: problems are checks that failed.
func Run(ctx context.Context, in Input) Report {
	abs, _ := filepath.Abs(in.Workspace)
	r := &Report{Workspace: abs, log: in.Logger}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	isWS := kb.IsWorkspace(abs)
	if isWS {
		r.add(Check{Name: "workspace", Status: OK, Detail: abs})
	} else {
		r.add(Check{Name: "workspace", Status: Fail, Detail: "no workspace at " + abs,
			Fix: fmt.Sprintf("run `warren init %s`, or pass --workspace", in.Workspace)})
	}

	src := in.Sources
	src.File = filepath.Join(abs, config.FileName)
	cfg, err := config.Load(src)
	if err != nil {
		r.add(Check{Name: "config", Status: Fail, Detail: err.Error(), Fix: "correct the value in " + src.File + " or the environment"})
	} else {
		r.add(Check{Name: "config", Status: OK, Detail: describeSources(cfg)})
	}

	if isWS {
		r.checkStores(abs)
	}
	if cfg == nil {
		for _, role := range config.Roles {
			r.add(Check{Name: string(role) + " model", Status: Skip, Detail: "the configuration is invalid"})
		}
		return r.finish()
	}
	r.checkOCR(ctx, cfg)
	g, err := llm.New(cfg, in.Options...)
	if err != nil {
		r.add(Check{Name: "gateway", Status: Fail, Detail: err.Error()})
		return r.finish()
	}
	dim := r.checkModels(ctx, cfg, g)
	switch {
	case isWS && cfg.KB.Backend == kb.BackendWeaviate:
		wv := in.Weaviate
		if wv == nil {
			if wv = r.openWeaviate(ctx, cfg); wv == nil {
				break
			}
			defer wv.Close()
		}
		if r.checkWeaviate(ctx, cfg, wv) {
			r.checkCollectionsOf(ctx, wv, g, dim)
		}
	case isWS:
		r.checkCollections(ctx, abs, g, dim)
	}
	return r.finish()
}

func (r *Report) add(c Check) {
	r.log.Info("doctor check", "name", c.Name, "status", c.Status, "detail", c.Detail)
	r.Checks = append(r.Checks, c)
}

func (r *Report) finish() Report {
	r.OK = true
	for _, c := range r.Checks {
		if c.Status == Fail {
			r.OK = false
		}
	}
	return *r
}

func (r *Report) checkStores(dir string) {
	db, err := kb.OpenDB(filepath.Join(dir, kb.DBFileName), schema.All())
	if err != nil {
		r.add(Check{Name: "database", Status: Fail, Detail: err.Error(),
			Fix: "move " + kb.DBFileName + " aside and run `warren init` to create a fresh one"})
	} else {
		var result string
		if err := db.QueryRow("PRAGMA quick_check").Scan(&result); err != nil || result != "ok" {
			r.add(Check{Name: "database", Status: Fail, Detail: fmt.Sprintf("integrity check: %s %v", result, err),
				Fix: "restore " + kb.DBFileName + " from a backup"})
		} else {
			r.add(Check{Name: "database", Status: OK, Detail: kb.DBFileName + " (SQLite, WAL)"})
		}
		db.Close()
	}
	reg, err := registry.Load(filepath.Join(dir, registry.FileName))
	if err != nil {
		r.add(Check{Name: "registry", Status: Fail, Detail: err.Error(), Fix: "correct " + registry.FileName})
	} else {
		r.add(Check{Name: "registry", Status: OK,
			Detail: fmt.Sprintf("%d collection(s), %d document(s)", len(reg.Collections), reg.DocumentCount())})
	}
}

// checkModels checks every host of every role and that it has the role's model, and returns
// the embed model's dimension (0 when it is not available). A role with several hosts gets a
// line per host: one that lacks the model fails, though requests skip it and the others serve.
func (r *Report) checkModels(ctx context.Context, cfg *config.Config, g *llm.Gateway) int {
	var hosts []string
	for _, role := range config.Roles {
		for _, h := range g.Hosts(role) {
			if !slices.Contains(hosts, h) {
				hosts = append(hosts, h)
			}
		}
	}
	versions, errs := make([]string, len(hosts)), make([]error, len(hosts))
	var wg sync.WaitGroup
	for i, h := range hosts {
		wg.Go(func() { versions[i], errs[i] = g.HostVersion(ctx, h) })
	}
	wg.Wait()
	reachable := map[string]bool{}
	for i, host := range hosts {
		reachable[host] = errs[i] == nil
		if errs[i] != nil {
			r.add(Check{Name: "ollama " + host, Status: Fail,
				Detail: fmt.Sprintf("Ollama is not reachable at %s (%v)", host, rootMessage(errs[i])),
				Fix:    "start it with `ollama serve`, or point warren at it with --ollama-host / OLLAMA_HOST or models.<role>.hosts"})
			continue
		}
		r.add(Check{Name: "ollama " + host, Status: OK, Detail: "Ollama " + versions[i]})
	}
	embedOK := false
	for _, role := range config.Roles {
		model, _ := g.Model(role)
		roleHosts := g.Hosts(role)
		for _, host := range roleHosts {
			name := string(role) + " model"
			if len(roleHosts) > 1 {
				name += " on " + host
			}
			if !reachable[host] {
				r.add(Check{Name: name, Status: Skip, Detail: model + ": host not reachable"})
				continue
			}
			err := g.CheckModelOn(ctx, role, host)
			var missing *llm.ModelMissingError
			switch {
			case err == nil:
				detail := model
				if role == config.RoleFast && cfg.Fast.Model == "" {
					detail += " (the chat model)"
				}
				r.add(Check{Name: name, Status: OK, Detail: detail})
				embedOK = embedOK || role == config.RoleEmbed
			case errors.As(err, &missing):
				detail := fmt.Sprintf("%s is not on %s", model, host)
				if len(roleHosts) > 1 {
					detail += "; requests skip this host"
				}
				r.add(Check{Name: name, Status: Fail, Detail: detail, Fix: pullCommand(model, host)})
			default:
				r.add(Check{Name: name, Status: Fail, Detail: err.Error()})
			}
		}
	}
	if !embedOK {
		r.add(Check{Name: "embedding", Status: Skip, Detail: "the embed model is not available"})
		return 0
	}
	dim, err := g.EmbedDimension(ctx)
	if err != nil {
		r.add(Check{Name: "embedding", Status: Fail, Detail: err.Error()})
		return 0
	}
	r.add(Check{Name: "embedding", Status: OK, Detail: fmt.Sprintf("%d dimensions", dim)})
	return dim
}

// pullCommand is the command that installs a model on a host.
func pullCommand(model, host string) string {
	if host == config.DefaultHost {
		return fmt.Sprintf("run `ollama pull %s`", model)
	}
	return fmt.Sprintf("run `OLLAMA_HOST=%s ollama pull %s`", host, model)
}

func rootMessage(err error) string {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err.Error()
		}
		err = next
	}
}

func describeSources(c *config.Config) string {
	counts := map[string]int{}
	for _, src := range c.Sources {
		switch {
		case src == "default":
		case src == "flag":
			counts["flags"]++
		case strings.HasPrefix(src, "env "):
			counts["environment"]++
		default:
			counts["warren.toml"]++
		}
	}
	parts := []string{}
	for _, k := range []string{"warren.toml", "environment", "flags"} {
		if counts[k] > 0 {
			parts = append(parts, fmt.Sprintf("%d from %s", counts[k], k))
		}
	}
	if len(parts) == 0 {
		return "all defaults"
	}
	return "valid; settings " + strings.Join(parts, ", ")
}

// Text renders the report as a table for the terminal.
func (r Report) Text() string {
	var b strings.Builder
	width := 0
	for _, c := range r.Checks {
		width = max(width, len(c.Name))
	}
	for _, c := range r.Checks {
		fmt.Fprintf(&b, "%-4s  %-*s  %s\n", strings.ToUpper(string(c.Status)), width, c.Name, c.Detail)
		if c.Fix != "" {
			fmt.Fprintf(&b, "%-4s  %-*s  fix: %s\n", "", width, "", c.Fix)
		}
	}
	failed := 0
	for _, c := range r.Checks {
		if c.Status == Fail {
			failed++
		}
	}
	if failed == 0 {
		b.WriteString("\nAll checks passed.\n")
	} else {
		fmt.Fprintf(&b, "\n%d check(s) failed.\n", failed)
	}
	return b.String()
}
