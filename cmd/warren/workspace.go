package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"os/user"
	"syscall"

	"warren/internal/cli"
	"warren/service"

	"github.com/spf13/cobra"
)

// env is an open workspace: the application service the commands call.
type env = service.Service

// open opens the workspace named by the global flags.
func (a *app) open() (*env, error) {
	bar := cli.NewProgressLine(a.stderr)
	reindexed := 0
	svc, err := service.Open(a.workspaceDir(), a.sources(), service.Options{Logger: a.logger, Owner: a.owner(),
		Reindexing: func(done, total int) {
			reindexed = done
			bar.Draw(fmt.Sprintf("Re-indexing the knowledge base for this version of warren: %d of %d passages", done, total))
		}})
	bar.Done()
	if err == nil && reindexed > 0 {
		// Once per workspace and version: said on stderr, so output and --json stay clean.
		fmt.Fprintf(a.stderr, "Re-indexed %d passages: the knowledge base was indexed by an older warren.\n", reindexed)
		a.reindexed = reindexed
	}
	return svc, err
}

// owner names the analyst running this command, for the jobs it starts.
func (a *app) owner() string {
	if u := a.getenv("USER"); u != "" {
		return u
	}
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	return "analyst"
}

// interruptible returns a context cancelled by Ctrl-C or SIGTERM.
func interruptible(cmd *cobra.Command) (context.Context, context.CancelFunc) {
	return signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
}
