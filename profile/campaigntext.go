package profile

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/coloc-dev/coloc/datasets"
)

// WritePlanJSON writes plan p of suite s as `coloc profile plan --json`
// prints it: the suite, its hash, the hash of the full plan, the shard
// ("" for the whole plan), the estimated seconds, the notes and the runs.
func WritePlanJSON(w io.Writer, s *Suite, full, p *Plan, shard string) error {
	v := struct {
		Suite     string       `json:"suite"`
		SuiteHash string       `json:"suite_hash"`
		PlanHash  string       `json:"plan_hash"`
		Shard     string       `json:"shard,omitempty"`
		EstS      float64      `json:"estimated_s"`
		Notes     []string     `json:"notes,omitempty"`
		Runs      []PlannedRun `json:"runs"`
	}{s.Name, s.Hash(), full.Hash(), shard, p.Total().Seconds(), p.Notes, p.Runs}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// WritePlanText writes plan p of suite s for gpus GPUs as a table of its
// runs with their estimated times, then the count by mode and the total.
// shard ("" for the whole plan) says which shard of full p is.
func WritePlanText(w io.Writer, s *Suite, full, p *Plan, shard string, gpus int) error {
	bw := bufio.NewWriter(w)
	modes := map[string]int{}
	for _, r := range p.Runs {
		modes[r.Mode]++
	}
	fmt.Fprintf(bw, "suite %s (%s): %d workloads, %d GPUs\n", s.Name, s.Hash()[:19], len(s.Workloads), gpus)
	if shard != "" {
		fmt.Fprintf(bw, "shard %s: %d of %d runs\n", shard, len(p.Runs), len(full.Runs))
	}
	for _, n := range p.Notes {
		fmt.Fprintf(bw, "note: %s\n", n)
	}
	fmt.Fprintln(bw)
	tw := tabwriter.NewWriter(bw, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tMODE\tDEGREE\tREPEAT\tESTIMATE")
	for _, r := range p.Runs {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\n", r.ID, r.Mode, r.Degree, r.Repeat, r.Est)
	}
	tw.Flush()
	fmt.Fprintf(bw, "\n%d runs (%d solo, %d pair, %d scale), estimated %s\n", len(p.Runs),
		modes[datasets.ModeSolo], modes[datasets.ModePair], modes[datasets.ModeScale], p.Total())
	return bw.Flush()
}

// PlanProgress is how far the campaign in a directory is with a plan.
type PlanProgress struct {
	// Finished counts the runs of the plan with a record; Failed,
	// Unsettled and Shared those of them that failed, never settled or
	// shared their GPUs with another tenant.
	Finished, Failed, Unsettled, Shared int
	// ToDo counts the runs a campaign would (re)do, estimated to take Est.
	ToDo int
	Est  time.Duration
}

// String says it in a sentence.
func (p PlanProgress) String() string {
	return fmt.Sprintf("%d of these runs finished (%d failed, %d unsettled, %d shared); a run would do %d, estimated %s",
		p.Finished, p.Failed, p.Unsettled, p.Shared, p.ToDo, p.Est)
}

// ReadPlanProgress reads the journal of the campaign in dir and says how far it
// is with p, and what a run with the given settings would do: everything
// with force, else the runs not finished (pending).
func ReadPlanProgress(dir string, p *Plan, force bool, retry Retry) (PlanProgress, error) {
	recs, _, err := ReadCampaignJournal(dir)
	if err != nil {
		return PlanProgress{}, err
	}
	var out PlanProgress
	for _, r := range p.Runs {
		rec := recs[r.ID]
		if rec == nil {
			continue
		}
		out.Finished++
		if rec.Status == datasets.StatusFailed {
			out.Failed++
		}
		if rec.unsettled() {
			out.Unsettled++
		}
		if rec.sharedGPU() {
			out.Shared++
		}
	}
	todo := p
	if !force {
		todo = &Plan{Runs: pending(p, recs, retry)}
	}
	out.ToDo, out.Est = len(todo.Runs), todo.Total()
	return out, nil
}

// WriteFailed lists the failed runs of a campaign, "F of N runs failed:"
// then each run with the cause of its failure (FailureLine), by run ID.
func (s *Summary) WriteFailed(w io.Writer) {
	fmt.Fprintf(w, "%d of %d runs failed:\n", s.Failed, s.Planned)
	ids := make([]string, 0, len(s.Records))
	for id, r := range s.Records {
		if r.Status == datasets.StatusFailed {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		fmt.Fprintf(w, "  %s: %s\n", id, FailureLine(s.Records[id]))
	}
}
