package sim

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/coloc-dev/coloc/internal/inputfile"
	"github.com/coloc-dev/coloc/internal/strictnum"
	"github.com/coloc-dev/coloc/place/jobs"
)

// Trace formats: Gavel's two job-trace layouts, tab-separated.
const (
	// formatMSR is Gavel's traces/msr layout, 7 fields a line: job_type,
	// command, num_steps_arg, needs_data_dir, total_steps, arrival_time_s,
	// scale_factor.
	formatMSR = "msr"
	// formatPhysical is Gavel's traces/physical_cluster layout, 10 fields a
	// line: job_type, command, working_directory, num_steps_arg,
	// needs_data_dir, total_steps, scale_factor, priority_weight, SLO,
	// arrival_time_s.
	formatPhysical = "physical_cluster"
)

// TraceJob is one job of a trace: a data-parallel training job of a known
// type that runs Steps iterations on Scale GPUs of one type.
type TraceJob struct {
	Workload string  // Gavel job type, e.g. "ResNet-50 (batch size 64)"
	Steps    int64   // total iterations
	Arrival  float64 // seconds from the start of the trace
	Scale    int     // GPUs (Gavel's scale factor)
	Priority float64 // physical_cluster priority weight; 1 in msr traces
	SLO      float64 // physical_cluster SLO; -1 when none
	Line     int     // line of the trace file, 0 when built in code
}

// Trace is a parsed job trace.
type Trace struct {
	Name   string // file name, for messages
	Format string // formatMSR or formatPhysical
	Jobs   []TraceJob
}

// traceError is a malformed trace line: File, Line and the 1-based Field
// (0 for the whole line) say where.
type traceError struct {
	File  string
	Line  int
	Field int
	Name  string // field name, "" for the whole line
	Msg   string
}

func (e *traceError) Error() string {
	if e.Field > 0 {
		return fmt.Sprintf("%s:%d: field %d (%s): %s", e.File, e.Line, e.Field, e.Name, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// traceLayout gives the 0-based field index of each value a layout holds.
type traceLayout struct {
	format                                    string
	fields                                    []string
	job, steps, arrival, scale, priority, slo int
}

var traceLayouts = map[int]traceLayout{
	7: {
		format: formatMSR,
		fields: []string{"job_type", "command", "num_steps_arg", "needs_data_dir", "total_steps", "arrival_time_s", "scale_factor"},
		job:    0, steps: 4, arrival: 5, scale: 6, priority: -1, slo: -1,
	},
	10: {
		format: formatPhysical,
		fields: []string{"job_type", "command", "working_directory", "num_steps_arg", "needs_data_dir", "total_steps", "scale_factor", "priority_weight", "SLO", "arrival_time_s"},
		job:    0, steps: 5, arrival: 9, scale: 6, priority: 7, slo: 8,
	},
}

// Limits of a trace, those of a job list (place/jobs) but the count: a
// trace replays far more jobs than a list places at once.
const (
	// maxTraceJobs is the most jobs of one trace: ten times the 100,000
	// of the largest generated traces the results use, and the most a
	// job list holds (jobs.MaxJobs), as `coloc policy export` reads a
	// trace.
	maxTraceJobs = jobs.MaxJobs
	// maxTraceLine is the longest line of a trace.
	maxTraceLine = 1 << 20
)

// LoadTrace reads the trace at path, a regular file.
func LoadTrace(path string) (*Trace, error) {
	f, err := inputfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadTrace(f, path)
}

// ReadTrace parses a Gavel trace. The layout is chosen by the number of
// tab-separated fields of the first line (7: msr, 10: physical_cluster);
// every line must have the same layout. Blank lines are skipped. The first
// malformed line stops the read with a *traceError; name is used in it.
func ReadTrace(r io.Reader, name string) (*Trace, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), maxTraceLine)
	tr := &Trace{Name: name}
	var lay *traceLayout
	names := map[string]string{}
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(text) == "" {
			continue
		}
		fields := strings.Split(text, "\t")
		if lay == nil {
			l, ok := traceLayouts[len(fields)]
			if !ok {
				return nil, &traceError{File: name, Line: line, Msg: fmt.Sprintf("%d tab-separated fields; a Gavel trace line has 7 (msr) or 10 (physical_cluster)", len(fields))}
			}
			lay = &l
			tr.Format = l.format
		} else if len(fields) != len(lay.fields) {
			return nil, &traceError{File: name, Line: line, Msg: fmt.Sprintf("%d tab-separated fields, earlier lines have %d (%s layout)", len(fields), len(lay.fields), lay.format)}
		}
		j, err := lay.parse(fields)
		if err != nil {
			err.File, err.Line = name, line
			return nil, err
		}
		j.Line = line
		// One copy of each job type's name: the line it was cut from is
		// not kept alive by it (a long trace names a few dozen types).
		if w, ok := names[j.Workload]; ok {
			j.Workload = w
		} else {
			j.Workload = strings.Clone(j.Workload)
			names[j.Workload] = j.Workload
		}
		if len(tr.Jobs) == maxTraceJobs {
			return nil, &traceError{File: name, Line: line, Msg: fmt.Sprintf("more than the %d jobs a trace may hold", maxTraceJobs)}
		}
		tr.Jobs = append(tr.Jobs, j)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", name, line+1, err)
	}
	if len(tr.Jobs) == 0 {
		return nil, fmt.Errorf("%s: no jobs", name)
	}
	return tr, nil
}

