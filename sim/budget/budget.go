package budget

import (
	"bufio"
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/internal/atomicfile"
	"github.com/coloc-dev/coloc/internal/outlock"
	"github.com/coloc-dev/coloc/model"
	"github.com/coloc-dev/coloc/sim/experiment"
)

// Orders in which a campaign profiles a GPU type's pairs.
const (
	OrderRandom = "random" // seeded random order
	OrderNext   = "next"   // `coloc profile next`: a random start, then widest narrowing first
)

// Orders lists the orders, in page order.
var Orders = []string{OrderRandom, OrderNext}

const (
	// StartShare is the share of a type's pairs profiled at random before
	// order next chooses; StepShare the share it chooses per batch.
	StartShare = 0.05
	StepShare  = 0.05
	// PointsFile is the checkpoint in Options.Work; PointsFormat and
	// PointsVersion its header.
	PointsFile    = "points.jsonl"
	PointsFormat  = "coloc-budget-points"
	PointsVersion = 1
)

// DefaultFractions are the shares of a type's pairs profiled; 1 (every
// pair) is the reference, always run.
var DefaultFractions = []float64{0, 0.1, 0.2, 0.3, 0.5}

// Models are the models coloc decides with, fit for every point.
var Models = []string{"iasp", "iapp", "similarity"}

// Options say what to replay and which budgets to try.
type Options struct {
	// Sweep is the replay: traces, clusters, dataset (Data: the ground
	// truth and the pairs the models are fit on), degree modes, cut and
	// workers. Policies, Config.Models, Reference, Peers and Progress are
	// set per point.
	Sweep experiment.Sweep
	// Devices are the GPU types whose pairs are cut, one at a time
	// (empty: every type with measured pairs).
	Devices   []string
	Fractions []float64 // shares in [0, 1); empty: DefaultFractions
	Orders    []string  // empty: Orders
	Seeds     int       // random orders per type and order (>= 1)
	// Work holds the checkpoint and, while a point replays, its models.
	Work     string
	Progress io.Writer
}

// Command is the command line that runs these options, for the page.
func (o Options) Command() string {
	s := o.Sweep
	line := fmt.Sprintf("coloc simulate budget --traces %s --clusters %s --data %s --degree %s --max-jobs %d --seeds %d",
		strings.Join(s.Traces, ","), strings.Join(s.Clusters, ","), s.Data, strings.Join(s.Degrees, ","), s.MaxJobs, o.Seeds)
	if len(o.Devices) > 0 {
		line += " --devices " + strings.Join(o.Devices, ",")
	}
	if len(o.Fractions) > 0 {
		line += " --fractions " + strings.Trim(strings.Join(strings.Fields(fmt.Sprint(o.Fractions)), ","), "[]")
	}
	if len(o.Orders) > 0 {
		line += " --orders " + strings.Join(o.Orders, ",")
	}
	return line + " --work W --markdown FILE"
}

// Point is coloc's replay of every case with the models fit on one
// subset of one type's pairs.
type Point struct {
	Device   string  `json:"device"` // "" for the reference (every pair)
	Order    string  `json:"order"`
	Seed     int     `json:"seed"`
	Fraction float64 `json:"fraction"`
	Pairs    int     `json:"pairs"` // unordered pairs of the type fit on
	Total    int     `json:"total"` // unordered pairs of the type measured
	// Subset is the SHA-256 of the measured pairs fit on (all types).
	Subset   string    `json:"subset"`
	AvgJCT   []float64 `json:"avg_jct_s"`  // per case, in Result.Cases order
	Makespan []float64 `json:"makespan_s"` // per case
}

// Result holds every point. The reference has coloc with every pair
// (Reference) and coloc with sharing off (NoSharing).
type Result struct {
	Cases      []string
	Reference  Point
	NoSharing  Point
	Points     []Point
	Warnings   []string
	devices    []string
	fractions  []float64
	orders     []string
	totalPairs map[string]int
}

type header struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	Options string `json:"options"`
}

// line is one checkpoint record after the header.
type line struct {
	Point
	NoSharing bool     `json:"no_sharing,omitempty"`
	Cases     []string `json:"cases,omitempty"`
}

// group is one GPU type's pairs: the slots of the type (every degree),
// their spread twins (datasets.SpreadType), and the unordered pairs measured on the
// type's own slots.
type group struct {
	slots []int
	twin  map[int]int // twin slot -> the type's slot of that degree
	keys  [][3]int    // {min job, max job, slot}, by slot, then jobs
	pool  map[[3]int]bool
}

