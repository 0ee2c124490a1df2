package datasets

import (
	"fmt"
	"sort"
	"strings"
)

// Version is the schema version of the tables this package writes, the
// runs table aside (RunsVersion). It is stored in each file's schema
// metadata under MetaVersion; a file of any other version is refused by
// name (see ErrVersion).
const Version = 1

// RunsVersion is the schema version of the runs table. Version 2 added the
// columns settled, window_start and window_end, version 3 the column
// shared; version-1 and version-2 runs files still read (the columns they
// lack absent: unknown).
const RunsVersion = 3

// KindVersion is the schema version this package writes for tables of kind
// k.
func KindVersion(k Kind) int {
	if k == KindRuns {
		return RunsVersion
	}
	return Version
}

// readsOlder reports whether this package still reads dataset tables of
// kind k at an older schema version v (runs at versions 1 and 2).
func readsOlder(k Kind, v int) bool {
	return k == KindRuns && (v == 1 || v == 2)
}

// Schema metadata keys. Every file carries both; a file without them is not
// a coloc table.
const (
	MetaTable   = "coloc.table"
	MetaVersion = "coloc.version"
	// MetaSource is optional schema metadata naming where the data came
	// from (provenance and license).
	MetaSource = "coloc.source"
	// MetaUnit is the field metadata key that gives a column's unit.
	MetaUnit = "unit"
)

// Kind names a table.
type Kind string

// The five tables of schema version 1.
const (
	KindRuns    Kind = "runs"
	KindSamples Kind = "samples"
	KindSolo    Kind = "solo"
	KindPairs   Kind = "pairs"
	KindScaling Kind = "scaling"
)

// Kinds lists every table kind in pipeline order.
var Kinds = []Kind{KindRuns, KindSamples, KindSolo, KindPairs, KindScaling}

// ParseKind returns the Kind named s, or an error listing the valid names.
func ParseKind(s string) (Kind, error) {
	for _, k := range Kinds {
		if string(k) == s {
			return k, nil
		}
	}
	return "", fmt.Errorf("unknown table %q (want one of %s)", s, kindList())
}

func kindList() string {
	names := make([]string, len(Kinds))
	for i, k := range Kinds {
		names[i] = string(k)
	}
	return strings.Join(names, ", ")
}

// FileName is the conventional file name of a table inside a dataset
// directory, e.g. "pairs.arrow".
func (k Kind) FileName() string { return string(k) + ".arrow" }

// Type is the logical type of a column. Each maps to one Arrow type.
type Type int

// Column types. Time is an Arrow timestamp[ns, tz=UTC]; Go code sees it as
// nanoseconds since the Unix epoch.
const (
	String Type = iota
	Int
	Float
	Time
)

func (t Type) String() string {
	switch t {
	case String:
		return "string"
	case Int:
		return "int64"
	case Float:
		return "float64"
	case Time:
		return "timestamp[ns, UTC]"
	}
	return fmt.Sprintf("Type(%d)", int(t))
}

// Units that the schema names. A unit is free text in the file, but the
// columns of the schema accept only the units listed in their ColumnSpec.
const (
	UnitNone        = ""             // identifiers and labels
	UnitRatio       = "1"            // dimensionless
	UnitSamplesPerS = "samples/s"    // training throughput, samples per second
	UnitItersPerS   = "iterations/s" // training throughput, steps per second
	UnitBytes       = "bytes"
	UnitSeconds     = "s"
	UnitNanoseconds = "ns"
	UnitGPUs        = "GPUs"
	UnitNodes       = "nodes"
	UnitSamples     = "samples"
	UnitSteps       = "steps"
	UnitCount       = "count"
	UnitIndex       = "index"
)

// ThroughputUnits are the units a throughput column may carry. Gavel
// measured iterations per second, Pollux and our harness samples per second;
// the unit travels with the file and merge refuses to mix them.
var ThroughputUnits = []string{UnitSamplesPerS, UnitItersPerS}