func (l *traceLayout) parse(f []string) (TraceJob, *traceError) {
	bad := func(i int, format string, args ...any) *traceError {
		return &traceError{Field: i + 1, Name: l.fields[i], Msg: fmt.Sprintf(format, args...)}
	}
	j := TraceJob{Workload: strings.TrimSpace(f[l.job]), Priority: 1, SLO: -1}
	if j.Workload == "" {
		return j, bad(l.job, "empty job type")
	}
	if !plainText(j.Workload) {
		return j, bad(l.job, "%q: want UTF-8 text of at most %d bytes without control characters", j.Workload, jobs.MaxTextLen)
	}
	steps, err := strictnum.ParseInt(strings.TrimSpace(f[l.steps]))
	if err != nil || steps < 1 || steps > jobs.MaxSteps {
		return j, bad(l.steps, "%q: want a whole number of steps from 1 to %g", f[l.steps], float64(jobs.MaxSteps))
	}
	j.Steps = steps
	arr, err := strictnum.ParseFloat(strings.TrimSpace(f[l.arrival]))
	if err != nil || arr < 0 || arr > jobs.MaxArrivalS {
		return j, bad(l.arrival, "%q: want a number of seconds from 0 to %g", f[l.arrival], float64(jobs.MaxArrivalS))
	}
	j.Arrival = arr
	sf, err := strictnum.ParseInt(strings.TrimSpace(f[l.scale]))
	if err != nil || sf < 1 || sf > jobs.MaxDegree {
		return j, bad(l.scale, "%q: want a whole number of GPUs from 1 to %d", f[l.scale], jobs.MaxDegree)
	}
	j.Scale = int(sf)
	if l.priority >= 0 {
		p, err := strictnum.ParseFloat(strings.TrimSpace(f[l.priority]))
		if err != nil || !(p > 0) {
			return j, bad(l.priority, "%q is not a positive number", f[l.priority])
		}
		j.Priority = p
	}
	if l.slo >= 0 {
		s, err := strictnum.ParseFloat(strings.TrimSpace(f[l.slo]))
		if err != nil {
			return j, bad(l.slo, "%q is not a number", f[l.slo])
		}
		j.SLO = s
	}
	return j, nil
}

// plainText reports whether s is UTF-8 text of at most jobs.MaxTextLen
// bytes without control characters, as a job list's text must be.
func plainText(s string) bool {
	if len(s) > jobs.MaxTextLen || !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return false
		}
	}
	return true
}
