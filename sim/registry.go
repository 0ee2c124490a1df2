package sim

import (
	"fmt"
	"strings"
)

// Env is what a policy may be built from. The baselines use Solo; only
// the policies that read measured pair rates by design (the oracle,
// gavel-las-packed) may use Truth.
type Env struct {
	Seed  uint64
	Solo  Rates // measured solo rates, no co-located rate (SoloOnly)
	Truth Rates // the simulator's ground truth
	// Models is the model directory written by `coloc fit` ("" when none
	// was given); model-driven policies load what they need from it.
	Models string
	// MinNormalized is an optional floor (an SLO guard): coloc and the
	// oracle never co-locate two jobs when either is estimated below it;
	// 0 turns it off (the default).
	MinNormalized float64
	// Durations is what coloc and the oracle know of a job's size:
	// "attained" (unknown: its attained service and the sizes of the jobs
	// completed so far; the default when ""), "estimate" (a user's
	// estimate, EstimateMedian and EstimateSigma) or "known" (the trace's
	// steps: foresight, a reference). coloc-rule and oracle-rule take
	// known or attained.
	Durations string
	// Order is the order in which coloc-rule and oracle-rule let waiting
	// jobs choose: "shortest" (predicted remaining GPU time; the default
	// when "") or "arrival". The decision core ranks jobs by their index
	// and refuses any other order.
	Order string
	// Decide is what coloc decides a pair on: its predicted normalized
	// throughput ("expected", the default when "") or the lower bound of
	// the prediction's interval ("lower", risk-averse), as `coloc policy
	// export --decide` does.
	Decide string
	// EstimateMedian and EstimateSigma describe the users' estimates of
	// their jobs' sizes that policies deciding on estimates see (Estimate):
	// the true size times a log-normal factor of this median and
	// log-space standard deviation.
	EstimateMedian, EstimateSigma float64
	// Settings names the simulator settings of the run: "" or "coloc"
	// (this simulator's defaults) or "gavel" (Gavel's simulator's); a
	// policy with a Gavel form (fifo) takes it under "gavel".
	Settings string
	// OracleNoise perturbs the rates the oracle decides on: each pair's
	// measured normalized throughput times 1 + OracleNoise·u, u uniform in
	// [-1, 1] drawn per pair from Seed (0: off, the true oracle). The
	// jobs still run at the measured rates. It shows how far the oracle's
	// results move with small changes of what it decides on.
	OracleNoise float64
}

// Factory builds a policy.
type Factory func(Env) (Policy, error)

// PolicyInfo names a policy and says how to build it.
type PolicyInfo struct {
	Name string
	Doc  string // one line for --help
	New  Factory
}

// Baselines returns the policies that need no fitted model: fifo,
// backfill, random-pack and greedy-pack.
func Baselines() []PolicyInfo {
	return []PolicyInfo{
		{Name: "fifo", Doc: "one job per GPU, first come first served, best free GPU type by solo rate",
			New: func(e Env) (Policy, error) { return NewFIFO(e.Solo), nil }},
		{Name: "backfill", Doc: "one job per GPU, first come first served, a job that does not fit is skipped",
			New: func(e Env) (Policy, error) { return NewBackfill(e.Solo), nil }},
		{Name: "random-pack", Doc: "each job on a random placement with room (free or one shareable job)",
			New: func(e Env) (Policy, error) { return newRandomPack(e.Seed), nil }},
		{Name: "greedy-pack", Doc: "free GPUs first, else share with a running job, ignoring interference (Gandiva-style)",
			New: func(e Env) (Policy, error) { return NewGreedyPack(e.Solo), nil }},
	}
}

// Lookup finds a policy by name; the error lists the known names.
func Lookup(list []PolicyInfo, name string) (PolicyInfo, error) {
	names := make([]string, len(list))
	for i, p := range list {
		if p.Name == name {
			return p, nil
		}
		names[i] = p.Name
	}
	return PolicyInfo{}, fmt.Errorf("unknown policy %q (want one of %s)", name, strings.Join(names, ", "))
}
