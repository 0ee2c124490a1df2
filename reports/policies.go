package reports

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/model"
	"github.com/coloc-dev/coloc/reports/plot"
	"github.com/coloc-dev/coloc/sim"
	"github.com/coloc-dev/coloc/sim/experiment"
	"github.com/coloc-dev/coloc/sim/policies"
)

// replay is the outcome of one scenario: a result per policy run.
type replay struct {
	sc      Scenario
	trace   *sim.Trace
	topo    *sim.Topology
	results []*sim.Result
}

// policies replays every scenario under every chosen policy and draws
// the JCT CDF of each scenario and, per cluster, average JCT, GPU
// utilisation and makespan per policy.
func (b *builder) policies() ([]section, error) {
	md, err := b.pairsData()
	if err != nil {
		return nil, err
	}
	if md == nil {
		return nil, fmt.Errorf("simulating traces needs measured rates: give --data with a dataset that has solo and pairs tables")
	}
	if md.ds.Solo == nil {
		return nil, fmt.Errorf("%s: simulating traces needs a solo table beside the pairs", md.dir)
	}
	var ran []string
	needModels := false
	for _, name := range b.cfg.Policies {
		ran = append(ran, strings.TrimSpace(name))
		needModels = needModels || !slices.ContainsFunc(sim.Baselines(), func(p sim.PolicyInfo) bool { return p.Name == ran[len(ran)-1] })
	}
	models, modelsNote := b.cfg.Models, ""
	switch {
	case needModels && models == "":
		// Models are fitted only when a model-driven policy is chosen.
		models = filepath.Join(b.dir, "models")
		if err := b.fitModels(md, models); err != nil {
			return nil, err
		}
		modelsNote = fmt.Sprintf(" Model-driven policies use the models the report fitted on every measured pair of %s (models/ beside this page).", b.show(md.dir))
	case needModels:
		modelsNote = fmt.Sprintf(" Model-driven policies use the models of %s.", b.show(models))
	}
	ref := ran[0] // what relative values are relative to: fifo when it runs
	if slices.Contains(ran, "fifo") {
		ref = "fifo"
	}
	for _, sc := range b.cfg.Scenarios {
		for _, p := range []string{sc.Trace, sc.Cluster} {
			if err := b.input(p); err != nil {
				return nil, err
			}
		}
	}
	replays, err := runPolicies(md.ds, b.cfg.Scenarios, ran, models, b.cfg.Seed)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", md.dir, err)
	}
	for _, rp := range replays {
		b.simWarnings(rp)
		b.logf("simulated %s on %s: %d policies", b.show(rp.sc.Trace), rp.topo.Name, len(rp.results))
	}
	sec := section{
		Title: "Simulated policies",
		Text: fmt.Sprintf("Each trace is replayed on its cluster with the rates measured in %s: a job runs at its solo "+
			"rate on its GPU type and number of GPUs, or at the measured co-located rate while it shares its GPUs; "+
			"pairs without an ok measurement never share. Policies decide with what a scheduler knows (the baselines "+
			"with solo rates only, and none with a job's duration: coloc learns sizes from the jobs completed so far); only the oracle sees the measured co-located rates. JCT is completion minus "+
			"arrival; GPU utilisation is busy GPU time over GPUs x makespan, a GPU being busy while it holds a job, "+
			"so sharing does the same work on fewer busy GPUs. Randomised policies use seed %d.%s",
			b.show(md.dir), b.cfg.Seed, modelsNote),
	}
	for _, rp := range replays {
		f, err := b.jctFigure(rp)
		if err != nil {
			return nil, err
		}
		sec.Figures = append(sec.Figures, f)
	}
	// Per cluster: bars over its traces, and the table.
	var clusters []string
	byCluster := map[string][]*replay{}
	for _, rp := range replays {
		if byCluster[rp.sc.Cluster] == nil {
			clusters = append(clusters, rp.sc.Cluster)
		}
		byCluster[rp.sc.Cluster] = append(byCluster[rp.sc.Cluster], rp)
	}
	for _, c := range clusters {
		figs, err := b.policyBars(byCluster[c], ran, ref)
		if err != nil {
			return nil, err
		}
		sec.Figures = append(sec.Figures, figs...)
		sec.Tables = append(sec.Tables, policyTable(byCluster[c], b.show(c), ref))
	}
	b.summarizePolicies(replays)
	if t := unrunTable(replays); len(t.Rows) > 0 {
		sec.Text += "\n\nJobs that no GPU type of the cluster can run (no measured rate at their number of GPUs, or more " +
			"GPUs than the cluster has of one type) are not simulated and left out of every metric; the last table counts them."
		sec.Tables = append(sec.Tables, t)
	}
	return []section{sec}, nil
}

