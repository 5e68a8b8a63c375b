package main

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"warren/tui/serve"
)

func (a *app) serveCommand() *cobra.Command {
	var opts serve.Options
	var keys string
	cmd := &cobra.Command{
		Use:     "serve",
		Args:    cobra.NoArgs,
		PreRunE: func(*cobra.Command, []string) error { return a.serveLog() },
		RunE: a.serviceRun(func(ctx context.Context, e *env, _ []string) error {
			cfg := e.ServeConfig()
			if opts.Listen == "" {
				opts.Listen = cfg.Listen
			}
			if opts.HostKey == "" {
				opts.HostKey = filepath.Join(e.WorkspaceDir(), "serve", "host_ed25519")
			}
			opts.AuthorizedKeys = a.authorizedKeys(keys)
			opts.MaxSessions, opts.IdleTimeout, opts.MaxJobs = cfg.MaxSessions, cfg.IdleTimeout, cfg.MaxJobsPerAnalyst
			opts.LoginGrace, opts.MaxStartups, opts.Keepalive = cfg.LoginGrace, cfg.MaxStartups, cfg.Keepalive
			opts.Log = a.logger
			return serve.Run(ctx, e, opts, a.stdout)
		}),
	}
	f := cmd.Flags()
	f.StringVar(&opts.Listen, "listen", "", "host:port to listen on (default serve.listen, 127.0.0.1:2222)")
	f.StringVar(&opts.HostKey, "host-key", "", "ed25519 host key, created on first start (default serve/host_ed25519 in the workspace)")
	f.StringVar(&keys, "authorized-keys", "", "the analysts' key file (default serve/authorized_keys in the workspace)")
	return cmd
}

// serveLog is where warren serve records connections when no --log-file is given: in the
// workspace, never on a screen.
func (a *app) serveLog() error {
	if a.logFile != "" || a.getenv("WARREN_LOG_FILE") != "" {
		return nil
	}
	path := filepath.Join(a.workspaceDir(), "serve", "serve.log")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	a.logger = slog.New(slog.NewTextHandler(f, nil))
	prev := a.closeLog
	a.closeLog = func() { f.Close(); prev() }
	return nil
}
