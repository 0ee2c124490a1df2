package features

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// WorkloadsFile is the name of the optional file of a dataset directory
// that holds the `meta` of each workload as our harness reported it: a JSON
// list of objects {"workload", "model", "class", "params",
// "flops_per_sample", "layers": {kind: count}, "batch_size", "precision"}.
const WorkloadsFile = "workloads.json"

// WorkloadMeta is one entry of WorkloadsFile.
type WorkloadMeta struct {
	Workload string `json:"workload"`
	Descriptor
}

// ReadMeta reads DIR/workloads.json. A missing file is not an error: it
// returns nil.
func ReadMeta(dir string) (map[string]Descriptor, error) {
	path := filepath.Join(dir, WorkloadsFile)
	m, err := ReadMetaFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return m, err
}

// ReadMetaFile reads a workloads.json file at any path.
func ReadMetaFile(path string) (map[string]Descriptor, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var list []WorkloadMeta
	if err := json.Unmarshal(b, &list); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	out := make(map[string]Descriptor, len(list))
	for i, m := range list {
		switch {
		case m.Workload == "":
			return nil, fmt.Errorf("%s: entry %d has no workload", path, i+1)
		case m.Params < 0 || m.FLOPs < 0 || m.BatchSize < 0:
			return nil, fmt.Errorf("%s: workload %q: params, flops_per_sample and batch_size must not be negative", path, m.Workload)
		}
		if _, dup := out[m.Workload]; dup {
			return nil, fmt.Errorf("%s: workload %q listed twice", path, m.Workload)
		}
		for kind, n := range m.Layers {
			if n < 0 {
				return nil, fmt.Errorf("%s: workload %q: layer count of %q is negative", path, m.Workload, kind)
			}
		}
		out[m.Workload] = m.Descriptor
	}
	return out, nil
}

// describe returns the descriptor of a workload: its meta when given, else
// the known model of its family with the batch size its name states.
func describe(workload string, meta map[string]Descriptor, batchFromName int) (Descriptor, bool) {
	if d, ok := meta[workload]; ok {
		return d, true
	}
	d, ok := KnownModels[FamilyOf(workload)]
	if !ok {
		return Descriptor{BatchSize: batchFromName}, false
	}
	if batchFromName > 0 {
		d.BatchSize = batchFromName
	}
	return d, true
}