// Run replays the reference and every (type, order, seed, share) point,
// resuming from Work's checkpoint.
func Run(o Options) (*Result, error) {
	if o.Seeds < 1 {
		return nil, fmt.Errorf("budget: seeds %d: want at least 1", o.Seeds)
	}
	if o.Work == "" {
		return nil, fmt.Errorf("budget: no work directory")
	}
	fr := o.Fractions
	if len(fr) == 0 {
		fr = DefaultFractions
	}
	fr = slices.Clone(fr)
	sort.Float64s(fr)
	fr = slices.Compact(fr)
	for _, f := range fr {
		if !(f >= 0 && f < 1) {
			return nil, fmt.Errorf("budget: fraction %v: want a share in [0, 1) (1, every pair, is the reference)", f)
		}
	}
	orders := o.Orders
	if len(orders) == 0 {
		orders = Orders
	}
	for _, ord := range orders {
		if !slices.Contains(Orders, ord) {
			return nil, fmt.Errorf("budget: order %q: want %s", ord, strings.Join(Orders, " or "))
		}
	}
	ds, err := datasets.Open(o.Sweep.Data)
	if err != nil {
		return nil, err
	}
	d, err := model.DataOfWith(ds, model.DataOptions{})
	if err != nil {
		return nil, err
	}
	groups := groupsOf(d)
	devices := o.Devices
	if len(devices) == 0 {
		for t, g := range groups {
			if len(g.keys) > 0 {
				devices = append(devices, t)
			}
		}
		sort.Strings(devices)
	}
	res := &Result{fractions: fr, orders: orders, totalPairs: map[string]int{}}
	for _, t := range devices {
		g, ok := groups[t]
		if !ok || len(g.keys) == 0 {
			var known []string
			for k, g := range groups {
				if len(g.keys) > 0 {
					known = append(known, k)
				}
			}
			sort.Strings(known)
			return nil, fmt.Errorf("budget: GPU type %q has no measured pairs in %s (types with pairs: %s)", t, o.Sweep.Data, strings.Join(known, ", "))
		}
		res.totalPairs[t] = len(g.keys)
	}
	res.devices = devices
	if err := os.MkdirAll(o.Work, 0o755); err != nil {
		return nil, err
	}
	lock, err := outlock.Output(o.Work, outlock.Options{What: "work directory " + o.Work, Fix: "choose another --work"})
	if err != nil {
		return nil, err
	}
	defer lock.Unlock()
	ck, err := openCheckpoint(filepath.Join(o.Work, PointsFile), fingerprint(o))
	if err != nil {
		return nil, err
	}
	defer ck.close()
	r := &runner{o: o, d: d, ck: ck, res: res}

	// The reference: every pair, with and without sharing.
	if ck.ref == nil {
		all := make([]int, len(d.Obs))
		for i := range all {
			all[i] = i
		}
		p := Point{Order: "all", Fraction: 1, Subset: subsetSum(all)}
		cases, err := r.replay(&p, all, []string{"coloc", "coloc-no-sharing"})
		if err != nil {
			return nil, err
		}
		if err := ck.add(line{Point: p, Cases: cases.names}); err != nil {
			return nil, err
		}
		if err := ck.add(line{Point: cases.second, NoSharing: true}); err != nil {
			return nil, err
		}
	}
	if ck.ref == nil || ck.noShare == nil {
		return nil, fmt.Errorf("%s: the reference points are missing", ck.path)
	}
	res.Reference, res.NoSharing, res.Cases = ck.ref.Point, ck.noShare.Point, ck.ref.Cases

	for _, t := range devices {
		g := groups[t]
		for _, ord := range orders {
			for seed := 1; seed <= o.Seeds; seed++ {
				subsets, warns, err := nested(d, g, ord, uint64(seed), fr)
				if err != nil {
					return nil, fmt.Errorf("budget: %s, order %s, seed %d: %w", t, ord, seed, err)
				}
				res.Warnings = append(res.Warnings, warns...)
				for i, f := range fr {
					p := Point{Device: t, Order: ord, Seed: seed, Fraction: f, Pairs: subsets[i].pairs, Total: len(g.keys)}
					if err := r.point(p, subsets[i].obs); err != nil {
						return nil, err
					}
				}
			}
		}
	}
	for _, l := range ck.lines {
		if l.Device != "" && slices.Contains(devices, l.Device) && slices.Contains(orders, l.Order) && l.Seed <= o.Seeds && slices.Contains(fr, l.Fraction) {
			res.Points = append(res.Points, l.Point)
		}
	}
	return res, nil
}

