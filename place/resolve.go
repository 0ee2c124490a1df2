package place

import (
	"fmt"
	"math"

	"github.com/coloc-dev/coloc/features"
	"github.com/coloc-dev/coloc/model"
	"github.com/coloc-dev/coloc/place/jobs"
)

// resolved is a job of the list turned into a task, or the reason it
// cannot be.
type resolved struct {
	job       *jobs.Job
	task      *Task
	reference string  // nearest reference of a job never profiled
	distance  float64 // its distance
	reason    string  // why the job is unplaceable before placement, "" otherwise
	notes     []string
}

// resolve turns a job into a task. A job whose workload the data measure
// stands for itself. Any other job is described by its model descriptor,
// or, without one, by the known descriptor of its workload's model family
// (features.KnownModels), and stands for its nearest reference under the
// similarity model (the first of Thresholds.SimilarityK neighbours).
func resolve(j *jobs.Job, d *Data, m *Models, k int) resolved {
	r := resolved{job: j}
	t := &Task{ID: j.ID, Degrees: j.Degrees, BatchSize: j.Batch(), MemoryGB: j.MemoryGB}
	if j.Workload != "" && d.Knows(j.Workload) {
		t.Workload = j.Workload
		if t.MemoryGB == 0 {
			t.MemoryGB = d.MemoryGB(j.Workload)
		}
		if t.BatchSize == 0 {
			t.BatchSize = d.Batch(j.Workload)
		} else if b := d.Batch(j.Workload); b > 0 && b != t.BatchSize {
			r.notes = append(r.notes, fmt.Sprintf("job %s: batch_size %d, but %s was measured at batch size %d: its measurements stand for the job", j.ID, t.BatchSize, j.Workload, b))
		}
		if desc, ok := d.Descriptor(j.Workload); ok {
			t.Params = desc.Params
		}
		if t.Params == 0 && m != nil {
			t.Params = m.Params(j.Workload)
		}
		r.task = t
		return r
	}
	var desc features.Descriptor
	switch {
	case j.Model != nil:
		desc = features.Descriptor{Model: j.Model.Name, Class: j.Model.Class, Params: j.Model.Params, FLOPs: j.Model.FLOPs,
			Layers: j.Model.Layers, BatchSize: j.Batch(), Precision: j.Model.Precision}
	default:
		kd, ok := features.KnownDescriptor(j.Workload)
		if !ok {
			r.reason = fmt.Sprintf("workload %q has no measurements in the data and the job gives no model descriptor (add a model: entry)", j.Workload)
			return r
		}
		desc = kd
		if t.BatchSize > 0 {
			desc.BatchSize = t.BatchSize
		}
	}
	if m == nil || m.Similarity == nil {
		r.reason = "never profiled, and there is no similarity model to match it to a reference"
		return r
	}
	nb := m.Similarity.NearestTo(m.Similarity.DescribeQuery(desc), k)
	var near *model.Neighbor
	for i := range nb {
		if d.Knows(nb[i].Job) && !math.IsInf(nb[i].Distance, 1) {
			near = &nb[i]
			break
		}
	}
	if near == nil {
		r.reason = "never profiled, and no reference of the similarity model shares a known descriptor with it"
		return r
	}
	t.Workload = near.Job
	t.Params = desc.Params
	if t.BatchSize == 0 {
		t.BatchSize = desc.BatchSize
	}
	r.task, r.reference, r.distance = t, near.Job, near.Distance
	return r
}
