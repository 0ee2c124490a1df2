package experiment

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/coloc-dev/coloc/sim"
	"github.com/coloc-dev/coloc/sim/policies"
)

// Sweep replays every trace on every cluster under the same policies: the
// results pages (docs/results/traces.md, docs/results/heldout.md) are its
// Markdown.
type Sweep struct {
	Traces   []string // Gavel trace files
	Clusters []string // cluster spec files
	Data     string   // dataset directory: the ground truth
	Env      sim.Env
	Config   policies.Config // the model-driven policies' knobs
	Options  sim.Options
	Policies []string
	// Reference is the policy the others are compared with ("coloc").
	Reference string
	// Degrees are the degree modes to run (sim.DegreeTrace,
	// sim.DegreePolicy); none: Options.Degree alone.
	Degrees []string
	// Progress, when set, gets one line per case done.
	Progress io.Writer
	// Peers are the published schedulers the page leads with: each
	// policy's metrics over the strongest of them, case by case (those
	// not among Policies are left out; none: no such table).
	Peers []string
	// MaxJobs keeps the first MaxJobs jobs of each trace, in arrival
	// order (0: all): a loaded cluster at a cost a laptop affords.
	MaxJobs int
	// Parallel is how many cases replay at once (0 or 1: one); each
	// worker reads the ground truth once for itself.
	Parallel int
	// Title heads the page ("": "Simulation results").
	Title string
}

// Case is one trace on one cluster.
type Case struct {
	Trace, Cluster string // base names
	Degree         string // degree mode
	Jobs           int
	Unrunnable     int
	Reasons        map[string]int // unrunnable jobs by reason
	Results        []sim.Summary  // in the order of Sweep.Policies
	// Warnings are the runs' warnings, each once (Warnings).
	Warnings []string
}

// WriteCaseWarnings writes each warning of each case on a line of its own,
// "warning: " and the case first.
func WriteCaseWarnings(w io.Writer, cases []Case) {
	for _, c := range cases {
		for _, msg := range c.Warnings {
			fmt.Fprintf(w, "warning: %s: %s\n", c, msg)
		}
	}
}

// String names the case: trace, cluster and degree mode.
func (c Case) String() string {
	return fmt.Sprintf("%s on %s, degree %s", c.Trace, c.Cluster, c.Degree)
}

