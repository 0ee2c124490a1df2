package main

import (
	"github.com/coloc-dev/coloc/internal/interrupt"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// stopsItself marks a command whose work watches its context and stops
// cleanly by itself (a campaign stops its workloads and keeps its runs);
// every other command's work is left behind when a signal comes.
const stopsItself = "coloc.stops-itself"

// readsOut marks a command whose --out it only reads (profile plan).
const readsOut = "coloc.reads-out"

// guard puts the work of c and of every command under it under
// interrupt.Command: nothing done when stopped before it starts, its
// outputs locked while it runs, stopped at once by a signal with its
// outputs as they were.
func (e *env) guard(c *cobra.Command) {
	for _, sub := range c.Commands() {
		e.guard(sub)
	}
	if work := c.RunE; work != nil {
		c.RunE = func(cmd *cobra.Command, args []string) error {
			ic := interrupt.Command{Name: cmd.CommandPath(), Args: append([]string{"coloc"}, e.args...), Outputs: outputs(cmd),
				StopsItself: cmd.Annotations[stopsItself] != "", Halt: e.halt}
			return ic.Do(cmd.Context(), func() error { return work(cmd, args) })
		}
	}
}

// outputs are the paths a command writes: the values of its flags out,
// output and (a file name, not a switch) markdown; "-" is standard output.
func outputs(cmd *cobra.Command) (out []string) {
	if cmd.Annotations[readsOut] != "" {
		return nil
	}
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		v := f.Value.String()
		if (f.Name == "out" || f.Name == "output" || f.Name == "markdown" && f.Value.Type() == "string") && v != "" && v != "-" {
			out = append(out, v)
		}
	})
	return out
}
