package main

import (
	"fmt"
	"strings"

	"github.com/coloc-dev/coloc/internal/textlist"
	"github.com/coloc-dev/coloc/model"
	"github.com/spf13/cobra"
)

// Shell completion of flag values (`coloc completion bash|zsh|fish`) and
// suggestions for mistyped names.

// completeValues completes the comma-separated list flag of cmd with
// names: after "fifo,gr" it offers "fifo,greedy-pack".
func completeValues(cmd *cobra.Command, flag string, names []string) {
	cmd.RegisterFlagCompletionFunc(flag, func(_ *cobra.Command, _ []string, typed string) ([]string, cobra.ShellCompDirective) {
		return completeList(names, typed)
	})
}

// completeList completes the last name of a comma-separated list, leaving
// out names already in it.
func completeList(names []string, typed string) ([]string, cobra.ShellCompDirective) {
	done, last := "", typed
	if i := strings.LastIndexByte(typed, ','); i >= 0 {
		done, last = typed[:i+1], typed[i+1:]
	}
	var out []string
	for _, n := range names {
		if strings.HasPrefix(n, last) && !strings.Contains(","+done, ","+n+",") {
			out = append(out, done+n)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
}

// completeDirs completes each flag with directory names.
func completeDirs(cmd *cobra.Command, flags ...string) {
	for _, f := range flags {
		cmd.MarkFlagDirname(f)
	}
}

// completeFiles completes a flag with the files of the given extensions.
func completeFiles(cmd *cobra.Command, flag string, exts ...string) {
	cmd.MarkFlagFilename(flag, exts...)
}

// unknownJob adds to the error of an unknown job the nearest known names,
// or every known name when there are few.
func unknownJob(err error, job string, known []string) error {
	if near := textlist.Nearest(job, known); len(near) > 0 {
		return fmt.Errorf("%w; did you mean %s?", err, textlist.Quote(near, " or "))
	}
	if len(known) <= 30 {
		return fmt.Errorf("%w; known jobs: %s", err, textlist.Quote(known, ", "))
	}
	return err
}

// modelSpace is the job and slot space of the first model of the
// directory named by cmd's --models flag, for completion; nil when it
// cannot be read.
func modelSpace(cmd *cobra.Command) *model.Space {
	dir, err := cmd.Flags().GetString("models")
	if err != nil || dir == "" {
		return nil
	}
	ms, err := model.LoadDir(dir, nil)
	if err != nil || len(ms) == 0 {
		return nil
	}
	return ms[0].Frame.Space
}

// completeJobs completes the job arguments of predict from --models.
func completeJobs(cmd *cobra.Command, _ []string, typed string) ([]string, cobra.ShellCompDirective) {
	sp := modelSpace(cmd)
	if sp == nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []string
	for _, j := range sp.Jobs {
		if strings.HasPrefix(j, typed) {
			out = append(out, j)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completeSlots completes --device with the slots the models of --models
// know ("v100", "v100x2").
func completeSlots(cmd *cobra.Command, _ []string, typed string) ([]string, cobra.ShellCompDirective) {
	sp := modelSpace(cmd)
	if sp == nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []string
	for _, s := range sp.Slots {
		if strings.HasPrefix(s.String(), typed) {
			out = append(out, s.String())
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completeDataDevices completes a comma-separated --device list with the
// device types of the pairs of the dataset named by cmd's --data flag.
func completeDataDevices(cmd *cobra.Command, _ []string, typed string) ([]string, cobra.ShellCompDirective) {
	dir, err := cmd.Flags().GetString("data")
	if err != nil || dir == "" {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	d, err := model.LoadData(dir)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var names []string
	for _, s := range d.Space.Slots {
		names = append(names, s.String())
	}
	return completeList(names, typed)
}