type runner struct {
	o   Options
	d   *model.Data
	ck  *checkpoint
	res *Result
}

// point replays one point unless the checkpoint has it, or has its subset.
func (r *runner) point(p Point, obs []int) error {
	if r.ck.has(p) {
		return nil
	}
	p.Subset = subsetSum(obs)
	if same := r.ck.bySubset[p.Subset]; same != nil {
		p.AvgJCT, p.Makespan = same.AvgJCT, same.Makespan
		return r.ck.add(line{Point: p})
	}
	if _, err := r.replay(&p, obs, []string{"coloc"}); err != nil {
		return err
	}
	return r.ck.add(line{Point: p})
}

type replayed struct {
	names  []string
	second Point // the second policy's metrics, when there is one
}

// replay fits the models on the observations obs (indices into d.Obs)
// and replays every case under the policies, the first one's metrics into
// p.
func (r *runner) replay(p *Point, obs []int, pols []string) (replayed, error) {
	name := "reference"
	if p.Device != "" {
		name = fmt.Sprintf("%s-%s-%d-%g", p.Device, p.Order, p.Seed, p.Fraction)
	}
	if r.o.Progress != nil {
		fmt.Fprintf(r.o.Progress, "budget: %s: fitting on %d of %d measured pairs (ordered)\n", name, len(obs), len(r.d.Obs))
	}
	sub := &model.Data{Space: r.d.Space, Files: r.d.Files}
	for _, i := range obs {
		sub.Obs = append(sub.Obs, r.d.Obs[i])
	}
	fitted, err := model.FitCalibrated(sub, Models, model.DefaultSeed, model.TrustOptions{Coverage: model.DefaultTrustOptions.Coverage}, 0)
	if err != nil {
		return replayed{}, fmt.Errorf("budget: %s: %w", name, err)
	}
	dir := filepath.Join(r.o.Work, "models", name)
	if _, err := model.WriteDir(dir, sub, fitted); err != nil {
		return replayed{}, err
	}
	defer os.RemoveAll(dir)
	s := r.o.Sweep
	s.Policies, s.Reference, s.Peers, s.Progress = pols, pols[0], nil, nil
	s.Config.Models = dir
	cases, err := s.Run()
	if err != nil {
		return replayed{}, fmt.Errorf("budget: %s: %w", name, err)
	}
	var out replayed
	out.second = Point{Order: "no-sharing", Fraction: 1, Subset: p.Subset}
	for _, c := range cases {
		out.names = append(out.names, c.String())
		p.AvgJCT = append(p.AvgJCT, c.Results[0].AvgJCT)
		p.Makespan = append(p.Makespan, c.Results[0].Makespan)
		if len(c.Results) > 1 {
			out.second.AvgJCT = append(out.second.AvgJCT, c.Results[1].AvgJCT)
			out.second.Makespan = append(out.second.Makespan, c.Results[1].Makespan)
		}
	}
	if r.res.Cases != nil && !slices.Equal(out.names, r.res.Cases) {
		return replayed{}, fmt.Errorf("budget: %s: the cases differ from the reference's", name)
	}
	if r.o.Progress != nil {
		fmt.Fprintf(r.o.Progress, "budget: %s: %d cases replayed\n", name, len(cases))
	}
	return out, nil
}

// groupsOf returns the pairs of each GPU type with measured pairs, keyed
// by type.
func groupsOf(d *model.Data) map[string]*group {
	out := map[string]*group{}
	slotOf := map[model.Slot]int{}
	for i, s := range d.Space.Slots {
		slotOf[s] = i
	}
	for i, s := range d.Space.Slots {
		base, isTwin := datasets.BaseType(s.DeviceType)
		g := out[base]
		if g == nil {
			g = &group{twin: map[int]int{}, pool: map[[3]int]bool{}}
			out[base] = g
		}
		if !isTwin {
			g.slots = append(g.slots, i)
			continue
		}
		if j, ok := slotOf[model.Slot{DeviceType: base, Degree: s.Degree}]; ok {
			g.twin[i] = j
		}
	}
	for _, ob := range d.Obs {
		base, _ := datasets.BaseType(d.Space.Slots[ob.S].DeviceType)
		if g := out[base]; slices.Contains(g.slots, ob.S) {
			k := [3]int{min(ob.A, ob.B), max(ob.A, ob.B), ob.S}
			if !g.pool[k] {
				g.pool[k] = true
				g.keys = append(g.keys, k)
			}
		}
	}
	for _, g := range out {
		slices.SortFunc(g.keys, func(x, y [3]int) int {
			return cmp.Or(cmp.Compare(x[2], y[2]), cmp.Compare(x[0], y[0]), cmp.Compare(x[1], y[1]))
		})
	}
	return out
}

