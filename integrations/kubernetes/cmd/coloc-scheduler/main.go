// Command coloc-scheduler is kube-scheduler with coloc's plugin (package
// plugin) registered under the name Coloc: enable it in a profile of the
// KubeSchedulerConfiguration given with --config (deploy/scheduler-config.yaml).
// Every flag is kube-scheduler's.
package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/kubernetes/cmd/kube-scheduler/app"

	"github.com/coloc-dev/coloc/integrations/kubernetes/plugin"
)

func main() {
	cmd := app.NewSchedulerCommand(app.WithPlugin(plugin.Name, plugin.New))
	os.Exit(cli.Run(cmd))
}
