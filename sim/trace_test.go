package sim

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestReadTraceLayouts(t *testing.T) {
	msr := "Transformer (batch size 128)\tcd x && python3 train.py\t-step\t1\t246378\t0.000000\t1\n" +
		"\n" + // blank lines are skipped
		"LM (batch size 20)\tcd y\t--steps\t1\t5000\t12.5\t4\n"
	tr, err := ReadTrace(strings.NewReader(msr), "a.trace")
	if err != nil {
		t.Fatal(err)
	}
	want := []TraceJob{
		{Workload: "Transformer (batch size 128)", Steps: 246378, Arrival: 0, Scale: 1, Priority: 1, SLO: -1, Line: 1},
		{Workload: "LM (batch size 20)", Steps: 5000, Arrival: 12.5, Scale: 4, Priority: 1, SLO: -1, Line: 3},
	}
	if tr.Format != formatMSR || len(tr.Jobs) != 2 || tr.Jobs[0] != want[0] || tr.Jobs[1] != want[1] {
		t.Errorf("msr: %s %+v, want %+v", tr.Format, tr.Jobs, want)
	}

	phys := "Transformer (batch size 128)\tpython3 train.py\ttranslation\t-step\t1\t346\t2\t1\t-1.000000\t30\r\n"
	tr, err = ReadTrace(strings.NewReader(phys), "b.trace")
	if err != nil {
		t.Fatal(err)
	}
	w := TraceJob{Workload: "Transformer (batch size 128)", Steps: 346, Arrival: 30, Scale: 2, Priority: 1, SLO: -1, Line: 1}
	if tr.Format != formatPhysical || len(tr.Jobs) != 1 || tr.Jobs[0] != w {
		t.Errorf("physical: %s %+v, want %+v", tr.Format, tr.Jobs, w)
	}
}

func TestReadTraceErrorsNameFileAndLine(t *testing.T) {
	ok := "A\tcmd\t-n\t1\t100\t0\t1\n"
	cases := []struct {
		name, in, want string
	}{
		{"fields", "A\tcmd\t1\n", "t.trace:1: 3 tab-separated fields; a Gavel trace line has 7 (msr) or 10 (physical_cluster)"},
		{"mixed", ok + "A\tpython3\tdir\t-n\t1\t10\t1\t1\t-1\t0\n", "t.trace:2: 10 tab-separated fields, earlier lines have 7 (msr layout)"},
		{"steps", ok + ok + "A\tcmd\t-n\t1\tlots\t0\t1\n", `t.trace:3: field 5 (total_steps): "lots": want a whole number of steps from 1 to 1e+12`},
		{"zero steps", "A\tcmd\t-n\t1\t0\t0\t1\n", `t.trace:1: field 5 (total_steps): "0": want a whole number of steps from 1 to 1e+12`},
		{"arrival", "A\tcmd\t-n\t1\t5\t-3\t1\n", `t.trace:1: field 6 (arrival_time_s): "-3": want a number of seconds from 0 to 1e+09`},
		{"scale", "A\tcmd\t-n\t1\t5\t0\t0\n", `t.trace:1: field 7 (scale_factor): "0": want a whole number of GPUs from 1 to 1048576`},
		{"job type", "\tcmd\t-n\t1\t5\t0\t1\n", "t.trace:1: field 1 (job_type): empty job type"},
		{"physical scale", "A\tpy\tdir\t-n\t1\t10\tx\t1\t-1\t0\n", `t.trace:1: field 7 (scale_factor): "x": want a whole number of GPUs from 1 to 1048576`},
		{"physical arrival", "A\tpy\tdir\t-n\t1\t10\t1\t1\t-1\tsoon\n", `t.trace:1: field 10 (arrival_time_s): "soon": want a number of seconds from 0 to 1e+09`},
		{"priority", "A\tpy\tdir\t-n\t1\t10\t1\t0\t-1\t0\n", `t.trace:1: field 8 (priority_weight): "0" is not a positive number`},
		{"far arrival", "A\tcmd\t-n\t1\t5\t1e300\t1\n", `t.trace:1: field 6 (arrival_time_s): "1e300": want a number of seconds from 0 to 1e+09`},
		{"endless steps", "A\tcmd\t-n\t1\t1000000000000000\t0\t1\n", `t.trace:1: field 5 (total_steps): "1000000000000000": want a whole number of steps from 1 to 1e+12`},
		{"huge scale", "A\tcmd\t-n\t1\t5\t0\t9223372036854775807\n", `t.trace:1: field 7 (scale_factor): "9223372036854775807": want a whole number of GPUs from 1 to 1048576`},
		{"separator steps", "A\tcmd\t-n\t1\t1_000\t0\t1\n", `t.trace:1: field 5 (total_steps): "1_000": want a whole number of steps from 1 to 1e+12`},
		{"hex arrival", "A\tcmd\t-n\t1\t5\t0x10\t1\n", `t.trace:1: field 6 (arrival_time_s): "0x10": want a number of seconds from 0 to 1e+09`},
		{"infinite slo", "A\tpy\tdir\t-n\t1\t10\t1\t1\tInf\t0\n", `t.trace:1: field 9 (SLO): "Inf" is not a number`},
		{"control job type", "A\x1b[2J\tcmd\t-n\t1\t5\t0\t1\n", `t.trace:1: field 1 (job_type): "A\x1b[2J": want UTF-8 text of at most 1024 bytes without control characters`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadTrace(strings.NewReader(c.in), "t.trace")
			if err == nil || err.Error() != c.want {
				t.Fatalf("error %v, want %q", err, c.want)
			}
			var te *traceError
			if !errors.As(err, &te) || te.File != "t.trace" {
				t.Errorf("error %T is not a *TraceError naming the file", err)
			}
		})
	}
	if _, err := ReadTrace(strings.NewReader("\n\n"), "e.trace"); err == nil || err.Error() != "e.trace: no jobs" {
		t.Errorf("empty trace: %v", err)
	}
}

// A trace of more than maxTraceJobs jobs is refused at the first job past
// the limit.
func TestTraceJobLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("reads a million lines")
	}
	line := "A\tcmd\t-n\t1\t5\t0\t1\n"
	in := strings.Repeat(line, maxTraceJobs+1)
	_, err := ReadTrace(strings.NewReader(in), "t.trace")
	want := fmt.Sprintf("t.trace:%d: more than the %d jobs a trace may hold", maxTraceJobs+1, maxTraceJobs)
	if err == nil || err.Error() != want {
		t.Fatalf("error %v, want %q", err, want)
	}
}