type subset struct {
	obs   []int // indices into d.Obs to fit on
	pairs int   // unordered pairs of the type among them
}

// nested returns, for each share of fr (ascending), the observations kept:
// every observation of the other types and those of the type's revealed
// pairs (and their twins), the revealed sets nested.
func nested(d *model.Data, g *group, order string, seed uint64, fr []float64) ([]subset, []string, error) {
	n := len(g.keys)
	perm := rand.New(rand.NewPCG(seed, 0xb0d9e7)).Perm(n)
	revealed := map[[3]int]bool{}
	var picked [][3]int // in reveal order
	reveal := func(k [3]int) {
		if !revealed[k] {
			revealed[k] = true
			picked = append(picked, k)
		}
	}
	var warns []string
	step := max(1, int(math.Round(StepShare*float64(n))))
	start := max(1, int(math.Round(StartShare*float64(n))))
	next := 0 // position in perm
	var out []subset
	for _, f := range fr {
		want := min(n, int(math.Round(f*float64(n))))
		for len(picked) < want {
			if order == OrderRandom || len(picked) < start {
				reveal(g.keys[perm[next]])
				next++
				for next < n && revealed[g.keys[perm[next]]] {
					next++
				}
				continue
			}
			picks, err := selectNext(d, g, revealed, min(step, want-len(picked)), seed*1000+uint64(len(picked)))
			if err != nil {
				return nil, nil, err
			}
			if len(picks) == 0 {
				warns = append(warns, fmt.Sprintf("order next, seed %d: no pair left to choose at %d of %d pairs; the rest at random", seed, len(picked), n))
				order = OrderRandom
				continue
			}
			for _, c := range picks {
				reveal([3]int{c.A, c.B, c.S})
			}
		}
		out = append(out, subset{obs: keep(d, g, revealed), pairs: len(picked)})
	}
	return out, warns, nil
}

// selectNext asks model.SelectPairs for the next batch of the type's
// pairs, given those revealed.
func selectNext(d *model.Data, g *group, revealed map[[3]int]bool, budget int, seed uint64) ([]model.Candidate, error) {
	var measured []model.Obs
	for _, ob := range d.Obs {
		if slices.Contains(g.slots, ob.S) && revealed[[3]int{min(ob.A, ob.B), max(ob.A, ob.B), ob.S}] {
			measured = append(measured, ob)
		}
	}
	// Only measured pairs may be picked (the others could not be replayed
	// with a truth), and none twice.
	skip := map[[3]int]bool{}
	nj := len(d.Space.Jobs)
	for _, s := range g.slots {
		for a := 0; a < nj; a++ {
			for b := a; b < nj; b++ {
				k := [3]int{a, b, s}
				if !g.pool[k] || revealed[k] {
					skip[k] = true
				}
			}
		}
	}
	return model.SelectPairs(d.Space, measured, skip, g.slots, model.SelectOptions{Strategy: model.StrategyWidth, Budget: budget, Seed: seed})
}

// keep returns the indices of the observations fit on.
func keep(d *model.Data, g *group, revealed map[[3]int]bool) []int {
	var out []int
	for i, ob := range d.Obs {
		s := ob.S
		if t, ok := g.twin[s]; ok {
			s = t
		} else if !slices.Contains(g.slots, s) {
			out = append(out, i)
			continue
		}
		if revealed[[3]int{min(ob.A, ob.B), max(ob.A, ob.B), s}] {
			out = append(out, i)
		}
	}
	return out
}

