package sim

import (
	"fmt"
	"strings"
)

// Env is what every policy may be built from. The baselines use Solo;
// only the policies that read measured pair rates by design (the oracle,
// gavel-las-packed) may use Truth. A policy's own knobs are not here: the
// model-driven policies (package sim/policies) take theirs in a
// configuration of that package, which their factories close over.
type Env struct {
	Seed  uint64
	Solo  Rates // measured solo rates, no co-located rate (SoloOnly)
	Truth Rates // the simulator's ground truth
	// Settings names the simulator settings of the run: "" or "coloc"
	// (this simulator's defaults) or "gavel" (Gavel's simulator's); a
	// policy with a Gavel form (fifo) takes it under "gavel".
	Settings string
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
