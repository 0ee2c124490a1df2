package place

import (
	"testing"

	"github.com/coloc-dev/coloc/features"
)

// A job of a known model family at a batch size never measured is matched
// by similarity from its family's known descriptor.
func TestResolveKnownFamily(t *testing.T) {
	d, m := gavelData(t), fastModels(t)
	l := jobList(t, "version: 1\njobs:\n  - {id: r48, workload: \"ResNet-50 (batch size 48)\", steps: 1}\n")
	r := resolve(&l.Jobs[0], d, m, 3)
	if r.task == nil || r.reference == "" || !d.Knows(r.reference) || r.task.Workload != r.reference {
		t.Fatalf("resolved %+v", r)
	}
	if want := features.KnownModels["ResNet-50"].Params; r.task.Params != want {
		t.Errorf("params %v, want ResNet-50's known %v", r.task.Params, want)
	}
	t.Logf("ResNet-50 (batch size 48) stands for %s (distance %.3f)", r.reference, r.distance)
}