func subsetSum(obs []int) string {
	h := sha256.New()
	var b [8]byte
	for _, i := range obs {
		binary.LittleEndian.PutUint64(b[:], uint64(i))
		h.Write(b[:])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// fingerprint names what a point's numbers depend on besides its own
// fields: the replay's inputs and settings.
func fingerprint(o Options) string {
	s := o.Sweep
	b, _ := json.Marshal(struct {
		Traces, Clusters, Degrees []string
		Data                      string
		MaxJobs                   int
		Env                       any
		Options                   any
		Models                    []string
		Start, Step               float64
	}{s.Traces, s.Clusters, s.Degrees, s.Data, s.MaxJobs,
		[]any{s.Env.Seed, s.Config.Durations, s.Config.Decide, s.Env.Settings, s.Config.MinNormalized}, s.Options, Models, StartShare, StepShare})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:12])
}

// checkpoint is Work/points.jsonl: a header, then one line per point.
type checkpoint struct {
	path     string
	f        *os.File
	lines    []line
	ref      *line
	noShare  *line
	bySubset map[string]*Point
}

func openCheckpoint(path, fp string) (*checkpoint, error) {
	ck := &checkpoint{path: path, bySubset: map[string]*Point{}}
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		h, _ := json.Marshal(header{PointsFormat, PointsVersion, fp})
		if err := atomicfile.WriteBytes(path, append(h, '\n')); err != nil {
			return nil, err
		}
	case err != nil:
		return nil, err
	default:
		sc := bufio.NewScanner(strings.NewReader(string(b)))
		sc.Buffer(nil, 64<<20)
		row := 0
		for sc.Scan() {
			row++
			if row == 1 {
				var h header
				if err := json.Unmarshal(sc.Bytes(), &h); err != nil || h.Format != PointsFormat {
					return nil, fmt.Errorf("%s: line 1: not a %s file", path, PointsFormat)
				}
				if h.Version != PointsVersion {
					return nil, fmt.Errorf("%s: line 1: version %d, this coloc reads version %d", path, h.Version, PointsVersion)
				}
				if h.Options != fp {
					return nil, fmt.Errorf("%s: its points were replayed with other traces, clusters, data or settings (fingerprint %s, now %s): remove it or choose another work directory", path, h.Options, fp)
				}
				continue
			}
			var l line
			if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
				// A line cut short by a crash is the last one: it is
				// replayed again.
				if !strings.HasSuffix(string(b), "\n") && row == strings.Count(string(b), "\n")+1 {
					break
				}
				return nil, fmt.Errorf("%s: line %d: %w", path, row, err)
			}
			if len(l.AvgJCT) == 0 || len(l.AvgJCT) != len(l.Makespan) {
				return nil, fmt.Errorf("%s: line %d: %d average JCTs and %d makespans, want as many as cases and at least one", path, row, len(l.AvgJCT), len(l.Makespan))
			}
			ck.remember(l)
		}
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if row == 0 {
			return nil, fmt.Errorf("%s: empty: want a %s header", path, PointsFormat)
		}
		// Rewrite without a torn last line before appending.
		var buf strings.Builder
		h, _ := json.Marshal(header{PointsFormat, PointsVersion, fp})
		buf.Write(append(h, '\n'))
		for _, l := range ck.lines {
			x, _ := json.Marshal(l)
			buf.Write(append(x, '\n'))
		}
		if err := atomicfile.WriteBytes(path, []byte(buf.String())); err != nil {
			return nil, err
		}
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return nil, err
	}
	ck.f = f
	return ck, nil
}

// remember indexes a line. The pointers it keeps outlive a grow of
// ck.lines: lines are never changed once added.
func (ck *checkpoint) remember(l line) {
	ck.lines = append(ck.lines, l)
	last := &ck.lines[len(ck.lines)-1]
	switch {
	case l.NoSharing:
		ck.noShare = last
	case l.Device == "":
		ck.ref = last
	}
	if !l.NoSharing {
		ck.bySubset[l.Subset] = &last.Point
	}
}

func (ck *checkpoint) has(p Point) bool {
	for _, l := range ck.lines {
		if l.Device == p.Device && l.Order == p.Order && l.Seed == p.Seed && l.Fraction == p.Fraction && !l.NoSharing {
			return true
		}
	}
	return false
}

// add appends a line and syncs it, so that a crash loses at most the
// point being replayed.
func (ck *checkpoint) add(l line) error {
	b, err := json.Marshal(l)
	if err != nil {
		return err
	}
	if _, err := ck.f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("%s: %w", ck.path, err)
	}
	if err := ck.f.Sync(); err != nil {
		return fmt.Errorf("%s: %w", ck.path, err)
	}
	ck.remember(l)
	return nil
}

func (ck *checkpoint) close() {
	if ck.f != nil {
		ck.f.Close()
	}
}