// unrunTable counts the jobs of each replay that were not simulated, by
// reason (the same for every policy: it depends on the cluster and the
// data only).
func unrunTable(rps []*replay) table {
	t := table{Caption: "Jobs not simulated", Header: []string{"trace", "cluster", "jobs", "reason"}}
	for _, rp := range rps {
		if len(rp.results) == 0 {
			continue
		}
		count := map[string]int{}
		var reasons []string
		for _, j := range rp.results[0].Jobs {
			if j.Status != sim.StatusUnrunnable {
				continue
			}
			if count[j.Reason] == 0 {
				reasons = append(reasons, j.Reason)
			}
			count[j.Reason]++
		}
		sort.Slice(reasons, func(a, b int) bool { return natLess(reasons[a], reasons[b]) })
		for _, r := range reasons {
			t.Rows = append(t.Rows, []string{traceName(rp.sc.Trace), rp.topo.Name, fmt.Sprint(count[r]), r})
		}
	}
	return t
}

// simWarnings records the simulator's warnings of one scenario, each once
// with the policies that raised it: most (jobs no GPU type can run) depend
// on the cluster and the data only, and every policy raises them.
func (b *builder) simWarnings(rp *replay) {
	var texts []string
	by := map[string][]string{}
	for _, r := range rp.results {
		for _, w := range r.Warnings {
			if by[w] == nil {
				texts = append(texts, w)
			}
			by[w] = append(by[w], r.Policy)
		}
	}
	for _, w := range texts {
		who := strings.Join(by[w], ", ")
		if len(by[w]) == len(rp.results) && len(rp.results) > 1 {
			who = "every policy"
		}
		b.warn(fmt.Sprintf("simulator, %s on %s (%s)", traceName(rp.sc.Trace), rp.topo.Name, who), w)
	}
}

