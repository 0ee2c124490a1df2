package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/coloc-dev/coloc/internal/textlist"
	"github.com/coloc-dev/coloc/internal/version"
	"github.com/coloc-dev/coloc/profile/sampler"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// env is what every subcommand gets: its streams and its way to the
// NVIDIA driver. Tests build one with buffers (and a mock driver) and call
// runEnv exactly as main does.
type env struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	// openGPU is how coloc reaches the GPUs: NVML in a cgo build
	// (defaultOpenGPU, nvml.go), none without cgo (nogpu.go); tests give
	// an opener over a mock driver.
	openGPU func() sampler.OpenGPU
	// halt keeps work a signal left behind from writing (haltWrites; nil
	// in tests, whose process goes on).
	halt func()
	args []string // the command line, for the rerun a stop names
}

// say writes each message to stderr on a line of its own after kind
// ("note:" for what the user may act on, "warning:" for what may be
// wrong).
func (e *env) say(kind string, msgs ...string) {
	for _, m := range msgs {
		fmt.Fprintln(e.stderr, kind, m)
	}
}

// commands is the table of top-level subcommands, in the order --help
// lists them (pipeline order).
var commands = []func(*env) *cobra.Command{
	newDevicesCmd,
	newProfileCmd,
	newDatasetsCmd,
	newFeaturesCmd,
	newFitCmd,
	newPredictCmd,
	newSimilarCmd,
	newEvalCmd,
	newPolicyCmd,
	newSimulateCmd,
	newServeCmd,
	newReportCmd,
	newVersionCmd,
}

func newRootCmd(e *env) *cobra.Command {
	cobra.EnableCommandSorting = false // list commands in pipeline order
	root := &cobra.Command{
		Use:   "coloc",
		Short: "Profile GPU training workloads, learn their interference, export placement policy",
		Long: `coloc profiles deep-learning training workloads on GPUs, solo and co-located,
learns how they interfere, and exports what it learned as a policy file that
cluster schedulers read.

Pipeline:
  coloc profile run      measure a workload suite solo, in pairs and at parallel degrees
  coloc datasets import  or bring public measurements (Gavel, Pollux, CSV)
  coloc features build   per-workload feature vectors
  coloc fit / eval       interference models (IAPP, IASP), similarity, baselines
  coloc policy export    placement decisions and tables for schedulers
  coloc serve            answer schedulers online (HTTP/JSON)
  coloc simulate         replay a job trace under several policies
  coloc report           figures and an HTML report

Every file coloc writes is versioned and validated when read back.

Shell completion of commands, flags and flag values (policies, models,
protocols, formats, devices; job names of 'coloc predict'):
  source <(coloc completion bash)     # or zsh, fish, powershell`,
		Version:       version.String(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SuggestionsMinimumDistance = 2
	root.SetFlagErrorFunc(suggestFlag)
	root.SetIn(e.stdin)
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	for _, mk := range commands {
		root.AddCommand(mk(e))
	}
	e.guard(root)
	return root
}

// run executes the coloc command line args and returns its error; only main
// exits.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return runEnv(ctx, &env{stdin: stdin, stdout: stdout, stderr: stderr, openGPU: defaultOpenGPU}, args)
}

// runEnv is run with every dependency of the commands given.
func runEnv(ctx context.Context, e *env, args []string) error {
	e.args = args
	root := newRootCmd(e)
	root.SetArgs(args)
	return root.ExecuteContext(ctx)
}

// suggestFlag adds the nearest flags of the command to an unknown-flag
// error: "unknown flag: --polcy (did you mean --policy?)".
func suggestFlag(cmd *cobra.Command, err error) error {
	msg := err.Error()
	const prefix = "unknown flag: --"
	if !strings.HasPrefix(msg, prefix) {
		return err
	}
	typed, _, _ := strings.Cut(strings.TrimPrefix(msg, prefix), "=")
	var names []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	})
	near := textlist.Nearest(typed, names)
	if len(near) == 0 {
		return fmt.Errorf("%w (see %s --help)", err, cmd.CommandPath())
	}
	return fmt.Errorf("%w (did you mean --%s?)", err, strings.Join(near, " or --"))
}

func newVersionCmd(e *env) *cobra.Command {
	return &cobra.Command{Use: "version", Short: "Print coloc's version and the Go toolchain that built it", Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { _, err := fmt.Fprintln(e.stdout, version.Describe()); return err }}
}