// ColumnSpec describes one column of a table schema.
type ColumnSpec struct {
	Name     string
	Type     Type
	Units    []string // accepted units; the first is the default
	Required bool     // the column must be present
	Nullable bool     // values may be null
	Enum     []string // accepted values of a String column
	Min      *float64 // inclusive lower bound of a numeric column
	Positive bool     // numeric values must be > 0
	// Ident marks a column of names (workloads, devices, runs, sources):
	// UTF-8 text of at most MaxNameBytes without control characters, so
	// that a name printed in a table, a message or a script is the name
	// stored.
	Ident bool
	Doc   string
}

// MaxNameBytes is the longest value of a name column, and of a column's
// name.
const MaxNameBytes = 1024

// DefaultUnit is the unit a writer uses when none is given.
func (c ColumnSpec) DefaultUnit() string {
	if len(c.Units) == 0 {
		return UnitNone
	}
	return c.Units[0]
}

func (c ColumnSpec) acceptsUnit(u string) bool {
	if len(c.Units) == 0 {
		return u == UnitNone
	}
	for _, x := range c.Units {
		if x == u {
			return true
		}
	}
	return false
}

// Spec is the schema of one table kind at one version.
type Spec struct {
	Kind    Kind
	Columns []ColumnSpec
	// Key lists the columns whose values identify a row; two rows with the
	// same key are duplicates (merge collapses equal ones and refuses
	// conflicting ones).
	Key []string
	// Extra says whether columns not in Columns are allowed. When true they
	// must be Float columns with a unit: counters in samples, features in
	// solo.
	Extra    bool
	ExtraDoc string
}

// Column returns the spec of the named column.
func (s *Spec) Column(name string) (ColumnSpec, bool) {
	for _, c := range s.Columns {
		if c.Name == name {
			return c, true
		}
	}
	return ColumnSpec{}, false
}

// SpecFor returns the version-1 schema of a table kind.
func SpecFor(k Kind) (*Spec, error) {
	s, ok := specs[k]
	if !ok {
		return nil, fmt.Errorf("unknown table %q (want one of %s)", k, kindList())
	}
	return s, nil
}

func zero() *float64 { v := 0.0; return &v }

// Status values of runs and pairs.
const (
	StatusOK         = "ok"
	StatusFailed     = "failed"
	StatusInfeasible = "infeasible"
	StatusSuspect    = "suspect"
)

// Values of the runs table's settled column.
const (
	SettledYes = "true"
	SettledNo  = "false"
)

// Modes of a run.
const (
	ModeSolo  = "solo"
	ModePair  = "pair"
	ModeScale = "scale"
)

// Share modes of a run: how the GPU was shared with a partner.
const (
	ShareExclusive = "exclusive"
	ShareTimeSlice = "timeslice"
	ShareMPS       = "mps"
)