// runPolicies replays every scenario under each named policy, each built
// afresh, with the rates measured in ds (solo and pairs tables): the
// policies decide with what sim.Env gives them (the baselines with solo
// rates only), the jobs progress at the measured rates. It is the one
// place the report sets up the simulator, kept apart so that a library
// experiment running policies on traces can take its place. The scenarios
// are independent (each loads its own trace and cluster; the measured
// rates are only read), so they run at once, one per CPU, and the
// replays keep the scenarios' order: the same report for any number of
// CPUs.
func runPolicies(ds *datasets.Dataset, scenarios []Scenario, names []string, models string, seed uint64) ([]*replay, error) {
	truth, err := sim.NewMeasured(ds.Solo, ds.Pairs)
	if err != nil {
		return nil, err
	}
	out := make([]*replay, len(scenarios))
	err = model.ForEach(len(scenarios), 0, func(i int) error {
		sc := scenarios[i]
		tr, err := sim.LoadTrace(sc.Trace)
		if err != nil {
			return err
		}
		topo, err := experiment.LoadTopology(sc.Cluster)
		if err != nil {
			return err
		}
		// The same experiment `coloc simulate` runs, at its defaults, so
		// the report's table and `coloc simulate --json` agree.
		x := experiment.Experiment{Jobs: tr.Jobs, Topology: topo, Truth: truth, Policies: names,
			Options: sim.DefaultOptions, Env: sim.Env{Seed: seed}, Config: policies.Config{Models: models, EstimateMedian: sim.DefaultEstimateMedian, EstimateSigma: sim.DefaultEstimateSigma}}
		res, err := x.Run()
		if err != nil {
			return fmt.Errorf("%s on %s: %w", sc.Trace, sc.Cluster, err)
		}
		out[i] = &replay{sc: sc, trace: tr, topo: topo, results: res}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// fitModels fits every model on all measured pairs into dir
// (OUT/models), for the model-driven policies.
// With an evaluation cache the fitted models are kept there and reused
// (cachedModels).
func (b *builder) fitModels(md *modelData, dir string) error {
	names := model.StandardNames()
	warnings, hit, err := cachedModels(b.cfg.EvalCache, dir, md.data, names, model.DefaultSeed)
	if err != nil {
		return err
	}
	for i, name := range names {
		b.warn("model "+name+" (fitted for the policies)", warnings[i]...)
	}
	if hit {
		b.logf("models reused from the cache %s into models/", b.cfg.EvalCache)
		return nil
	}
	b.logf("fitted %d models on %s into models/", len(names), b.show(md.dir))
	return nil
}

// traceName names a trace by its directory and file name without the
// extension: "msr/ed69ec".
func traceName(path string) string {
	return filepath.Base(filepath.Dir(path)) + "/" + strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
}

func (b *builder) jctFigure(rp *replay) (plot.Figure, error) {
	c := &plot.CDF{
		Title:  fmt.Sprintf("JCT: %s on %s", traceName(rp.sc.Trace), rp.topo.Name),
		XLabel: "job completion time (h)", LogX: true,
	}
	for _, r := range rp.results {
		var hs []float64
		for _, j := range r.Jobs {
			if j.Status == sim.StatusDone {
				hs = append(hs, j.JCT/3600)
			}
		}
		c.Series = append(c.Series, plot.Sample{Name: r.Policy, Values: hs})
		for _, h := range hs {
			c.LogX = c.LogX && h > 0 // a zero JCT cannot sit on a logarithmic axis
		}
	}
	axis := ""
	if c.LogX {
		axis = "; logarithmic time axis"
	}
	cap := fmt.Sprintf("Empirical CDF of job completion time per policy, %s (%d jobs, %s) replayed on %s (%s)%s.",
		b.show(rp.sc.Trace), len(rp.trace.Jobs), rp.trace.Format, rp.topo.Name, b.show(rp.sc.Cluster), axis)
	if same := coinciding(c.Series); same != "" {
		cap += " Identical completion times, so one line hides the other: " + same + "."
	}
	return b.figure(c, figName("jct", traceName(rp.sc.Trace), rp.topo.Name), cap, wideFigure)
}

// coinciding names the series with the same values as an earlier one.
func coinciding(ss []plot.Sample) string {
	var out []string
	for i, s := range ss {
		for _, t := range ss[:i] {
			if slices.Equal(s.Values, t.Values) {
				out = append(out, s.Name+" and "+t.Name)
				break
			}
		}
	}
	return strings.Join(out, "; ")
}

// policyBars draws, over the traces replayed on one cluster, average JCT
// and makespan relative to the reference policy (fifo when it ran, else
// the first) and GPU utilisation, per policy.
func (b *builder) policyBars(rps []*replay, ran []string, ref string) ([]plot.Figure, error) {
	var cats []string
	for _, rp := range rps {
		cats = append(cats, traceName(rp.sc.Trace))
	}
	name := rps[0].topo.Name
	metric := func(get func(r *sim.Result) float64, relative bool) []plot.Sample {
		var out []plot.Sample
		for _, p := range ran {
			s := plot.Sample{Name: p}
			for _, rp := range rps {
				v, base := math.NaN(), math.NaN()
				for _, r := range rp.results {
					if r.Policy == p {
						v = get(r)
					}
					if r.Policy == ref {
						base = get(r)
					}
				}
				if relative {
					v /= base
				}
				s.Values = append(s.Values, v)
			}
			out = append(out, s)
		}
		return out
	}
	slant := len(cats) > 3
	specs := []struct {
		file, title, ylabel, cap string
		bars                     *plot.Bars
	}{
		{"avg-jct", "Average JCT relative to " + ref, "average JCT / " + ref + "'s",
			"Average job completion time of each policy over that of " + ref + ", per trace replayed on " + name + " (below 1: faster); the hours are in the table below.",
			&plot.Bars{Series: metric(func(r *sim.Result) float64 { return r.AvgJCT }, true), Ref: 1}},
		{"gpu-util", "GPU utilisation", "busy GPU time / available GPU time",
			"GPU utilisation of each policy per trace replayed on " + name + ": busy GPU time over GPUs x makespan.",
			&plot.Bars{Series: metric(func(r *sim.Result) float64 { return r.GPUUtil }, false)}},
		{"makespan", "Makespan relative to " + ref, "makespan / " + ref + "'s",
			"Makespan (first arrival to last completion) of each policy over that of " + ref + ", per trace replayed on " + name + "; the hours are in the table below.",
			&plot.Bars{Series: metric(func(r *sim.Result) float64 { return r.Makespan }, true), Ref: 1}},
	}
	var figs []plot.Figure
	for _, s := range specs {
		s.bars.Title = s.title + " on " + name
		s.bars.YLabel = s.ylabel
		s.bars.Categories = cats
		s.bars.SlantLabels = slant
		f, err := b.figure(s.bars, figName(s.file, name), s.cap, wideFigure)
		if err != nil {
			return nil, err
		}
		figs = append(figs, f)
	}
	return figs, nil
}

// policyTable tabulates every replay of one cluster: a row per (trace,
// policy). The change of average JCT and utilisation against ref comes
// right after the policy, so that the comparison is in view at a normal
// window width; the hours, the utilisation per GPU type and the job
// counts follow.
func policyTable(rps []*replay, clusterFile, ref string) table {
	topo := rps[0].topo
	var gpus []string
	for _, t := range topo.Types() {
		gpus = append(gpus, fmt.Sprintf("%d %s", topo.Count(t), t))
	}
	t := table{
		Caption: fmt.Sprintf("Policies on %s (%s: %s GPUs): the change against %s, then hours, GPU utilisation (overall and per type) and jobs", topo.Name, clusterFile, strings.Join(gpus, ", "), ref),
		Header:  []string{"trace", "policy", "avg JCT vs " + ref, "GPU util vs " + ref, "avg JCT (h)", "p95 JCT (h)", "makespan (h)", "GPU util"},
	}
	t.Header = append(t.Header, topo.Types()...)
	t.Header = append(t.Header, "jobs", "unrunnable", "shared jobs")
	for _, rp := range rps {
		var base *sim.Result
		for _, r := range rp.results {
			if r.Policy == ref {
				base = r
			}
		}
		for _, r := range rp.results {
			row := []string{traceName(rp.sc.Trace), r.Policy, change(r.AvgJCT, base.AvgJCT), change(r.GPUUtil, base.GPUUtil),
				f2(r.AvgJCT / 3600), f2(r.P95JCT / 3600), f2(r.Makespan / 3600), f3(r.GPUUtil)}
			for _, u := range r.Util {
				row = append(row, f3(u.Util))
			}
			row = append(row, fmt.Sprint(r.Completed), fmt.Sprint(r.Unrunnable), fmt.Sprint(r.Shared))
			t.Rows = append(t.Rows, row)
		}
	}
	return t
}

// change is the change of v from base in percent, "+4.1%".
func change(v, base float64) string {
	if !(base > 0) || math.IsNaN(v) {
		return ""
	}
	return fmt.Sprintf("%+.1f%%", 100*(v/base-1))
}
