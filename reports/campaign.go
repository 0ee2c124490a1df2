package reports

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/reports/plot"
)

// campaignRuns picks the runs whose counters the report draws: the first
// ok pair run of the runs table (one side of it) and the first ok solo run
// of the same workload on the same device type and degree, or else the
// first ok solo run. Either may be missing, not both.
func campaignRuns(rt *datasets.RunsTable) (solo, pair *datasets.Run, err error) {
	for i := range rt.Rows {
		r := &rt.Rows[i]
		if r.Mode == datasets.ModePair && r.Status == datasets.StatusOK {
			pair = r
			break
		}
	}
	for i := range rt.Rows {
		r := &rt.Rows[i]
		if r.Mode != datasets.ModeSolo || r.Status != datasets.StatusOK {
			continue
		}
		if pair == nil || r.Workload == pair.Workload && r.DeviceType == pair.DeviceType && r.Degree == pair.Degree {
			solo = r
			break
		}
		if solo == nil {
			solo = r
		}
	}
	if solo == nil && pair == nil {
		return nil, nil, fmt.Errorf("no solo or pair run of status ok")
	}
	return solo, pair, nil
}

// sampleRun is the run_id the samples of a run carry: a pair run's rows of
// the runs table are "<run>/<side>", its samples "<run>".
func sampleRun(r *datasets.Run) string {
	if r.Mode == datasets.ModePair {
		if i := strings.LastIndexByte(r.RunID, '/'); i > 0 {
			return r.RunID[:i]
		}
	}
	return r.RunID
}

// firstDevice is the first device index a run used.
func firstDevice(r *datasets.Run) int64 {
	d, err := strconv.ParseInt(strings.TrimSpace(strings.Split(r.DeviceIDs, ",")[0]), 10, 64)
	if err != nil {
		return 0
	}
	return d
}

// trace is one line of a counter figure: the samples of one run on its
// first device, device-wide or of one workload's processes.
type trace struct {
	run      *datasets.Run
	role     string // "solo" or "pair"
	workload string // "" for device-wide rows
	t        []float64
	v        map[string][]float64 // counter -> values aligned with t
	both     bool                 // the processes of both sides of a pair with itself
}

func (tr *trace) name() string {
	switch {
	case tr.workload == "" && tr.role == "pair":
		return fmt.Sprintf("pair %s + %s (device)", tr.run.Workload, tr.run.Partner)
	case tr.workload == "":
		return fmt.Sprintf("solo %s (device)", tr.run.Workload)
	}
	if tr.both {
		return fmt.Sprintf("%s: %s (processes of both sides)", tr.role, tr.workload)
	}
	return fmt.Sprintf("%s: %s (processes)", tr.role, tr.workload)
}

// dropExited leaves out, per counter, the zeros a per-process trace ends
// with: once its processes have exited, the sampler reads 0 for them
// (memory, utilisation), which is no measurement of the run; drawn, it
// would show memory falling to 0 at the end of every run.
func (tr *trace) dropExited() {
	for _, vs := range tr.v {
		for i := len(vs) - 1; i >= 0 && (vs[i] == 0 || math.IsNaN(vs[i])); i-- {
			vs[i] = math.NaN()
		}
	}
}

