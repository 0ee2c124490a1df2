package sim

import (
	"errors"
	"slices"
	"testing"
)

// roundRecorder is a policy that records when it is asked, with what, and
// starts every waiting job it can on free GPUs of type "a".
type roundRecorder struct {
	at       []float64
	events   []Events
	finished [][]int
	idleOnly bool // place nothing unless the Idle bit is set
}

func (r *roundRecorder) Name() string { return "roundRecorder" }

func (r *roundRecorder) Schedule(v *View) (*Plan, error) {
	r.at = append(r.at, v.Now)
	r.events = append(r.events, v.Events)
	var ids []int
	for _, j := range v.Finished {
		ids = append(ids, j.ID)
	}
	r.finished = append(r.finished, ids)
	if r.idleOnly && v.Events&Idle == 0 {
		return nil, nil
	}
	p := v.Plan()
	for _, j := range v.Waiting {
		if g, ok := FreeOnNode(p, "a", j.Scale); ok {
			p.Place(j.ID, g...)
		}
	}
	return p, nil
}

func TestRoundsSchedule(t *testing.T) {
	tp := topo(t, "n a 1 1")
	truth := fakeRates{solo: map[string]float64{"x|a": 1}}
	// Job 0 arrives at 10 and needs 500 s; job 1 arrives at 100 and
	// needs 100 s; job 2 arrives at 2000, on an idle cluster.
	jobs := []TraceJob{{Workload: "x", Scale: 1, Steps: 500, Arrival: 10}, {Workload: "x", Scale: 1, Steps: 100, Arrival: 100}, {Workload: "x", Scale: 1, Steps: 50, Arrival: 2000}}
	o := opts()
	o.Round = 360
	o.Schedule = ScheduleRounds
	rec := &roundRecorder{}
	r := run(t, tp, jobs, truth, rec, o)
	// Rounds: the first at the first arrival (10); the next 360 s later
	// (370, job 0 still runs, job 1 waits since 100); job 0 ends at 510
	// inside the round that began at 370, which then ends early (its
	// last job ended) and starts job 1. Job 1 ends at 610 and closes
	// that round: the policy hears of it with no job left; the next
	// round opens with job 2's arrival at 2000, the last ends at 2050.
	want := []float64{10, 370, 510, 610, 2000, 2050}
	if !slices.Equal(rec.at, want) {
		t.Fatalf("asked at %v, want %v", rec.at, want)
	}
	if !slices.Equal(rec.finished[3], []int{1}) {
		t.Errorf("finished reported at 610 = %v, want [1]", rec.finished[3])
	}
	for i, ev := range rec.events {
		if ev&Round == 0 {
			t.Errorf("call %d at %v: events %b without Round", i, rec.at[i], ev)
		}
	}
	if rec.events[1]&Arrived == 0 {
		t.Errorf("the round at 370 does not report job 1's arrival at 100")
	}
	if !slices.Equal(rec.finished[2], []int{0}) {
		t.Errorf("finished at 510 = %v, want [0]", rec.finished[2])
	}
	checkJCT(t, r, map[int]float64{0: 500, 1: 510, 2: 50})
}

func TestRoundsIdleRetry(t *testing.T) {
	tp := topo(t, "n a 1 1")
	truth := fakeRates{solo: map[string]float64{"x|a": 1}}
	jobs := []TraceJob{{Workload: "x", Scale: 1, Steps: 100, Arrival: 0}}
	o := opts()
	o.Round = 360
	o.Schedule = ScheduleRounds
	// A policy that places nothing until told the cluster idles with
	// nothing left to arrive: asked again at once, with Idle.
	rec := &roundRecorder{idleOnly: true}
	r := run(t, tp, jobs, truth, rec, o)
	if len(rec.at) < 2 || rec.at[1] != 0 || rec.events[1]&Idle == 0 {
		t.Fatalf("calls at %v with %v, want a second call at 0 with Idle", rec.at, rec.events)
	}
	checkJCT(t, r, map[int]float64{0: 100})
	// One that never places anything stalls, after the Idle retry.
	_, err := Run(tp, jobs, truth, &scripted{name: "idle"}, o)
	if !errors.Is(err, errStalled) {
		t.Fatalf("err %v, want ErrStalled", err)
	}
}

func TestRoundsOptionsRefused(t *testing.T) {
	tp := topo(t, "n a 1 1")
	truth := fakeRates{solo: map[string]float64{"x|a": 1}}
	o := opts()
	o.Schedule = ScheduleRounds
	o.Round = 0
	if _, err := Run(tp, nil, truth, &roundRecorder{}, o); err == nil {
		t.Error("rounds without a round length accepted")
	}
	o.Schedule = "sometimes"
	o.Round = 360
	if _, err := Run(tp, nil, truth, &roundRecorder{}, o); err == nil {
		t.Error("unknown schedule accepted")
	}
}