var specs = map[Kind]*Spec{
	KindRuns: {
		Kind: KindRuns,
		Key:  []string{"campaign", "run_id"},
		Columns: []ColumnSpec{
			{Name: "campaign", Type: String, Ident: true, Required: true, Doc: "campaign identifier"},
			{Name: "run_id", Type: String, Ident: true, Required: true, Doc: "run identifier, unique in the campaign"},
			{Name: "mode", Type: String, Required: true, Enum: []string{ModeSolo, ModePair, ModeScale}},
			{Name: "workload", Type: String, Ident: true, Required: true},
			{Name: "partner", Type: String, Ident: true, Required: true, Nullable: true, Doc: "the co-located workload of a pair run; null otherwise"},
			{Name: "device_type", Type: String, Ident: true, Required: true, Doc: "GPU type, e.g. h200, v100, or cpu"},
			{Name: "device_ids", Type: String, Ident: true, Required: true, Doc: "comma-separated device indices the run used"},
			{Name: "degree", Type: Int, Units: []string{UnitGPUs}, Required: true, Positive: true, Doc: "number of GPUs (data-parallel workers)"},
			{Name: "share_mode", Type: String, Required: true, Enum: []string{ShareExclusive, ShareTimeSlice, ShareMPS}},
			{Name: "repeat", Type: Int, Units: []string{UnitIndex}, Required: true, Min: zero()},
			{Name: "start_time", Type: Time, Units: []string{UnitNanoseconds}, Required: true},
			{Name: "end_time", Type: Time, Units: []string{UnitNanoseconds}, Required: true},
			{Name: "steps", Type: Int, Units: []string{UnitSteps}, Required: true, Min: zero()},
			{Name: "throughput", Type: Float, Units: ThroughputUnits, Required: true, Nullable: true, Positive: true, Doc: "over the steady window; null unless status is ok"},
			{Name: "window_s", Type: Float, Units: []string{UnitSeconds}, Nullable: true, Min: zero(), Doc: "length of the steady measuring window"},
			{Name: "peak_memory", Type: Float, Units: []string{UnitBytes}, Nullable: true, Min: zero(), Doc: "peak device memory of the workload"},
			{Name: "status", Type: String, Required: true, Enum: []string{StatusOK, StatusFailed, StatusInfeasible}},
			{Name: "error", Type: String, Required: true, Nullable: true, Doc: "why a run failed or was infeasible"},
			{Name: "settled", Type: String, Nullable: true, Enum: []string{SettledYes, SettledNo}, Doc: "whether the step time settled before the window (version 2); null unless status is ok"},
			{Name: "window_start", Type: Time, Units: []string{UnitNanoseconds}, Nullable: true, Doc: "start of the measuring window (version 2)"},
			{Name: "window_end", Type: Time, Units: []string{UnitNanoseconds}, Nullable: true, Doc: "end of the measuring window (version 2)"},
			{Name: "shared", Type: String, Nullable: true, Doc: "another tenant's processes seen on the run's GPUs, '; '-separated (version 3); null when none was seen or nothing could tell"},
		},
	},
	KindSamples: {
		Kind:     KindSamples,
		Key:      []string{"run_id", "device", "workload", "timestamp"},
		Extra:    true,
		ExtraDoc: "one float64 column per counter, each with its unit; null where a counter was not read",
		Columns: []ColumnSpec{
			{Name: "run_id", Type: String, Ident: true, Required: true},
			{Name: "device", Type: Int, Units: []string{UnitIndex}, Required: true, Min: zero(), Doc: "device index; 0 for host-only samples"},
			{Name: "workload", Type: String, Ident: true, Nullable: true, Doc: "the workload a per-process sample belongs to; null for device-wide samples"},
			{Name: "timestamp", Type: Time, Units: []string{UnitNanoseconds}, Required: true},
		},
	},
	KindSolo: {
		Kind:     KindSolo,
		Key:      []string{"workload", "device_type", "degree"},
		Extra:    true,
		ExtraDoc: "any number of float64 feature columns (counter summaries), each with its unit",
		Columns: []ColumnSpec{
			{Name: "workload", Type: String, Ident: true, Required: true},
			{Name: "device_type", Type: String, Ident: true, Required: true},
			{Name: "degree", Type: Int, Units: []string{UnitGPUs}, Required: true, Positive: true},
			{Name: "batch_size", Type: Int, Units: []string{UnitSamples}, Nullable: true, Positive: true, Doc: "per-GPU batch size"},
			{Name: "throughput", Type: Float, Units: ThroughputUnits, Required: true, Positive: true, Doc: "mean over repeats"},
			{Name: "throughput_ci_low", Type: Float, Units: ThroughputUnits, Nullable: true, Min: zero(), Doc: "95% confidence interval, lower end"},
			{Name: "throughput_ci_high", Type: Float, Units: ThroughputUnits, Nullable: true, Min: zero(), Doc: "95% confidence interval, upper end"},
			{Name: "repeats", Type: Int, Units: []string{UnitCount}, Nullable: true, Positive: true},
			{Name: "peak_memory", Type: Float, Units: []string{UnitBytes}, Nullable: true, Min: zero()},
			{Name: "source", Type: String, Ident: true, Required: true, Doc: "where the measurement comes from, e.g. gavel, coloc:<campaign>"},
		},
	},
	KindPairs: {
		Kind: KindPairs,
		Key:  []string{"workload", "partner", "device_type", "degree"},
		Columns: []ColumnSpec{
			{Name: "workload", Type: String, Ident: true, Required: true, Doc: "the job whose throughput is measured"},
			{Name: "partner", Type: String, Ident: true, Required: true, Doc: "the job sharing its GPU(s)"},
			{Name: "device_type", Type: String, Ident: true, Required: true},
			{Name: "degree", Type: Int, Units: []string{UnitGPUs}, Required: true, Positive: true},
			{Name: "solo_throughput", Type: Float, Units: ThroughputUnits, Required: true, Nullable: true, Positive: true},
			{Name: "colocated_throughput", Type: Float, Units: ThroughputUnits, Required: true, Nullable: true, Positive: true},
			{Name: "normalized_throughput", Type: Float, Units: []string{UnitRatio}, Required: true, Nullable: true, Positive: true, Doc: "colocated / solo; may exceed 1; null when infeasible"},
			{Name: "normalized_ci_low", Type: Float, Units: []string{UnitRatio}, Nullable: true, Min: zero()},
			{Name: "normalized_ci_high", Type: Float, Units: []string{UnitRatio}, Nullable: true, Min: zero()},
			{Name: "repeats", Type: Int, Units: []string{UnitCount}, Nullable: true, Positive: true},
			{Name: "status", Type: String, Required: true, Enum: []string{StatusOK, StatusInfeasible, StatusSuspect}},
			{Name: "source", Type: String, Ident: true, Required: true},
		},
	},
	KindScaling: {
		Kind: KindScaling,
		Key:  []string{"workload", "device_type", "degree", "nodes", "batch_size", "placement"},
		Columns: []ColumnSpec{
			{Name: "workload", Type: String, Ident: true, Required: true},
			{Name: "device_type", Type: String, Ident: true, Required: true},
			{Name: "degree", Type: Int, Units: []string{UnitGPUs}, Required: true, Positive: true},
			{Name: "nodes", Type: Int, Units: []string{UnitNodes}, Required: true, Positive: true},
			{Name: "batch_size", Type: Int, Units: []string{UnitSamples}, Required: true, Nullable: true, Positive: true, Doc: "per-GPU batch size"},
			{Name: "placement", Type: String, Ident: true, Nullable: true, Doc: "GPUs per node, one digit a node (Pollux notation), when known"},
			{Name: "throughput", Type: Float, Units: ThroughputUnits, Required: true, Positive: true},
			{Name: "step_time", Type: Float, Units: []string{UnitSeconds}, Nullable: true, Positive: true},
			{Name: "sync_time", Type: Float, Units: []string{UnitSeconds}, Nullable: true, Min: zero()},
			{Name: "source", Type: String, Ident: true, Required: true},
		},
	},
}

// Describe writes a human-readable description of every table's columns,
// used by `coloc datasets schema` and kept in sync with README by a test.
func Describe(k Kind) string {
	s := specs[k]
	var b strings.Builder
	fmt.Fprintf(&b, "table %s (version %d), key (%s)\n", k, KindVersion(k), strings.Join(s.Key, ", "))
	for _, c := range s.Columns {
		req := "optional"
		if c.Required {
			req = "required"
		}
		null := ""
		if c.Nullable {
			null = ", nullable"
		}
		units := ""
		if len(c.Units) > 0 {
			units = " [" + strings.Join(c.Units, "|") + "]"
		}
		enum := ""
		if len(c.Enum) > 0 {
			e := append([]string(nil), c.Enum...)
			sort.Strings(e)
			enum = " {" + strings.Join(e, "|") + "}"
		}
		fmt.Fprintf(&b, "  %-22s %-18s %s%s%s%s", c.Name, c.Type, req, null, units, enum)
		if c.Doc != "" {
			fmt.Fprintf(&b, "  %s", c.Doc)
		}
		b.WriteByte('\n')
	}
	if s.Extra {
		fmt.Fprintf(&b, "  + %s\n", s.ExtraDoc)
	}
	return b.String()
}
