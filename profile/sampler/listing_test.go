package sampler

import (
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/datasets"
)

// twoGPUs is a GPU sampler of two devices; device 1 lacks the power
// counter.
type twoGPUs struct{}

var twoGPUCounters = []datasets.Counter{{Name: "gpu_util", Unit: "%"}, {Name: "power", Unit: "W"}}

func (twoGPUs) Name() string                     { return "fake" }
func (twoGPUs) Counters() []datasets.Counter     { return twoGPUCounters }
func (twoGPUs) Sample(Target) ([]Reading, error) { return nil, nil }
func (twoGPUs) Close() error                     { return nil }
func (twoGPUs) System() System                   { return System{Driver: "550.1", CUDADriver: "12.4", NVML: "12.550"} }
func (twoGPUs) Devices() []Device {
	return []Device{
		{Index: 0, Name: "NVIDIA H200", Type: "h200", MemoryTotal: 141 << 30, GPM: true, Counters: twoGPUCounters},
		{Index: 1, Name: "NVIDIA H200", Type: "h200", MemoryTotal: 141 << 30, Counters: twoGPUCounters[:1],
			Unsupported: []string{"GetPowerUsage"}, Notes: []string{"power probe failed"}},
	}
}

func TestListingText(t *testing.T) {
	d := Detect(func() (GPU, error) { return twoGPUs{}, nil }, DetectOptions{})
	defer d.Close()
	var b bytes.Buffer
	if err := d.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	for _, re := range []string{
		`GPUs: 2 \(driver 550.1, CUDA 12.4, NVML 12.550\)`,
		`\n  0 +h200 +NVIDIA H200 +141.0 GiB .* yes`,
		`\n  gpu_util +% +all`,
		`\n  power +W +0 `,
		`Device 1 does not support: GetPowerUsage`,
		`warning: device 1: power probe failed`,
	} {
		if !regexp.MustCompile(re).MatchString(text) {
			t.Errorf("text lacks %s:\n%s", re, text)
		}
	}

	d = Detect(func() (GPU, error) { return nil, errors.New("no driver") }, DetectOptions{})
	defer d.Close()
	b.Reset()
	d.WriteText(&b)
	if !strings.HasPrefix(b.String(), "GPUs: none. no driver.\n") {
		t.Errorf("without a GPU:\n%s", b.String())
	}
}

func TestListingJSON(t *testing.T) {
	d := Detect(func() (GPU, error) { return twoGPUs{}, nil }, DetectOptions{})
	defer d.Close()
	var b bytes.Buffer
	if err := d.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var doc Listing
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Version != ListingVersion || !doc.GPU.Available || len(doc.GPU.Devices) != 2 {
		t.Fatalf("%+v", doc)
	}
	if got := doc.GPU.Devices[1].Counters; len(got) != 1 || got[0].Name != "gpu_util" {
		t.Errorf("device 1 counters %+v, want gpu_util only", got)
	}
	if len(doc.Warnings) != 1 || doc.Host.Available != (d.Host != nil) {
		t.Errorf("warnings %q, host %v", doc.Warnings, doc.Host.Available)
	}
}
