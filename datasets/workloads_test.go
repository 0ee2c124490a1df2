package datasets

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestWorkloadsRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), WorkloadsFile)
	in := []WorkloadMeta{
		{Workload: "resnet18-tiny", Model: "resnet18", Class: "cnn", Params: 11e6, ForwardFLOPs: 5.5e8, Layers: map[string]int{"conv": 20}, BatchSize: 8, Precision: "fp32"},
		{Workload: "lstm-tiny", Class: "rnn", Params: 2e5},
	}
	if err := WriteWorkloads(path, in); err != nil {
		t.Fatal(err)
	}
	got, err := ReadWorkloads(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []WorkloadMeta{in[1], in[0]} // sorted by name
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	os.WriteFile(path, []byte(`{"format":"coloc.workloads","version":9,"workloads":[]}`), 0o644)
	if _, err := ReadWorkloads(path); !errors.Is(err, ErrVersion) {
		t.Errorf("version 9: %v", err)
	}
}
