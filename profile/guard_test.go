package profile

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// tenantSpy lists one process of another tenant on each device it is
// asked about, and records what it was asked and when.
type tenantSpy struct {
	fakeMonitor
	asked      [][]int
	startsThen []int // runs started when Tenants was called
}

func (m *tenantSpy) Tenants(devices []int) []string {
	m.asked = append(m.asked, devices)
	m.startsThen = append(m.startsThen, len(m.started))
	var out []string
	for _, d := range devices {
		out = append(out, fmt.Sprintf("GPU %d already runs 1 compute process(es)", d))
	}
	return out
}

// A CUDA campaign asks, before its first run, what else runs on its GPUs,
// and says so as it starts and in its summary; a CPU campaign does not ask.
func TestCampaignNamesOtherTenants(t *testing.T) {
	for _, kind := range []string{"cuda", "cpu"} {
		t.Run(kind, func(t *testing.T) {
			s := fakeSuite(t, fake("a", "ok"))
			spy := &tenantSpy{}
			c := newCampaign(t, t.TempDir(), s, planOpts("none", 1, 0, 1), spy)
			c.Runner.Options.DeviceKind = kind
			c.Runner.Options.Devices = []Device{{Index: 3, Type: "h200"}, {Index: 5, Type: "h200"}}
			var warned []string
			c.Progress = &warnSpy{warned: &warned}
			sum, err := c.Execute(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if kind == "cpu" {
				if len(spy.asked) != 0 {
					t.Errorf("a CPU campaign asked for the GPUs' tenants: %v", spy.asked)
				}
				return
			}
			if len(spy.asked) != 1 || !slices.Equal(spy.asked[0], []int{3, 5}) || spy.startsThen[0] != 0 {
				t.Fatalf("asked %v with %v runs started, want once, GPUs [3 5], before any run", spy.asked, spy.startsThen)
			}
			for _, want := range []string{"GPU 3 already runs", "GPU 5 already runs"} {
				if !slices.ContainsFunc(warned, func(w string) bool { return strings.Contains(w, want) }) {
					t.Errorf("progress warnings %q lack %q", warned, want)
				}
				if !slices.ContainsFunc(sum.Warnings, func(w string) bool { return strings.Contains(w, want) }) {
					t.Errorf("summary warnings %q lack %q", sum.Warnings, want)
				}
			}
		})
	}
}

// warnSpy is a Progress that keeps the warnings only.
type warnSpy struct {
	nopProgress
	warned *[]string
}

func (p *warnSpy) Warn(msg string) { *p.warned = append(*p.warned, msg) }

// A campaign resumed where the driver or a GPU's power limit changed since
// its earlier runs says so as it starts and in its summary; resumed on the
// same hardware it says nothing of the kind.
func TestCampaignResumedOnChangedHardware(t *testing.T) {
	dir := t.TempDir()
	s := fakeSuite(t, fake("a", "ok"), fake("b", "ok"))
	gpu := Device{Index: 0, Type: "cpu", UUID: "GPU-1", PowerLimitW: 700}
	run := func(driver string, limit float64, po PlanOptions) (*Summary, []string) {
		c := newCampaign(t, dir, s, po, &fakeMonitor{})
		g := gpu
		g.PowerLimitW = limit
		c.Hardware.Devices, c.Hardware.Driver = []Device{g}, driver
		var warned []string
		c.Progress = &warnSpy{warned: &warned}
		sum, err := c.Execute(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return sum, warned
	}
	run("550.54.15", 700, planOpts("none", 1, 0, 1))
	changed := func(w string) bool { return strings.Contains(w, "earlier runs") }
	if _, warned := run("550.54.15", 700, planOpts("none", 1, 0, 1)); slices.ContainsFunc(warned, changed) {
		t.Errorf("same hardware: %q", warned)
	}
	sum, warned := run("560.28.03", 600, planOpts("none", 1, 0, 1))
	for _, want := range []string{
		"the GPU driver was 550.54.15 in the campaign's earlier runs and is 560.28.03 now",
		"GPU 0's power limit was 700 W in the campaign's earlier runs and is 600 W now: runs before and after are not measured alike",
	} {
		has := func(w string) bool { return strings.Contains(w, want) }
		if !slices.ContainsFunc(warned, has) || !slices.ContainsFunc(sum.Warnings, has) {
			t.Errorf("progress warnings %q or summary warnings %q lack %q", warned, sum.Warnings, want)
		}
	}
}
