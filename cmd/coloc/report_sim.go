package main

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/coloc-dev/coloc/model"
	"github.com/coloc-dev/coloc/place/cluster"
	"github.com/coloc-dev/coloc/reports"
	"github.com/coloc-dev/coloc/sim"
)

// replay is the outcome of one scenario: a result per policy run.
type replay struct {
	sc      scenario
	trace   *sim.Trace
	topo    *sim.Topology
	results []*sim.Result
}

// policies replays every scenario under every available policy and draws
// the JCT CDF of each scenario and, per cluster, average JCT, GPU
// utilisation and makespan per policy.
func (b *reportBuilder) policies() ([]reports.Section, error) {
	md, err := b.pairsData()
	if err != nil {
		return nil, err
	}
	if md == nil {
		return nil, fmt.Errorf("simulating traces needs measured rates: give --data with a dataset that has solo and pairs tables")
	}
	ds := md.ds
	if ds.Solo == nil {
		return nil, fmt.Errorf("%s: simulating traces needs a solo table beside the pairs", md.dir)
	}
	truth, err := sim.NewMeasured(ds.Solo, ds.Pairs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", md.dir, err)
	}
	known := simPolicies()
	baseline := map[string]bool{}
	for _, p := range sim.Baselines() {
		baseline[p.Name] = true
	}
	env := sim.Env{Seed: b.cfg.Seed, Solo: sim.SoloOnly(truth), Truth: truth, Models: b.cfg.Models}
	if env.Models == "" {
		env.Models = filepath.Join(b.dir, "models") // fitted below when a policy needs it
	}
	// Models are fitted only when a model-driven policy is chosen.
	var chosen []sim.PolicyInfo
	needModels := false
	for _, name := range b.cfg.Policies {
		p, err := sim.Lookup(known, strings.TrimSpace(name))
		if err != nil {
			return nil, err
		}
		needModels = needModels || !baseline[p.Name]
		chosen = append(chosen, p)
	}
	if len(chosen) == 0 {
		return nil, fmt.Errorf("no policy to simulate")
	}
	modelsNote := ""
	switch {
	case needModels && b.cfg.Models == "":
		if err := b.fitModels(md, env.Models); err != nil {
			return nil, err
		}
		modelsNote = fmt.Sprintf(" Model-driven policies use the models the report fitted on every measured pair of %s (models/ beside this page).", b.show(md.dir))
	case needModels:
		modelsNote = fmt.Sprintf(" Model-driven policies use the models of %s.", b.show(env.Models))
	}
	var ran []string
	ref := chosen[0].Name // what relative values are relative to: fifo when it runs
	for _, p := range chosen {
		ran = append(ran, p.Name)
		if p.Name == "fifo" {
			ref = p.Name
		}
	}
	var replays []*replay
	for _, sc := range b.cfg.Scenarios {
		rp, err := b.replay(sc, truth, chosen, env)
		if err != nil {
			return nil, err
		}
		replays = append(replays, rp)
	}
	sec := reports.Section{
		Title: "Simulated policies",
		Text: fmt.Sprintf("Each trace is replayed on its cluster with the rates measured in %s: a job runs at its solo "+
			"rate on its GPU type and number of GPUs, or at the measured co-located rate while it shares its GPUs; "+
			"pairs without an ok measurement never share. Policies decide with what a scheduler knows (the baselines "+
			"with solo rates only); only the oracle sees the measured co-located rates. JCT is completion minus "+
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
	if t := unrunTable(replays); len(t.Rows) > 0 {
		sec.Text += "\n\nJobs that no GPU type of the cluster can run (no measured rate at their number of GPUs, or more " +
			"GPUs than the cluster has of one type) are not simulated and left out of every metric; the last table counts them."
		sec.Tables = append(sec.Tables, t)
	}
	return []reports.Section{sec}, nil
}

// unrunTable counts the jobs of each replay that were not simulated, by
// reason (the same for every policy: it depends on the cluster and the
// data only).
func unrunTable(rps []*replay) reports.Table {
	t := reports.Table{Caption: "Jobs not simulated", Header: []string{"trace", "cluster", "jobs", "reason"}}
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

// replay runs one scenario under each policy, each built afresh.
func (b *reportBuilder) replay(sc scenario, truth sim.Rates, chosen []sim.PolicyInfo, env sim.Env) (*replay, error) {
	tr, err := sim.LoadTrace(sc.Trace)
	if err != nil {
		return nil, err
	}
	spec, err := cluster.Load(sc.Cluster)
	if err != nil {
		return nil, err
	}
	topo, err := sim.NewTopology(spec)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", sc.Cluster, err)
	}
	for _, p := range []string{sc.Trace, sc.Cluster} {
		if err := b.input(p); err != nil {
			return nil, err
		}
	}
	rp := &replay{sc: sc, trace: tr, topo: topo}
	for _, info := range chosen {
		pol, err := info.New(env)
		if err != nil {
			return nil, fmt.Errorf("policy %s: %w", info.Name, err)
		}
		res, err := sim.Run(topo, tr.Jobs, truth, pol, sim.DefaultOptions)
		if err != nil {
			return nil, fmt.Errorf("%s on %s, policy %s: %w", sc.Trace, sc.Cluster, info.Name, err)
		}
		rp.results = append(rp.results, res)
	}
	b.logf("simulated %s on %s: %d policies", b.show(sc.Trace), topo.Name, len(rp.results))
	return rp, nil
}

// fitModels fits every model on all measured pairs into dir
// (OUT/models), for the model-driven policies.
func (b *reportBuilder) fitModels(md *modelData, dir string) error {
	fitted, err := model.FitAll(md.data, model.StandardNames(), model.DefaultSeed)
	if err != nil {
		return err
	}
	if _, err := model.WriteDir(dir, md.data, fitted); err != nil {
		return err
	}
	b.logf("fitted %d models on %s into models/", len(fitted), b.show(md.dir))
	return nil
}

// traceName names a trace by its directory and file name without the
// extension: "msr/ed69ec".
func traceName(path string) string {
	return filepath.Base(filepath.Dir(path)) + "/" + strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
}

func (b *reportBuilder) jctFigure(rp *replay) (reports.Figure, error) {
	c := &reports.CDF{
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
		c.Series = append(c.Series, reports.Sample{Name: r.Policy, Values: hs})
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
func coinciding(ss []reports.Sample) string {
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
func (b *reportBuilder) policyBars(rps []*replay, ran []string, ref string) ([]reports.Figure, error) {
	var cats []string
	for _, rp := range rps {
		cats = append(cats, traceName(rp.sc.Trace))
	}
	name := rps[0].topo.Name
	metric := func(get func(r *sim.Result) float64, relative bool) []reports.Sample {
		var out []reports.Sample
		for _, p := range ran {
			s := reports.Sample{Name: p}
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
		bars                     *reports.Bars
	}{
		{"avg-jct", "Average JCT relative to " + ref, "average JCT / " + ref + "'s",
			"Average job completion time of each policy over that of " + ref + ", per trace replayed on " + name + " (below 1: faster); the hours are in the table below.",
			&reports.Bars{Series: metric(func(r *sim.Result) float64 { return r.AvgJCT }, true), Ref: 1}},
		{"gpu-util", "GPU utilisation", "busy GPU time / available GPU time",
			"GPU utilisation of each policy per trace replayed on " + name + ": busy GPU time over GPUs x makespan.",
			&reports.Bars{Series: metric(func(r *sim.Result) float64 { return r.GPUUtil }, false)}},
		{"makespan", "Makespan relative to " + ref, "makespan / " + ref + "'s",
			"Makespan (first arrival to last completion) of each policy over that of " + ref + ", per trace replayed on " + name + "; the hours are in the table below.",
			&reports.Bars{Series: metric(func(r *sim.Result) float64 { return r.Makespan }, true), Ref: 1}},
	}
	var figs []reports.Figure
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
// policy), with average JCT and utilisation relative to those of ref.
func policyTable(rps []*replay, clusterFile, ref string) reports.Table {
	topo := rps[0].topo
	var gpus []string
	for _, t := range topo.Types() {
		gpus = append(gpus, fmt.Sprintf("%d %s", topo.Count(t), t))
	}
	t := reports.Table{
		Caption: fmt.Sprintf("Policies on %s (%s: %s GPUs); GPU util per type, then the change against %s", topo.Name, clusterFile, strings.Join(gpus, ", "), ref),
		Header:  []string{"trace", "policy", "jobs", "unrunnable", "avg JCT (h)", "p95 JCT (h)", "makespan (h)", "GPU util"},
	}
	t.Header = append(t.Header, topo.Types()...)
	t.Header = append(t.Header, "shared jobs", "avg JCT vs "+ref, "GPU util vs "+ref)
	for _, rp := range rps {
		var base *sim.Result
		for _, r := range rp.results {
			if r.Policy == ref {
				base = r
			}
		}
		for _, r := range rp.results {
			row := []string{traceName(rp.sc.Trace), r.Policy, fmt.Sprint(r.Completed), fmt.Sprint(r.Unrunnable),
				f2(r.AvgJCT / 3600), f2(r.P95JCT / 3600), f2(r.Makespan / 3600), f3(r.GPUUtil)}
			for _, u := range r.Util {
				row = append(row, f3(u.Util))
			}
			row = append(row, fmt.Sprint(r.Shared), change(r.AvgJCT, base.AvgJCT), change(r.GPUUtil, base.GPUUtil))
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
