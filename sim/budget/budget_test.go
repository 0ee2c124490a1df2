package budget

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/model"
	"github.com/coloc-dev/coloc/sim"
	"github.com/coloc-dev/coloc/sim/experiment"
)

const refData = "../../datasets/reference/gavel"

func loadData(t *testing.T) *model.Data {
	t.Helper()
	ds, err := datasets.Open(refData)
	if err != nil {
		t.Fatal(err)
	}
	d, err := model.DataOfWith(ds, model.DataOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// The shares of one order and seed are nested, have the asked number of
// the type's pairs, keep every pair of the other types, and keep a
// pair's spread twin exactly when they keep the pair.
func TestNestedSubsets(t *testing.T) {
	d := loadData(t)
	groups := groupsOf(d)
	g := groups["v100"]
	if g == nil || len(g.keys) == 0 {
		t.Fatal("no v100 pairs in the reference data")
	}
	fr := []float64{0, 0.1, 0.3}
	for _, ord := range Orders {
		subs, warns, err := nested(d, g, ord, 3, fr)
		if err != nil || len(warns) > 0 {
			t.Fatalf("%s: %v %v", ord, err, warns)
		}
		var prev []int
		for i, s := range subs {
			if want := int(math.Round(fr[i] * float64(len(g.keys)))); s.pairs != want {
				t.Errorf("%s at %g: %d pairs, want %d", ord, fr[i], s.pairs, want)
			}
			for _, x := range prev {
				if !slices.Contains(s.obs, x) {
					t.Fatalf("%s at %g: observation %d of the smaller share is missing", ord, fr[i], x)
				}
			}
			prev = s.obs
			own, twin := map[[3]int]bool{}, map[[3]int]bool{}
			others := 0
			for _, i := range s.obs {
				ob := d.Obs[i]
				typ := d.Space.Slots[ob.S].DeviceType
				k := [2]int{min(ob.A, ob.B), max(ob.A, ob.B)}
				switch typ {
				case "v100":
					own[[3]int{k[0], k[1], d.Space.Slots[ob.S].Degree}] = true
				case "v100_unconsolidated":
					twin[[3]int{k[0], k[1], d.Space.Slots[ob.S].Degree}] = true
				default:
					others++
				}
			}
			if len(own) != s.pairs {
				t.Errorf("%s at %g: %d distinct v100 pairs kept, want %d", ord, fr[i], len(own), s.pairs)
			}
			for k := range twin {
				if !own[k] {
					t.Errorf("%s at %g: spread twin %v kept without its pair", ord, fr[i], k)
				}
			}
			all := 0
			for _, ob := range d.Obs {
				if typ := d.Space.Slots[ob.S].DeviceType; !strings.HasPrefix(typ, "v100") {
					all++
				}
			}
			if others != all {
				t.Errorf("%s at %g: %d observations of the other types, want all %d", ord, fr[i], others, all)
			}
		}
	}
	// The orders differ past the random start, and seeds differ.
	a, _, _ := nested(d, g, OrderRandom, 3, []float64{0.3})
	b, _, _ := nested(d, g, OrderNext, 3, []float64{0.3})
	c, _, _ := nested(d, g, OrderRandom, 4, []float64{0.3})
	if slices.Equal(a[0].obs, b[0].obs) || slices.Equal(a[0].obs, c[0].obs) {
		t.Error("random and next, or two seeds, chose the same 30% of the pairs")
	}
}

func tinyOptions(t *testing.T, work string) Options {
	return Options{
		Sweep: experiment.Sweep{
			Traces:   []string{"../../examples/traces/msr/103959.trace"},
			Clusters: []string{"../../examples/cluster-gavel-16.yaml"},
			Data:     refData,
			Degrees:  []string{sim.DegreeTrace},
			MaxJobs:  40,
			Options:  sim.DefaultOptions,
			Env:      sim.Env{Seed: 1},
		},
		Devices:   []string{"k80"},
		Fractions: []float64{0, 0.1},
		Seeds:     1,
		Work:      work,
	}
}

// A run records the reference, coloc without sharing, and every point
// once; share 0 is replayed once for both orders; a second run replays
// nothing and gives the same page; a work directory of other options is
// refused.
func TestRunResumesAndRefusesOtherOptions(t *testing.T) {
	if testing.Short() {
		t.Skip("fits and simulates several times (10 s); not in -short")
	}
	work := t.TempDir()
	o := tinyOptions(t, work)
	var log strings.Builder
	o.Progress = &log
	r, err := Run(o)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Points) != 4 {
		t.Fatalf("%d points, want 2 orders x 2 shares", len(r.Points))
	}
	if len(r.Cases) != 1 || len(r.Reference.AvgJCT) != 1 || len(r.NoSharing.AvgJCT) != 1 {
		t.Fatalf("cases %v, reference %v, no sharing %v", r.Cases, r.Reference.AvgJCT, r.NoSharing.AvgJCT)
	}
	// Fits: the reference, share 0 (once for both orders), 10% random and
	// 10% next.
	if n := strings.Count(log.String(), "fitting on"); n != 4 {
		t.Errorf("%d fits, want 4:\n%s", n, log.String())
	}
	var zero []Point
	for _, p := range r.Points {
		if p.Fraction == 0 {
			zero = append(zero, p)
		}
		if p.Total != r.totalPairs["k80"] || p.Pairs != int(math.Round(p.Fraction*float64(p.Total))) {
			t.Errorf("point %+v: pairs %d of %d", p, p.Pairs, p.Total)
		}
	}
	if len(zero) != 2 || zero[0].Subset != zero[1].Subset || zero[0].AvgJCT[0] != zero[1].AvgJCT[0] {
		t.Errorf("share 0 points %+v: want two with one subset and one result", zero)
	}
	var page1 strings.Builder
	if err := r.WriteMarkdown(&page1, "cmd", ""); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page1.String(), "## k80 (") || !strings.Contains(page1.String(), "| random |") || !strings.Contains(page1.String(), "| next |") {
		t.Errorf("page without its table:\n%s", page1.String())
	}

	log.Reset()
	r2, err := Run(o)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(log.String(), "fitting") {
		t.Errorf("a resumed run fitted again:\n%s", log.String())
	}
	var page2 strings.Builder
	r2.WriteMarkdown(&page2, "cmd", "")
	if page1.String() != page2.String() {
		t.Errorf("resumed page differs:\n%s\n---\n%s", page1.String(), page2.String())
	}
	if entries, _ := os.ReadDir(filepath.Join(work, "models")); len(entries) != 0 {
		t.Errorf("%d model directories left behind", len(entries))
	}

	o2 := o
	o2.Sweep.MaxJobs = 30
	if _, err := Run(o2); err == nil || !strings.Contains(err.Error(), "remove it or choose another work directory") {
		t.Errorf("other options in the same work directory: %v", err)
	}
}