func (b *builder) campaign() ([]section, error) {
	dir := b.cfg.Campaign
	ds, err := datasets.Open(dir)
	if err != nil {
		return nil, err
	}
	if ds.Runs == nil || ds.SamplesPath == "" {
		return nil, fmt.Errorf("campaign %s: needs runs.arrow and samples.arrow", dir)
	}
	solo, pair, err := campaignRuns(ds.Runs)
	if err != nil {
		return nil, fmt.Errorf("campaign %s: %w", dir, err)
	}
	for _, f := range []string{"runs.arrow", "samples.arrow"} {
		if err := b.input(dir + "/" + f); err != nil {
			return nil, err
		}
	}
	var runs []*datasets.Run
	roles := map[string]string{}
	if solo != nil {
		runs = append(runs, solo)
		roles[sampleRun(solo)] = "solo"
	}
	if pair != nil {
		runs = append(runs, pair)
		roles[sampleRun(pair)] = "pair"
	}
	traces, counters, err := scanTraces(ds.SamplesPath, runs)
	if err != nil {
		return nil, err
	}
	src := b.show(dir) + "/samples.arrow"
	sec := section{
		Title: "Counters of a campaign: " + label(dir),
		Text: fmt.Sprintf("Counter time series of two runs of the campaign in %s, on the first device each used: "+
			"device-wide samples, and per-process samples (NVML's per-process utilisation, /proc) where the "+
			"campaign has them. Time is seconds from the start of the run; the throughput is measured over the "+
			"last window_s seconds (the steady window). A per-process line ends with the last sample its processes "+
			"were alive for: the zeros read after they exit are not drawn.", b.show(dir)),
	}
	tab := table{Caption: "Runs drawn", Header: []string{"role", "run", "workload", "partner", "device", "degree", "share", "duration (s)", "window (s)", "throughput (" + ds.Runs.ThroughputUnit + ")"}}
	for _, r := range runs {
		tab.Rows = append(tab.Rows, []string{roles[sampleRun(r)], r.RunID, r.Workload, r.Partner, fmt.Sprintf("%s %d", r.DeviceType, firstDevice(r)),
			fmt.Sprint(r.Degree), r.ShareMode, f2(r.End.Sub(r.Start).Seconds()), f2(r.WindowS), sig(r.Throughput)})
	}
	sec.Tables = []table{tab}
	for _, c := range counters {
		ts := &plot.TimeSeries{Title: c.Name, YLabel: fmt.Sprintf("%s (%s)", c.Name, c.Unit)}
		for _, tr := range traces {
			vs := tr.v[c.Name]
			if !anyFinite(vs) {
				continue
			}
			ts.Series = append(ts.Series, plot.Series{Name: tr.name(), X: tr.t, Y: vs})
		}
		if len(ts.Series) == 0 {
			continue
		}
		cap := fmt.Sprintf("Counter %s (%s) over time in the runs of the table below. From %s.", c.Name, c.Unit, src)
		f, err := b.figure(ts, figName("counter", label(dir), c.Name), cap, wideFigure)
		if err != nil {
			return nil, err
		}
		sec.Figures = append(sec.Figures, f)
	}
	if len(sec.Figures) == 0 {
		sec.Text += "\n\nThe samples of these runs hold no counter values."
	}
	return []section{sec}, nil
}

// scanTraces streams the samples file and keeps the rows of the runs on
// their first device, split by workload (null: device-wide). It returns
// the traces (by run, device-wide first) and the counters in column order.
func scanTraces(path string, runs []*datasets.Run) ([]*trace, []datasets.Counter, error) {
	sc, err := datasets.NewScanner(path)
	if err != nil {
		return nil, nil, err
	}
	defer sc.Close()
	spec, _ := datasets.SpecFor(datasets.KindSamples)
	byRun := map[string]*datasets.Run{}
	for _, r := range runs {
		byRun[sampleRun(r)] = r
	}
	type key struct{ run, workload string }
	found := map[key]*trace{}
	var counters []datasets.Counter
	for sc.Scan() {
		t := sc.Batch()
		if counters == nil {
			for _, c := range t.Columns {
				if _, fixed := spec.Column(c.Name); !fixed && c.Type == datasets.Float {
					counters = append(counters, datasets.Counter{Name: c.Name, Unit: c.Unit})
				}
			}
		}
		run, dev, wl, ts := t.Column("run_id"), t.Column("device"), t.Column("workload"), t.Column("timestamp")
		for i := 0; i < t.Len(); i++ {
			r := byRun[run.Str[i]]
			if r == nil || dev.Int[i] != firstDevice(r) {
				continue
			}
			w := ""
			if !wl.IsNull(i) {
				w = wl.Str[i]
			}
			k := key{run.Str[i], w}
			tr := found[k]
			if tr == nil {
				role := "solo"
				if r.Mode == datasets.ModePair {
					role = "pair"
				}
				tr = &trace{run: r, role: role, workload: w, v: map[string][]float64{}}
				found[k] = tr
			}
			tr.t = append(tr.t, float64(ts.Int[i]-r.Start.UnixNano())/1e9)
			for _, c := range counters {
				col := t.Column(c.Name)
				v := math.NaN()
				if col != nil {
					v = col.FloatAt(i)
				}
				tr.v[c.Name] = append(tr.v[c.Name], v)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, nil, err
	}
	var out []*trace
	for _, r := range runs {
		if tr := found[key{sampleRun(r), ""}]; tr != nil {
			out = append(out, tr)
		}
		sides := []string{r.Workload, r.Partner}
		if r.Partner == r.Workload {
			// A workload paired with itself: both processes carry its
			// name, so their samples are one trace.
			sides = sides[:1]
		}
		for _, w := range sides {
			if tr := found[key{sampleRun(r), w}]; w != "" && tr != nil {
				tr.both = r.Partner == r.Workload
				tr.dropExited()
				out = append(out, tr)
			}
		}
	}
	if len(out) == 0 {
		return nil, nil, fmt.Errorf("%s: no samples of run %s on its first device", path, sampleRun(runs[0]))
	}
	return out, counters, nil
}

func anyFinite(vs []float64) bool {
	for _, v := range vs {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			return true
		}
	}
	return false
}
