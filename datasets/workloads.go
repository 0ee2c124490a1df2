package datasets

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"sort"

	"github.com/coloc-dev/coloc/internal/atomicfile"
	"github.com/coloc-dev/coloc/internal/inputfile"
	"github.com/coloc-dev/coloc/internal/jsonkeys"
)

// WorkloadsFile is the name of the optional file of a dataset directory
// that describes each workload (what its `meta` line reported when our
// harness ran it, or what a user wrote for a job never profiled).
const WorkloadsFile = "workloads.json"

// The format name and version of WorkloadsFile.
const (
	WorkloadsFormat  = "coloc.workloads"
	WorkloadsVersion = 1
)

// WorkloadMeta describes one workload's model. Zero numbers are unknown.
type WorkloadMeta struct {
	Workload string `json:"workload"`
	Model    string `json:"model,omitempty"`
	// Class is cnn, rnn, recommender, transformer, rl, gan, or other.
	Class  string  `json:"class,omitempty"`
	Params float64 `json:"params,omitempty"` // trainable parameters
	// ForwardFLOPs is the forward pass's FLOPs per sample (2 per
	// multiply-accumulate). The workload protocol's flops_per_sample counts
	// forward and backward (3x forward); the harness divides by 3.
	ForwardFLOPs float64        `json:"forward_flops_per_sample,omitempty"`
	Layers       map[string]int `json:"layers,omitempty"` // layer counts by kind
	BatchSize    int            `json:"batch_size,omitempty"`
	Precision    string         `json:"precision,omitempty"` // fp32, amp, fp16, bf16
	Source       string         `json:"source,omitempty"`    // where the numbers come from
}

type workloadsDoc struct {
	Format    string         `json:"format"`
	Version   int            `json:"version"`
	Workloads []WorkloadMeta `json:"workloads"`
}

// ReadWorkloads reads and validates a workloads file.
func ReadWorkloads(path string) ([]WorkloadMeta, error) {
	f, err := inputfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return decodeWorkloads(f, path)
}

// decodeWorkloads reads and validates a workloads file from r; path is
// used in messages.
func decodeWorkloads(r io.Reader, path string) ([]WorkloadMeta, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxTableBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	// A member named twice would be read as its last value; text that is
	// not UTF-8 would be changed on the way in.
	if p := jsonkeys.Check(data); p != nil {
		return nil, fmt.Errorf("%s:%d: %s: %s", path, p.Line, p.Path, p.Msg)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var doc workloadsDoc
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: data after the JSON value (one object per file)", path)
	}
	if doc.Format != WorkloadsFormat {
		return nil, fmt.Errorf("%s: format %q, want %q", path, doc.Format, WorkloadsFormat)
	}
	if doc.Version != WorkloadsVersion {
		return nil, fmt.Errorf("%s: workloads file version %d; this coloc reads version %d: %w", path, doc.Version, WorkloadsVersion, ErrVersion)
	}
	seen := map[string]bool{}
	for i, m := range doc.Workloads {
		where := fmt.Sprintf("%s: workload %d (%q)", path, i+1, m.Workload)
		switch {
		case m.Workload == "":
			return nil, fmt.Errorf("%s: no workload name", where)
		case !isName(m.Workload):
			return nil, fmt.Errorf("%s: a name is text of at most %d bytes without control characters", where, MaxNameBytes)
		case seen[m.Workload]:
			return nil, fmt.Errorf("%s: listed twice", where)
		case bad(m.Params) || bad(m.ForwardFLOPs) || m.BatchSize < 0:
			return nil, fmt.Errorf("%s: params, forward_flops_per_sample and batch_size must be finite and not negative", where)
		}
		for kind, n := range m.Layers {
			if n < 0 {
				return nil, fmt.Errorf("%s: layer count of %q is negative", where, kind)
			}
		}
		seen[m.Workload] = true
	}
	return doc.Workloads, nil
}

func bad(v float64) bool { return v < 0 || math.IsNaN(v) || math.IsInf(v, 0) }

// WriteWorkloads writes a workloads file atomically, sorted by workload.
func WriteWorkloads(path string, list []WorkloadMeta) error {
	doc := workloadsDoc{Format: WorkloadsFormat, Version: WorkloadsVersion, Workloads: append([]WorkloadMeta(nil), list...)}
	sort.Slice(doc.Workloads, func(i, j int) bool { return doc.Workloads[i].Workload < doc.Workloads[j].Workload })
	return atomicfile.Write(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(doc)
	})
}

// WorkloadsPath is the workloads file of dataset directory dir.
func WorkloadsPath(dir string) string { return filepath.Join(dir, WorkloadsFile) }
