package reports

import (
	"cmp"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/coloc-dev/coloc/model"
	"github.com/coloc-dev/coloc/reports/plot"
	"github.com/coloc-dev/coloc/sim"
	"github.com/coloc-dev/coloc/sim/experiment"
)

// replay is one file of `coloc simulate -o`: a trace replayed on a
// cluster under every policy.
type replay struct {
	*experiment.Replay
}

// policies reads every replay file and draws the JCT CDF of each and, per
// cluster, average JCT, GPU utilisation and makespan per policy.
func (b *builder) policies() ([]section, error) {
	var replays []*replay
	var ran, datas, models []string
	var seeds []uint64
	for i, f := range b.cfg.SimFiles {
		r, err := experiment.ReadReplay(f)
		if err != nil {
			return nil, err
		}
		if err := b.input(f); err != nil {
			return nil, err
		}
		var names []string
		for _, res := range r.Results {
			names = append(names, res.Policy)
		}
		if i == 0 {
			ran = names
		} else if !slices.Equal(names, ran) {
			return nil, fmt.Errorf("%s: policies %s, but %s has %s: replay every trace under the same policies",
				f, strings.Join(names, ", "), b.cfg.SimFiles[0], strings.Join(ran, ", "))
		}
		if !slices.Contains(datas, r.Data) {
			datas = append(datas, r.Data)
		}
		if r.Models != "" && !slices.Contains(models, r.Models) {
			models = append(models, r.Models)
		}
		if !slices.Contains(seeds, r.Seed) {
			seeds = append(seeds, r.Seed)
		}
		rp := &replay{Replay: r}
		replays = append(replays, rp)
		b.simWarnings(rp)
	}
	ref := ran[0] // what relative values are relative to: fifo when it runs
	if slices.Contains(ran, "fifo") {
		ref = "fifo"
	}
	slices.Sort(seeds)
	var seedList []string
	for _, sd := range seeds {
		seedList = append(seedList, fmt.Sprint(sd))
	}
	for _, m := range models {
		b.modelWarnings(m)
	}
	modelsNote := ""
	if len(models) > 0 {
		modelsNote = fmt.Sprintf(" Model-driven policies use the models of %s.", b.showAll(models))
	}
	sec := section{
		Title: "Simulated policies",
		Text: fmt.Sprintf("Each trace is replayed on its cluster (coloc simulate -o) with the rates measured in %s: a job runs at its solo "+
			"rate on its GPU type and number of GPUs, or at the measured co-located rate while it shares its GPUs; "+
			"pairs without an ok measurement never share. Policies decide with what a scheduler knows (the baselines "+
			"with solo rates only, %s); only the oracle sees the measured co-located rates. JCT is completion minus "+
			"arrival; GPU utilisation is busy GPU time over GPUs x makespan, a GPU being busy while it holds a job, "+
			"so sharing does the same work on fewer busy GPUs. %s Randomised policies use seed %s.%s",
			b.showAll(datas), durationsNote(replays), settingsNote(replays), strings.Join(seedList, ", "), modelsNote),
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
		if byCluster[rp.Cluster.Path] == nil {
			clusters = append(clusters, rp.Cluster.Path)
		}
		byCluster[rp.Cluster.Path] = append(byCluster[rp.Cluster.Path], rp)
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
		if len(rp.Results) == 0 {
			continue
		}
		count := map[string]int{}
		var reasons []string
		for _, j := range rp.Results[0].Jobs {
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
			t.Rows = append(t.Rows, []string{traceName(rp.Trace.Path), rp.Cluster.Name, fmt.Sprint(count[r]), r})
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
	for _, r := range rp.Results {
		for _, w := range r.Warnings {
			if by[w] == nil {
				texts = append(texts, w)
			}
			by[w] = append(by[w], r.Policy)
		}
	}
	for _, w := range texts {
		who := strings.Join(by[w], ", ")
		if len(by[w]) == len(rp.Results) && len(rp.Results) > 1 {
			who = "every policy"
		}
		b.warn(fmt.Sprintf("simulator, %s on %s (%s)", traceName(rp.Trace.Path), rp.Cluster.Name, who), w)
	}
}

// traceName names a trace by its directory and file name without the
// extension: "msr/ed69ec".
func traceName(path string) string {
	return filepath.Base(filepath.Dir(path)) + "/" + strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
}

func (b *builder) jctFigure(rp *replay) (plot.Figure, error) {
	c := &plot.CDF{
		Title:  fmt.Sprintf("JCT: %s on %s", traceName(rp.Trace.Path), rp.Cluster.Name),
		XLabel: "job completion time (h)", LogX: true,
	}
	for _, r := range rp.Results {
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
		b.show(rp.Trace.Path), rp.Trace.Jobs, rp.Trace.Format, rp.Cluster.Name, b.show(rp.Cluster.Path), axis)
	if same := coinciding(c.Series); same != "" {
		cap += " Identical completion times, so one line hides the other: " + same + "."
	}
	return b.figure(c, figName("jct", traceName(rp.Trace.Path), rp.Cluster.Name), cap, wideFigure)
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
		cats = append(cats, traceName(rp.Trace.Path))
	}
	name := rps[0].Cluster.Name
	metric := func(get func(r *sim.Result) float64, relative bool) []plot.Sample {
		var out []plot.Sample
		for _, p := range ran {
			s := plot.Sample{Name: p}
			for _, rp := range rps {
				v, base := math.NaN(), math.NaN()
				for _, r := range rp.Results {
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
	cl := rps[0].Cluster
	var gpus, types []string
	for _, g := range cl.GPUs {
		gpus = append(gpus, fmt.Sprintf("%d %s", g.Count, g.Type))
		types = append(types, g.Type)
	}
	t := table{
		Caption: fmt.Sprintf("Policies on %s (%s: %s GPUs): the change against %s, then hours, GPU utilisation (overall and per type) and jobs", cl.Name, clusterFile, strings.Join(gpus, ", "), ref),
		Header:  []string{"trace", "policy", "avg JCT vs " + ref, "GPU util vs " + ref, "avg JCT (h)", "p95 JCT (h)", "makespan (h)", "GPU util"},
	}
	t.Header = append(t.Header, types...)
	t.Header = append(t.Header, "jobs", "unrunnable", "shared jobs")
	for _, rp := range rps {
		var base *sim.Result
		for _, r := range rp.Results {
			if r.Policy == ref {
				base = r
			}
		}
		for _, r := range rp.Results {
			row := []string{traceName(rp.Trace.Path), r.Policy, change(r.AvgJCT, base.AvgJCT), change(r.GPUUtil, base.GPUUtil),
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

// modelWarnings lists the warnings the index of a replay's model
// directory records, when it can be read. A relative path is looked for
// first where the paper keeps its stages (the directory being built, then
// the report directory), then as given from the working directory, so a
// paper's stages/models is never taken from wherever the command runs.
func (b *builder) modelWarnings(dir string) {
	places := []string{dir}
	if !filepath.IsAbs(dir) {
		places = []string{filepath.Join(b.dir, dir), filepath.Join(b.cfg.Out, dir), dir}
	}
	for _, d := range places {
		ix, err := model.ReadIndex(d)
		if err != nil {
			continue
		}
		for _, e := range ix.Models {
			b.warn("model "+e.Name+" (used by the policies)", e.Notes...)
		}
		return
	}
}

// durationsNote says what the replays' model-driven policies knew of a
// job's duration.
func durationsNote(rps []*replay) string {
	var ds []string
	for _, rp := range rps {
		d := cmp.Or(rp.Settings.Durations, "attained")
		if !slices.Contains(ds, d) {
			ds = append(ds, d)
		}
	}
	if len(ds) == 1 && ds[0] == "attained" {
		return "and none with a job's duration: coloc learns sizes from the jobs completed so far"
	}
	return "coloc and the oracle with durations " + strings.Join(ds, ", ") + " (coloc simulate --durations)"
}

// settingsNote states the simulator settings of the replays, or that
// they differ.
func settingsNote(rps []*replay) string {
	s := rps[0].Settings
	for _, rp := range rps[1:] {
		o := rp.Settings
		if o.RoundS != s.RoundS || o.RestartPenaltyS != s.RestartPenaltyS || o.MaxPerGPU != s.MaxPerGPU || o.Degree != s.Degree || o.Schedule != s.Schedule {
			return "The replays ran with different simulator settings (each file records its own)."
		}
	}
	when := "at every arrival and completion"
	if s.RoundS > 0 {
		when += fmt.Sprintf(" and every %g s", s.RoundS)
	}
	if s.Schedule != "" {
		when = fmt.Sprintf("in rounds of %g s (%s)", s.RoundS, s.Schedule)
	}
	return fmt.Sprintf("Policies are asked %s; a job moved or resumed makes no progress for %g s (restart penalty); at most %d job(s) share a GPU; "+
		"the number of GPUs of a job comes from the %s.", when, s.RestartPenaltyS, s.MaxPerGPU, cmp.Or(s.Degree, "trace"))
}

// showAll shows paths, joined.
func (b *builder) showAll(paths []string) string {
	var out []string
	for _, p := range paths {
		out = append(out, b.show(p))
	}
	return strings.Join(out, ", ")
}

// change is the change of v from base in percent, "+4.1%".
func change(v, base float64) string {
	if !(base > 0) || math.IsNaN(v) {
		return ""
	}
	return fmt.Sprintf("%+.1f%%", 100*(v/base-1))
}
