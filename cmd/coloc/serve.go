package main

import (
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/coloc-dev/coloc/integrations/slurm"
	"github.com/coloc-dev/coloc/serve"
	"github.com/spf13/cobra"
)

func newServeCmd(e *env) *cobra.Command {
	var o serve.Options
	var addr string
	cmd := &cobra.Command{
		Use:         "serve --models M --data DIR[,DIR] [--addr :8080]",
		Short:       "Answer schedulers online over HTTP/JSON: predict a pair, decide for jobs",
		Long:        serve.Usage,
		Example:     "  coloc fit --data datasets/reference/gavel -o out/models\n  coloc serve --models out/models --data datasets/reference/gavel --addr 127.0.0.1:8080",
		Args:        cobra.NoArgs,
		Annotations: map[string]string{stopsItself: "yes"},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Log = e.stderr
			s, err := serve.New(o)
			if err != nil {
				return err
			}
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return err
			}
			hup := make(chan os.Signal, 1)
			signal.Notify(hup, syscall.SIGHUP)
			defer signal.Stop(hup)
			reload := make(chan struct{})
			go func() {
				for range hup {
					reload <- struct{}{}
				}
			}()
			e.say("note:", "serving models "+s.Version()+" of "+o.Models+" on http://"+ln.Addr().String())
			return s.Run(cmd.Context(), ln, reload)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.Models, "models", "", "model directory written by 'coloc fit'")
	fl.StringSliceVar(&o.Data, "data", nil, "dataset directories the models were fit on, comma-separated")
	fl.StringVar(&addr, "addr", "127.0.0.1:8080", "address to listen on (host:port; :0 picks a free port)")
	fl.Int64Var(&o.MaxBody, "max-body", serve.DefaultMaxBody, "largest request body in bytes")
	fl.DurationVar(&o.Timeout, "timeout", serve.DefaultTimeout, "longest a request may take")
	fl.DurationVar(&o.Drain, "drain", serve.DefaultDrain, "longest wait for requests in flight at a stop")
	fl.DurationVar(&o.Watch, "watch", 0, "check the model index for a change this often and reload (0: only on SIGHUP)")
	fl.DurationVar(&o.Slurm.Poll, "slurm-poll", 0, "read the Slurm cluster (sinfo, squeue) this often and answer its submit hook at /v1/slurm/place (0: off)")
	fl.StringSliceVar(&o.Slurm.States, "slurm-states", slurm.DefaultStates, "Slurm node states whose nodes take jobs, comma-separated")
	cmd.MarkFlagRequired("models")
	cmd.MarkFlagRequired("data")
	return cmd
}
