package sim

import (
	"path/filepath"
	"testing"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/place/cluster"
)

// reference loads the shipped Gavel rates and the example cluster.
func reference(t testing.TB) (*Measured, *Topology) {
	t.Helper()
	ds, err := datasets.Open(filepath.Join("..", "datasets", "reference", "gavel"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewMeasured(ds.Solo, ds.Pairs)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := cluster.Load(filepath.Join("..", "examples", "cluster-gavel.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	tp, err := NewTopology(spec)
	if err != nil {
		t.Fatal(err)
	}
	return m, tp
}

// Every shipped trace replays under every baseline on the example cluster
// with the shipped rates: no policy error, every job done or reported.
func TestShippedTracesReplay(t *testing.T) {
	if testing.Short() {
		t.Skip("replays the shipped traces")
	}
	m, tp := reference(t)
	traces, err := filepath.Glob(filepath.Join("..", "examples", "traces", "*", "*.trace"))
	if err != nil || len(traces) == 0 {
		t.Fatalf("no shipped traces (%v)", err)
	}
	for _, path := range traces {
		tr, err := LoadTrace(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, info := range Baselines() {
			pol, err := info.New(Env{Seed: 1, Solo: SoloOnly(m), Truth: m})
			if err != nil {
				t.Fatal(err)
			}
			r, err := Run(tp, tr.Jobs, m, pol, DefaultOptions)
			if err != nil {
				t.Fatalf("%s under %s: %v", path, info.Name, err)
			}
			if r.Completed+r.Unrunnable != len(tr.Jobs) || r.Completed == 0 {
				t.Errorf("%s under %s: %d done + %d unrunnable of %d jobs", path, info.Name, r.Completed, r.Unrunnable, len(tr.Jobs))
			}
			if r.GPUUtil <= 0 || r.GPUUtil > 1 {
				t.Errorf("%s under %s: utilisation %v outside (0, 1]", path, info.Name, r.GPUUtil)
			}
		}
	}
}

// BenchmarkReplayMSR replays a 951-job msr trace under each baseline on
// the 108-GPU example cluster.
func BenchmarkReplayMSR(b *testing.B) {
	m, tp := reference(b)
	tr, err := LoadTrace(filepath.Join("..", "examples", "traces", "msr", "ed69ec.trace"))
	if err != nil {
		b.Fatal(err)
	}
	for _, info := range Baselines() {
		b.Run(info.Name, func(b *testing.B) {
			for b.Loop() {
				pol, _ := info.New(Env{Seed: 1, Solo: SoloOnly(m), Truth: m})
				if _, err := Run(tp, tr.Jobs, m, pol, DefaultOptions); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
