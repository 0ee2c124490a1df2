package profile

import (
	"strings"
	"testing"
)

func TestStreamLines(t *testing.T) {
	lines := []string{
		`{"type":"meta","model":"resnet18","class":"cnn","params":11689512,"flops_per_sample":1.82e9,"layers":{"conv":20,"linear":1},"batch_size":32,"precision":"fp32","device":"cuda","world_size":1,"torch":"2.5.1"}`,
		`Epoch 1`,
		`{"type":"step","step":1,"samples":32,"time":10.5}`,
		`{"type":"step","step":2,"samples":64,"time":10.75}`,
		`{"type":"step","step":2,"samples":96,"time":11.0}`, // step number repeats
		`{"type":"step","step":3,"samples":96}`,             // no time
		`{"type":"progress","pct":50}`,
		`   `,
		`{"type":"step","step":3,"samples":96,"time":11.0}`,
		`{"type":"end","steps":3,"samples":96,"time":11.1,"peak_memory_bytes":1234567890}`,
	}
	var s lineStream
	for i, l := range lines {
		s.Line([]byte(l+"\n"), float64(i))
	}
	if s.Meta == nil || s.Meta.Model != "resnet18" || s.Meta.Torch != "2.5.1" || *s.Meta.FlopsPerSample != 1.82e9 || s.Meta.Layers["conv"] != 20 {
		t.Errorf("meta %+v", s.Meta)
	}
	if len(s.Steps) != 3 || s.Steps[2].Samples != 96 || s.Steps[2].Recv != 8 {
		t.Errorf("steps %+v", s.Steps)
	}
	if pm, ok := s.PeakMemory(); !ok || pm != 1234567890 {
		t.Errorf("peak %v %v", pm, ok)
	}
	if s.Ignored != 4 {
		t.Errorf("ignored %d lines, want 4", s.Ignored)
	}
	w := strings.Join(s.Warnings(), "\n")
	for _, want := range []string{"4 stdout lines ignored", `"Epoch 1" (not JSON)`, "goes backwards", "step line needs step, samples and time"} {
		if !strings.Contains(w, want) {
			t.Errorf("warnings %q lack %q", w, want)
		}
	}
}

func TestStreamCPUEnd(t *testing.T) {
	var s lineStream
	s.Line([]byte(`{"type":"end","steps":3,"samples":96,"time":11.1,"peak_memory_bytes":null}`), 0)
	if _, ok := s.PeakMemory(); ok {
		t.Error("null peak memory read as known")
	}
}
