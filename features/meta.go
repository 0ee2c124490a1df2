package features

import (
	"errors"
	"io/fs"

	"github.com/coloc-dev/coloc/datasets"
)

// WorkloadsFile is the optional file of a dataset directory describing its
// workloads (datasets.WorkloadsFile, written by the harness from the
// workloads' meta lines).
const WorkloadsFile = datasets.WorkloadsFile

// ReadMeta reads DIR/workloads.json. A missing file is not an error: it
// returns nil.
func ReadMeta(dir string) (map[string]Descriptor, error) {
	m, err := ReadMetaFile(datasets.WorkloadsPath(dir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return m, err
}

// ReadMetaFile reads a workloads file at any path into descriptors by
// workload name.
func ReadMetaFile(path string) (map[string]Descriptor, error) {
	list, err := datasets.ReadWorkloads(path)
	if err != nil {
		return nil, err
	}
	return Descriptors(list), nil
}

// Descriptors turns the entries of a workloads file into descriptors by
// workload name (nil for none).
func Descriptors(list []datasets.WorkloadMeta) map[string]Descriptor {
	if list == nil {
		return nil
	}
	out := make(map[string]Descriptor, len(list))
	for _, m := range list {
		out[m.Workload] = Descriptor{
			Model: m.Model, Class: m.Class, Params: m.Params, FLOPs: m.ForwardFLOPs,
			Layers: m.Layers, BatchSize: m.BatchSize, Precision: m.Precision, Source: m.Source,
		}
	}
	return out
}

// describe returns the descriptor of a workload: its meta when given, else
// the known model of its family with the batch size of its solo rows (the
// importer filled it from the name where the name states one).
func describe(workload string, meta map[string]Descriptor, batch int) (Descriptor, bool) {
	if d, ok := meta[workload]; ok {
		return d, true
	}
	d, ok := KnownModels[FamilyOf(workload)]
	if !ok {
		return Descriptor{BatchSize: batch}, false
	}
	if batch > 0 {
		d.BatchSize = batch
	}
	return d, true
}
