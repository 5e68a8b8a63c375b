package main

import (
	_ "embed"
	"errors"
	"io"
	"log/slog"

	"github.com/spf13/cobra"

	"warren/config"
	"warren/internal/cli"
	"warren/kb"
)

// app carries what every command shares: the global flags, the streams and the environment.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	env            []string

	workspace  string
	ollamaHost string
	jsonOut    bool
	logFile    string
	logLevel   string

	logger   *slog.Logger
	closeLog func()

	reindexed int // passages re-indexed when the workspace was opened (an older warren's index)
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer, env []string) int {
	a := &app{stdin: stdin, env: env, closeLog: func() {}}
	a.stdout, a.stderr = a.screens(stdout, stderr)
	defer a.flushScreens()
	root := a.rootCommand()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	cmd, err := root.ExecuteC()
	a.closeLog()
	if err == nil || errors.As(err, new(cli.ExitError)) { // nil, or reported already
		return cli.ExitCode(err)
	}
	// A failure found before the flags were parsed (an unknown command or flag) is reported
	// as JSON too when the command line asks for it.
	a.jsonOut = a.jsonOut || cli.ArgsWantJSON(args)
	return cli.ExitCode(a.fail(cmd, nil, err))
}

// helpText holds the description and the examples of every command, read by cli.SetHelp.
//
//go:embed help.txt
var helpText string

func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:           "warren",
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			if err := cli.CheckLine(cmd, args, cli.OneOf("log-level", &a.logLevel, "debug", "info", "warn", "error")); err != nil {
				return err
			}
			return a.setupLogging()
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			// The workbench needs a terminal; anywhere else bare `warren` explains itself.
			if !cli.IsTerminal(a.stdin) || a.jsonOut {
				return cmd.Help()
			}
			return a.workbench()
		},
	}
	f := root.PersistentFlags()
	f.StringVarP(&a.workspace, "workspace", "w", "", "workspace folder (default $WARREN_WORKSPACE, else ./"+kb.DefaultDir+")")
	f.StringVar(&a.ollamaHost, "ollama-host", "", "Ollama address for every role without its own host (overrides OLLAMA_HOST)")
	f.BoolVar(&a.jsonOut, "json", false, "print machine-readable JSON")
	f.StringVar(&a.logFile, "log-file", "", "write diagnostics to this file (never to the terminal)")
	f.StringVar(&a.logLevel, "log-level", "info", "diagnostics level: debug, info, warn or error")
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error { return cli.UsageError{Err: err} })
	root.AddCommand(a.versionCommand(), a.initCommand(), a.doctorCommand(), a.configCommand(),
		a.ingestCommand(), a.searchCommand(), a.kbCommand(), a.refsCommand(), a.registryCommand(), a.evalCommand(),
		a.researchCommand(), a.sessionsCommand(), a.jobsCommand(), a.auditCommand(), a.gasCommand(), a.toxCommand(),
		a.serveCommand(), a.usersCommand(), a.accessCommand())
	cli.UsageArgs(root)
	cli.SetHelp(root, helpText) // every command has its entry: TestEveryCommandHasItsHelp
	return root
}

// workspaceDir resolves the workspace: --workspace, then $WARREN_WORKSPACE, then ./.warren.
func (a *app) workspaceDir() string {
	if a.workspace != "" {
		return a.workspace
	}
	if v := a.getenv("WARREN_WORKSPACE"); v != "" {
		return v
	}
	return kb.DefaultDir
}

func (a *app) getenv(name string) string { return cli.Getenv(a.env, name) }

// sources are the configuration layers above the workspace file.
func (a *app) sources() config.Sources {
	flags := map[string]string{}
	if a.ollamaHost != "" {
		flags["ollama.host"] = a.ollamaHost
	}
	return config.Sources{Env: a.env, Flags: flags}
}

func (a *app) setupLogging() (err error) {
	path := a.logFile
	if path == "" {
		path = a.getenv("WARREN_LOG_FILE")
	}
	a.logger, a.closeLog, err = cli.OpenLog(path, a.logLevel)
	return err
}
