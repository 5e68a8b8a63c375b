package main

import (
	"context"
	"os"
	"os/signal"
	"os/user"
	"syscall"
	"warren/service"

	"github.com/spf13/cobra"
)

// env is an open workspace: the application service the commands call.
type env = service.Service

// open opens the workspace named by the global flags.
func (a *app) open() (*env, error) {
	return service.Open(a.workspaceDir(), a.sources(), service.Options{Logger: a.logger, Owner: a.owner()})
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
