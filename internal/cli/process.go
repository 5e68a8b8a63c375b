package cli

// What a command knows of its process: the binary's version, the environment, the log.

import (
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
)

// Version is what `warren version` prints.
type Version struct {
	Version  string `json:"version"`
	Commit   string `json:"commit,omitempty"`
	Modified bool   `json:"modified,omitempty"`
	Go       string `json:"go"`
	Platform string `json:"platform"`
}

// BuildVersion is the running binary's version: version as set at build time, the commit it
// was built from, the Go release and the platform.
func BuildVersion(version string) Version {
	v := Version{Version: version, Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				v.Commit = s.Value
			case "vcs.modified":
				v.Modified = s.Value == "true"
			}
		}
	}
	return v
}

// String is the version in one line: "warren v0.1.0 (0123456789ab, modified), go1.26, linux/amd64".
func (v Version) String() string {
	line := "warren " + v.Version
	if v.Commit != "" {
		line += " (" + v.Commit[:min(12, len(v.Commit))]
		if v.Modified {
			line += ", modified"
		}
		line += ")"
	}
	return fmt.Sprintf("%s, %s, %s", line, v.Go, v.Platform)
}

// Getenv is the value of the variable name in env ("NAME=value" items), or "".
func Getenv(env []string, name string) string {
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && k == name {
			return v
		}
	}
	return ""
}

// OpenLog opens the diagnostics log: a text log at level appended to the file path, or a
// logger that discards everything when path is "". closeLog closes the file (it is never nil).
func OpenLog(path, level string) (logger *slog.Logger, closeLog func(), err error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, func() {}, Usage("--log-level %q: allowed is debug, info, warn or error", level)
	}
	if path == "" {
		return slog.New(slog.DiscardHandler), func() {}, nil
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, func() {}, fmt.Errorf("couldn't open the log file: %w", err)
	}
	return slog.New(slog.NewTextHandler(f, &slog.HandlerOptions{Level: l})), func() { f.Close() }, nil
}