// A checkpoint whose last line was cut short by a crash resumes, the cut
// point replayed again; a torn line in the middle is an error naming it.
func TestCheckpointTornLine(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, PointsFile)
	ck, err := openCheckpoint(path, "fp")
	if err != nil {
		t.Fatal(err)
	}
	p := Point{Device: "k80", Order: OrderRandom, Seed: 1, Fraction: 0.1, Subset: "s", AvgJCT: []float64{1}, Makespan: []float64{2}}
	if err := ck.add(line{Point: p}); err != nil {
		t.Fatal(err)
	}
	ck.close()
	b, _ := os.ReadFile(path)
	os.WriteFile(path, append(b, []byte(`{"device":"k80","ord`)...), 0o644)
	ck, err = openCheckpoint(path, "fp")
	if err != nil {
		t.Fatal(err)
	}
	if len(ck.lines) != 1 || !ck.has(p) {
		t.Errorf("resumed lines %+v", ck.lines)
	}
	ck.close()
	b, _ = os.ReadFile(path)
	if strings.Contains(string(b), `"ord`+"\n") || strings.Count(string(b), "\n") != 2 {
		t.Errorf("torn line kept:\n%s", b)
	}
	os.WriteFile(path, append(b[:len(b)-1], []byte("x\n{}\n")...), 0o644)
	if _, err := openCheckpoint(path, "fp"); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("torn middle line: %v", err)
	}
	if _, err := openCheckpoint(path, "other"); err == nil {
		t.Error("another fingerprint was accepted")
	}
}

func TestRunRejectsBadOptions(t *testing.T) {
	o := tinyOptions(t, t.TempDir())
	for name, mod := range map[string]func(*Options){
		"seeds":    func(o *Options) { o.Seeds = 0 },
		"fraction": func(o *Options) { o.Fractions = []float64{1} },
		"order":    func(o *Options) { o.Orders = []string{"best"} },
		"device":   func(o *Options) { o.Devices = []string{"h200"} },
	} {
		x := o
		mod(&x)
		if _, err := Run(x); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