// Run replays all cases, clusters outermost. Names and files are checked
// before any replay.
func (s *Sweep) Run() ([]Case, error) {
	x := Experiment{Env: s.Env, Config: s.Config, Options: s.Options, Policies: s.Policies}
	if _, err := x.CheckNames(); err != nil {
		return nil, err
	}
	truth, err := LoadTruth(s.Data)
	if err != nil {
		return nil, err
	}
	var topos []*sim.Topology
	for _, c := range s.Clusters {
		topo, err := LoadTopology(c)
		if err != nil {
			return nil, err
		}
		topos = append(topos, topo)
	}
	var traces []*sim.Trace
	for _, t := range s.Traces {
		tr, err := sim.LoadTrace(t)
		if err != nil {
			return nil, err
		}
		traces = append(traces, tr)
	}
	modes := s.Degrees
	if len(modes) == 0 {
		modes = []string{s.Options.Degree}
	}
	type job struct {
		mode  string
		ci    int
		trace *sim.Trace
	}
	var jobs []job
	for _, mode := range modes {
		for ci := range topos {
			for _, tr := range traces {
				if s.MaxJobs > 0 && len(tr.Jobs) > s.MaxJobs {
					cut := *tr
					cut.Jobs = tr.Jobs[:s.MaxJobs]
					tr = &cut
				}
				jobs = append(jobs, job{mode, ci, tr})
			}
		}
	}
	out := make([]Case, len(jobs))
	errs := make([]error, len(jobs))
	workers := max(1, min(s.Parallel, len(jobs)))
	next := make(chan int)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mine := truth
			if w > 0 {
				// Rates may memoize: a worker of its own reads its own.
				t, err := LoadTruth(s.Data)
				if err != nil {
					for i := range next {
						errs[i] = err
					}
					return
				}
				mine = t
			}
			for i := range next {
				j := jobs[i]
				c, err := s.one(j.trace, topos[j.ci], mine, j.mode)
				if err != nil {
					errs[i] = fmt.Errorf("%s on %s, degree %s: %w", j.trace.Name, s.Clusters[j.ci], j.mode, err)
					continue
				}
				out[i] = c
				if s.Progress != nil {
					mu.Lock()
					fmt.Fprintf(s.Progress, "%s: done\n", c)
					mu.Unlock()
				}
			}
		}()
	}
	for i := range jobs {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (s *Sweep) one(tr *sim.Trace, topo *sim.Topology, truth sim.Rates, mode string) (Case, error) {
	x := Experiment{Jobs: tr.Jobs, Topology: topo, Truth: truth, Env: s.Env, Config: s.Config, Options: s.Options, Policies: s.Policies}
	x.Options.Degree = mode
	res, err := x.Run()
	if err != nil {
		return Case{}, err
	}
	if mode == "" {
		mode = sim.DegreeTrace
	}
	c := Case{Trace: strings.TrimSuffix(filepath.Base(tr.Name), ".trace"), Cluster: topo.Name, Degree: mode, Jobs: len(tr.Jobs), Reasons: map[string]int{}, Warnings: Warnings(res)}
	for _, r := range res {
		c.Results = append(c.Results, r.Summary())
	}
	if len(res) > 0 {
		c.Unrunnable = res[0].Unrunnable
		for _, j := range res[0].Jobs {
			if j.Status == sim.StatusUnrunnable {
				c.Reasons[j.Reason]++
			}
		}
	}
	return c, nil
}

// geomean returns the geometric mean of the ratios of metric f of the
// reference (index ref) to policy i over the cases where both are
// positive, and how many cases that is.
func geomean(cases []Case, ref, i int, f func(sim.Summary) float64) (float64, int) {
	sum, n := 0.0, 0
	for _, c := range cases {
		a, b := f(c.Results[ref]), f(c.Results[i])
		if a > 0 && b > 0 {
			sum += math.Log(a / b)
			n++
		}
	}
	if n == 0 {
		return math.NaN(), 0
	}
	return math.Exp(sum / float64(n)), n
}

var sweepMetrics = []struct {
	name string
	f    func(sim.Summary) float64
}{
	{"avg JCT", func(s sim.Summary) float64 { return s.AvgJCT }},
	{"p95 JCT", func(s sim.Summary) float64 { return s.P95JCT }},
	{"makespan", func(s sim.Summary) float64 { return s.Makespan }},
	{"GPU util", func(s sim.Summary) float64 { return s.GPUUtil }},
	{"effective util", func(s sim.Summary) float64 { return s.EffectiveUtil }},
}

// WriteMarkdown writes the results page: per cluster and over all, the
// geometric mean over cases of the reference's metrics relative to each
// policy, the worst makespan ratio, then every case.
func (s *Sweep) WriteMarkdown(w io.Writer, cases []Case, command string) error {
	ref := -1
	for i, p := range s.Policies {
		if p == s.Reference {
			ref = i
		}
	}
	if ref < 0 {
		return fmt.Errorf("reference policy %q is not among the policies %v", s.Reference, s.Policies)
	}
	// Groups: per degree mode, all clusters then each cluster.
	var groups, clusters []string
	byGroup := map[string][]Case{}
	add := func(g string, c Case) {
		if _, ok := byGroup[g]; !ok {
			groups = append(groups, g)
		}
		byGroup[g] = append(byGroup[g], c)
	}
	for _, c := range cases {
		add("degree "+c.Degree+", all clusters", c)
	}
	for _, c := range cases {
		add("degree "+c.Degree+", "+c.Cluster, c)
		if !slices.Contains(clusters, "degree "+c.Degree+", "+c.Cluster) {
			clusters = append(clusters, "degree "+c.Degree+", "+c.Cluster)
		}
	}
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	title := s.Title
	if title == "" {
		title = "Simulation results"
	}
	p("# %s\n\n", title)
	p("Generated by `%s`; do not edit by hand.\n\n", command)
	p("Every trace replayed on every cluster with the measured Gavel rates (`sim/doc.go` states the model). ")
	p("Policies: %s; %s at its defaults (durations %s, no floor). ", strings.Join(s.Policies, ", "), s.Reference, ParseDurationsName(s.Config.Durations))
	if a := s.Config.OracleNoise; a > 0 {
		p("The oracle decides on the measured normalized throughputs each multiplied by a factor drawn in [%g, %g] per pair (seed %d); jobs run at the measured rates. ", 1-a, 1+a, s.Env.Seed)
	}
	p("Ratios are %s's metric over the other policy's, geometric means over the cases where both completed jobs; ", s.Reference)
	p("below 1 is better for times, above 1 for utilisations.\n\n")
	if len(s.Peers) > 0 {
		if err := s.writePeers(p, groups, byGroup); err != nil {
			return err
		}
	}
	for _, g := range groups {
		cs := byGroup[g]
		p("## %s vs each policy: %s (%d cases)\n\n", s.Reference, g, len(cs))
		p("| policy |")
		for _, m := range sweepMetrics {
			p(" %s |", m.name)
		}
		p(" worst makespan |\n|---|")
		for range sweepMetrics {
			p("---:|")
		}
		p("---:|\n")
		for i, name := range s.Policies {
			if i == ref {
				continue
			}
			p("| %s |", name)
			for _, m := range sweepMetrics {
				g, n := geomean(cs, ref, i, m.f)
				p(" %.3f (%d) |", g, n)
			}
			worst, at := 0.0, ""
			for _, c := range cs {
				a, b := c.Results[ref].Makespan, c.Results[i].Makespan
				if a > 0 && b > 0 && a/b > worst {
					worst, at = a/b, c.Trace+"/"+c.Cluster+"/"+c.Degree
				}
			}
			p(" %.3f (%s) |\n", worst, at)
		}
		p("\n")
	}
	for _, cl := range clusters {
		p("## Every case on %s\n\n", cl)
		p("Times in hours. Unrunnable jobs are left out of every metric.\n\n")
		p("| trace | jobs | unrunnable | policy | avg JCT | p95 JCT | makespan | GPU util | effective util | shared jobs |\n")
		p("|---|---:|---:|---|---:|---:|---:|---:|---:|---:|\n")
		for _, c := range byGroup[cl] {
			for i, r := range c.Results {
				if i == 0 {
					p("| %s | %d | %d |", c.Trace, c.Jobs, c.Unrunnable)
				} else {
					p("| | | |")
				}
				p(" %s | %.2f | %.2f | %.2f | %.3f | %.3f | %d |\n", r.Policy, r.AvgJCT/3600, r.P95JCT/3600, r.Makespan/3600, r.GPUUtil, r.EffectiveUtil, r.Shared)
			}
		}
		p("\n")
		p("Unrunnable jobs by reason:\n\n")
		for _, c := range byGroup[cl] {
			for why, n := range sortedReasons(c.Reasons) {
				p("- %s: %d: %s\n", c.Trace, n, why)
			}
		}
		p("\n")
	}
	return nil
}

// writePeers writes, per group of cases, every policy's average JCT and
// makespan over the strongest peer's in each case (the peer with the
// lowest average JCT, and the lowest makespan), geometric means, and the
// worst case's makespan ratio.
func (s *Sweep) writePeers(p func(string, ...any), groups []string, byGroup map[string][]Case) error {
	var peers []int
	for _, name := range s.Peers {
		if i := slices.Index(s.Policies, name); i >= 0 {
			peers = append(peers, i)
		}
	}
	if len(peers) == 0 {
		return nil // no peer ran: nothing to lead with
	}
	best := func(c Case, f func(sim.Summary) float64) float64 {
		b := math.Inf(1)
		for _, i := range peers {
			if v := f(c.Results[i]); v > 0 {
				b = min(b, v)
			}
		}
		return b
	}
	jct := func(r sim.Summary) float64 { return r.AvgJCT }
	mk := func(r sim.Summary) float64 { return r.Makespan }
	p("## Over the strongest peer\n\n")
	p("The peers: %s. In each case the strongest is the one with the lowest average JCT ", strings.Join(s.Peers, ", "))
	p("(for the makespan column, the lowest makespan); each policy's metric over it, geometric means over the cases ")
	p("where both completed jobs (below 1: better than every peer).\n\n")
	for _, g := range groups {
		cs := byGroup[g]
		p("### %s (%d cases)\n\n", g, len(cs))
		p("| policy | avg JCT / best peer | makespan / best peer | worst makespan / best peer |\n|---|---:|---:|---:|\n")
		for i, name := range s.Policies {
			var lj, lm float64
			var nj, nm int
			worst, at := 0.0, ""
			for _, c := range cs {
				if a, b := jct(c.Results[i]), best(c, jct); a > 0 && !math.IsInf(b, 0) {
					lj += math.Log(a / b)
					nj++
				}
				if a, b := mk(c.Results[i]), best(c, mk); a > 0 && !math.IsInf(b, 0) {
					lm += math.Log(a / b)
					nm++
					if a/b > worst {
						worst, at = a/b, c.Trace+"/"+c.Cluster
					}
				}
			}
			if nj == 0 || nm == 0 {
				p("| %s | - | - | - |\n", name)
				continue
			}
			p("| %s | %.3f (%d) | %.3f (%d) | %.3f (%s) |\n", name, math.Exp(lj/float64(nj)), nj, math.Exp(lm/float64(nm)), nm, worst, at)
		}
		p("\n")
	}
	return nil
}

// ParseDurationsName returns the name of the durations setting d ("" is
// known).
func ParseDurationsName(d string) string {
	x, err := policies.ParseDurations(d)
	if err != nil {
		return d
	}
	return x.String()
}

func sortedReasons(m map[string]int) func(func(string, int) bool) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return func(yield func(string, int) bool) {
		for _, k := range keys {
			if !yield(k, m[k]) {
				return
			}
		}
	}
}
