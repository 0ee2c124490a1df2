package main

import (
	"fmt"

	"github.com/coloc-dev/coloc/internal/inputfile"
	"github.com/coloc-dev/coloc/policy"
	"github.com/coloc-dev/coloc/policy/schema"
	"github.com/spf13/cobra"
)

func newPolicyValidateCmd(e *env) *cobra.Command {
	var printSchema bool
	cmd := &cobra.Command{
		Use:   "validate FILE...",
		Short: "Check policy files against their JSON Schema and the reader's content checks",
		Long: `Checks each policy file (written by 'coloc policy export') in two steps.

First its format and version: a file that is not a coloc policy, or one of a
version this build does not read, is refused by name. Then the JSON Schema
(draft 2020-12, carried in the binary: --schema prints it): members, types,
required members, enums, ranges. Then what a schema cannot state, as the Go
reader for schedulers (package policy) checks on every load: unique job ids
and keys, placements on nodes that exist with GPU indices in range and
distinct, degree = GPUs placed, co-located jobs that exist, share a GPU and
list each other back, at most max_per_gpu jobs on a GPU, scaling
efficiencies and chosen degrees that follow from the throughputs, similarity
arrays aligned with their descriptors.

Prints "FILE: ok (...)" for a valid file and one line per problem (file,
JSON path, message) otherwise, in file order, each fault once; the content
checks run on a file whose members and types are right, so a file with a
typo in a member name shows its content problems once the typo is fixed.
The exit status is 1 when any file is invalid.`,
		Example: `  coloc policy validate policy.json
  coloc policy validate --schema > policy.schema.json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if printSchema {
				return cobra.NoArgs(cmd, args)
			}
			return cobra.MinimumNArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if printSchema {
				_, err := e.stdout.Write(policy.Schema())
				return err
			}
			bad := 0
			for _, path := range args {
				problems, summary := validatePolicy(path)
				if len(problems) == 0 {
					fmt.Fprintf(e.stdout, "%s: ok (%s)\n", path, summary)
					continue
				}
				bad++
				for _, p := range problems {
					fmt.Fprintln(e.stdout, p)
				}
			}
			if bad > 0 {
				return &exitError{code: 1, msg: fmt.Sprintf("%d of %d policy files invalid", bad, len(args))}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&printSchema, "schema", false, "print the JSON Schema of policy files and exit")
	return cmd
}

// validatePolicy checks one file and returns its problems, or a summary
// of a valid file.
func validatePolicy(path string) ([]policy.Problem, string) {
	data, err := inputfile.ReadAll(path, "a policy file", policy.MaxFileBytes)
	if err != nil {
		return []policy.Problem{{Msg: err.Error()}}, ""
	}
	p, problems := schema.Check(data, path)
	if len(problems) > 0 {
		return problems, ""
	}
	return nil, p.Summary()
}
