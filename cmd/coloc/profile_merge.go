package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/coloc-dev/coloc/profile/fleet"
	"github.com/spf13/cobra"
)

// exitIncomplete is the exit status of `coloc profile merge` while runs of
// the plan are missing (1 is an error).
const exitIncomplete = 2

func newProfileMergeCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "merge DIR",
		Short: "Merge the shards of a fleet campaign into one campaign",
		Long: `Merges the shards of the fleet in DIR (written by 'coloc profile slurm' or
'coloc profile k8s'; the shards in DIR/shards/<i>) into one campaign in DIR:
the journal runs.jsonl, samples/, the tables runs, samples, solo, pairs and
scaling (.arrow), as a one-node 'coloc profile run' writes them, and
manifest.json, which says which node and device type each shard ran on.

A shard of another suite, plan, split or settings is refused (the message
names it) and nothing is written. The shards are only read, so merging while
they run shows the progress; merging again gives the same campaign.

It lists the runs that failed and the runs of the plan that no shard has
finished, with the shards to run again. Exit status: 0 when every run is
finished, 2 while runs are missing (the campaign is still written), 1 on
error.

When DIR holds no fleet but sub-directories that do (one fleet per GPU
type), each is merged, and the union of their runs, solo, pairs and
scaling tables is written into DIR (the samples stay in each fleet).`,
		Example: `  coloc profile merge /shared/camp/tiny
  # wait for a fleet: merge every minute until nothing is missing
  until coloc profile merge /shared/camp/h200; do [ $? -eq 2 ] || exit 1; sleep 60; done
  # one campaign of several GPU types: /shared/camp/h200, /shared/camp/a100
  coloc profile merge /shared/camp`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			if _, err := os.Stat(filepath.Join(dir, fleet.FileName)); errors.Is(err, fs.ErrNotExist) {
				subs, err := fleet.Dirs(dir)
				if err != nil {
					return err
				}
				if len(subs) == 0 {
					return fmt.Errorf("%s holds no %s, nor sub-directories that do: not a fleet campaign (coloc profile slurm or k8s writes one)", dir, fleet.FileName)
				}
				return mergeFleets(e.stdout, e.stderr, dir, subs)
			}
			res, err := fleet.Merge(dir)
			if err != nil {
				return err
			}
			printMerge(e.stdout, e.stderr, dir, res)
			if !res.Complete() {
				return &exitError{code: exitIncomplete, msg: fmt.Sprintf("%s: %d of %d runs still missing", dir, len(res.Missing), res.Planned)}
			}
			return nil
		},
	}
	return cmd
}

// mergeFleets merges each fleet of subs and writes their union into dir.
func mergeFleets(stdout, stderr io.Writer, dir string, subs []string) error {
	missing := 0
	for _, sub := range subs {
		res, err := fleet.Merge(sub)
		if err != nil {
			return err
		}
		printMerge(stdout, stderr, sub, res)
		fmt.Fprintln(stdout)
		missing += len(res.Missing)
	}
	tables, err := fleet.UnionCampaigns(dir, subs)
	if err != nil {
		return err
	}
	var parts []string
	for _, t := range tables {
		parts = append(parts, fmt.Sprintf("%s %d rows", t.Kind, t.Len()))
	}
	fmt.Fprintf(stdout, "joined %d fleet(s) into %s: %s\n", len(subs), dir, strings.Join(parts, ", "))
	if missing > 0 {
		return &exitError{code: exitIncomplete, msg: fmt.Sprintf("%s: %d runs still missing", dir, missing)}
	}
	return nil
}

// printMerge reports a merge: its warnings on stderr, the rest on stdout.
func printMerge(stdout, stderr io.Writer, dir string, res *fleet.MergeResult) {
	for _, w := range res.Warnings {
		fmt.Fprintln(stderr, "warning:", w)
	}
	res.WriteText(stdout, dir)
}
