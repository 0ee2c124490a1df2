package datasets

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/coloc-dev/coloc/internal/jsonkeys"
)

// GavelSource is the provenance written into tables imported from Gavel.
const GavelSource = "gavel"

// Imported holds the tables an importer produced and the warnings it raised
// about its input (kept, not fatal).
type Imported struct {
	Solo     *SoloTable
	Pairs    *Pairs
	Scaling  *ScalingTable
	Warnings []string
	// Meta is written into every table's schema metadata (provenance).
	Meta map[string]string
}

// Tables returns the non-nil tables, ready to write.
func (im *Imported) Tables() []*Table {
	var out []*Table
	if im.Solo != nil {
		out = append(out, im.Solo.Table())
	}
	if im.Pairs != nil {
		out = append(out, im.Pairs.Table())
	}
	if im.Scaling != nil {
		out = append(out, im.Scaling.Table())
	}
	for _, t := range out {
		t.Meta = copyMeta(im.Meta)
	}
	return out
}

var gavelKey = regexp.MustCompile(`^\('([^']+)', ([0-9]+)\)$`)

// parseGavelKey splits "('ResNet-18 (batch size 16)', 1)" into the job
// type and its scale factor (number of GPUs).
func parseGavelKey(s string) (string, int, error) {
	m := gavelKey.FindStringSubmatch(s)
	if m == nil {
		return "", 0, fmt.Errorf("key %q is not ('<job type>', <scale factor>)", s)
	}
	sf, err := strconv.Atoi(m[2])
	if err != nil || sf < 1 {
		return "", 0, fmt.Errorf("key %q: scale factor %q is not a positive integer", s, m[2])
	}
	return m[1], sf, nil
}

var jobNameRE = regexp.MustCompile(`^(.*?)\s*\(batch size ([0-9]+)\)\s*$`)

// SplitJobName splits a Gavel-style job name into its model family and the
// batch size it states: "ResNet-50 (batch size 64)" -> ("ResNet-50", 64).
// A name without a batch size is its own family, batch 0. This is the one
// reader of the name format: the importer fills the tables' batch_size
// column with it, and features.KnownDescriptor describes a job the data do
// not hold by it; nothing else parses names.
func SplitJobName(job string) (family string, batch int) {
	m := jobNameRE.FindStringSubmatch(job)
	if m == nil {
		return strings.TrimSpace(job), 0
	}
	n, err := strconv.Atoi(m[2])
	if err != nil {
		n = 0
	}
	return m[1], n
}

// batchOf is the batch size job's name states, or 0.
func batchOf(job string) int {
	_, b := SplitJobName(job)
	return b
}

// MaxGavelBytes is the largest Gavel throughputs file ImportGavel reads.
const MaxGavelBytes = 256 << 20

// ImportGavel reads Gavel's simulation_throughputs.json (measured training
// throughput, iterations/s, of job types solo and co-located in pairs on K80,
// P100 and V100) into solo, pairs and scaling tables.
//
// A pair value [0, 0] is recorded infeasible (not measured or could not
// run), never as a 100% slowdown; a pair whose co-located throughput equals
// the solo throughput exactly is recorded suspect (Gavel's V100 data holds
// such placeholders). Spread device types (SpreadType: multi-GPU jobs spread
// over servers) stay device types of their own; their scaling rows say one
// node per GPU. A job whose solo throughput is 0 gets no solo or scaling row
// and a warning. name is used in messages.
func ImportGavel(r io.Reader, name string) (*Imported, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxGavelBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(data) > MaxGavelBytes {
		return nil, fmt.Errorf("%s: more than the %d MiB a Gavel throughputs file may hold (Gavel's own is about 1 MiB)", name, MaxGavelBytes>>20)
	}
	var raw map[string]map[string]map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("%s: %s", name, jsonErrorText(data, err))
	}
	// Unmarshal keeps the last of two members of one name and replaces
	// bytes that are not UTF-8: refuse both rather than import a
	// throughput or a job name the file does not unambiguously hold.
	if p := jsonkeys.Check(data); p != nil {
		return nil, fmt.Errorf("%s:%d: %s: %s", name, p.Line, p.Path, p.Msg)
	}
	if len(raw) == 0 {
		return nil, fmt.Errorf("%s: no device types in the file", name)
	}
	im := &Imported{
		Solo:    &SoloTable{ThroughputUnit: UnitItersPerS},
		Pairs:   &Pairs{ThroughputUnit: UnitItersPerS},
		Scaling: &ScalingTable{ThroughputUnit: UnitItersPerS},
		Meta:    map[string]string{MetaSource: "Gavel measured throughputs (stanford-futuredata/gavel, scheduler/simulation_throughputs.json, MIT license)"},
	}
	for _, dev := range slices.Sorted(maps.Keys(raw)) {
		if err := importGavelDevice(im, dev, raw[dev], name); err != nil {
			return nil, err
		}
	}
	// The tables must be valid before anything is written.
	for _, t := range im.Tables() {
		if err := Validate(t, name); err != nil {
			return nil, err
		}
	}
	return im, nil
}

type gavelJob struct {
	name string
	sf   int
}

func importGavelDevice(im *Imported, dev string, jobs map[string]map[string]json.RawMessage, name string) error {
	where := func(key string) string { return fmt.Sprintf("%s: device %q, job %s", name, dev, key) }
	solo := map[string]float64{} // by key
	parsed := map[string]gavelJob{}
	for _, key := range slices.Sorted(maps.Keys(jobs)) {
		job, sf, err := parseGavelKey(key)
		if err != nil {
			return fmt.Errorf("%s: device %q: %w", name, dev, err)
		}
		parsed[key] = gavelJob{job, sf}
		rawSolo, ok := jobs[key]["null"]
		if !ok {
			return fmt.Errorf("%s: no solo throughput (\"null\" entry)", where(key))
		}
		var v float64
		if err := json.Unmarshal(rawSolo, &v); err != nil {
			return fmt.Errorf("%s: solo throughput: %v", where(key), err)
		}
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return fmt.Errorf("%s: solo throughput %v is not a non-negative number", where(key), v)
		}
		solo[key] = v
	}
	_, unconsolidated := BaseType(dev)
	for _, key := range slices.Sorted(maps.Keys(jobs)) {
		j := parsed[key]
		s := solo[key]
		if s == 0 {
			im.Warnings = append(im.Warnings, fmt.Sprintf("%s: solo throughput is 0 (not measured): no solo row, its pairs are infeasible", where(key)))
		} else {
			im.Solo.Rows = append(im.Solo.Rows, Solo{
				Workload: j.name, DeviceType: dev, Degree: j.sf, BatchSize: batchOf(j.name),
				Throughput: s, CILow: math.NaN(), CIHigh: math.NaN(), PeakMemory: math.NaN(), Source: GavelSource,
			})
			nodes := 1
			if unconsolidated {
				nodes = j.sf
			}
			im.Scaling.Rows = append(im.Scaling.Rows, Scale{
				Workload: j.name, DeviceType: dev, Degree: j.sf, Nodes: nodes, BatchSize: batchOf(j.name),
				Throughput: s, StepTime: math.NaN(), SyncTime: math.NaN(), Source: GavelSource,
			})
		}
		for _, pkey := range slices.Sorted(maps.Keys(jobs[key])) {
			if pkey == "null" {
				continue
			}
			pj, known := parsed[pkey]
			if !known {
				if _, _, err := parseGavelKey(pkey); err != nil {
					return fmt.Errorf("%s: partner: %w", where(key), err)
				}
				return fmt.Errorf("%s: pair names unknown workload %s (not a job of device %q)", where(key), pkey, dev)
			}
			if pj.sf != j.sf {
				return fmt.Errorf("%s: partner %s has scale factor %d, job has %d", where(key), pkey, pj.sf, j.sf)
			}
			var val []float64
			if err := json.Unmarshal(jobs[key][pkey], &val); err != nil || len(val) != 2 {
				return fmt.Errorf("%s: partner %s: want [this job's throughput, partner's throughput]", where(key), pkey)
			}
			for _, v := range val {
				if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
					return fmt.Errorf("%s: partner %s: throughput %v is not a non-negative number", where(key), pkey, v)
				}
			}
			pr := Pair{
				Workload: j.name, Partner: pj.name, DeviceType: dev, Degree: j.sf,
				Solo: math.NaN(), Colocated: math.NaN(), Normalized: math.NaN(),
				NormLow: math.NaN(), NormHigh: math.NaN(), Source: GavelSource,
			}
			switch {
			case val[0] == 0 && val[1] == 0, s == 0:
				pr.Status = StatusInfeasible
				if s > 0 {
					pr.Solo = s
				}
			case val[0] == 0:
				return fmt.Errorf("%s: partner %s: this job's co-located throughput is 0 but the partner's is %v", where(key), pkey, val[1])
			default:
				pr.Solo, pr.Colocated, pr.Normalized = s, val[0], val[0]/s
				pr.Status = StatusOK
				if val[0] == s {
					pr.Status = StatusSuspect
				}
			}
			im.Pairs.Rows = append(im.Pairs.Rows, pr)
		}
	}
	return nil
}

// jsonErrorText turns an encoding/json error into text with line and column.
func jsonErrorText(data []byte, err error) string {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	if off < 0 || off > int64(len(data)) {
		return "malformed JSON: " + err.Error()
	}
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := off - int64(bytes.LastIndexByte(data[:off], '\n'))
	return fmt.Sprintf("line %d, column %d: malformed JSON: %v", line, col, err)
}
