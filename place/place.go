package place

import (
	"fmt"
	"math"
	"strings"

	"github.com/coloc-dev/coloc/policy"
)

// option is one way to place a task: free GPUs (gpus) or the GPUs of a
// group it joins (grp).
type option struct {
	typ, degree int
	gpus        []GPU
	grp         *group
	spread      bool
	rate, eff   float64
	y           float64 // the task's predicted normalized throughput there (NLWP, capped at 1); 1 alone
	cost        float64 // NLWP cost, communication included
	commS, frac float64
}

// value is the task's predicted throughput on the option: what the GPU
// type choice maximises.
func (o *option) value() float64 { return o.rate * o.y }

// better reports whether a is preferred to b: higher predicted
// throughput, then lower cost; on a tie the earlier (b) stays.
func better(a, b *option) bool {
	const tol = 1e-12
	va, vb := a.value(), b.value()
	if math.Abs(va-vb) > tol*math.Max(1, math.Abs(vb)) {
		return va > vb
	}
	return a.cost < b.cost-tol
}

// Place decides where t goes and takes the GPUs: the GPU type and degree
// with the highest predicted throughput, on it the node CLWP ranks first
// where NLWP finds GPUs (see the package doc). When t cannot be placed it
// returns nil and the reason.
func (e *Engine) Place(t *Task) (*Placed, string) {
	if len(t.Degrees) == 0 {
		return nil, "no allowed degree"
	}
	most, mostType := 0, ""
	for ti, n := range e.count {
		if n > most {
			most, mostType = n, e.types[ti]
		}
	}
	if t.Degrees[0] > most {
		return nil, fmt.Sprintf("needs at least %d GPUs of one type; the cluster has at most %d (%s)", t.Degrees[0], most, mostType)
	}
	var best *option
	var why []string
	for ti := range e.types {
		o, w := e.bestOnType(t, ti)
		if o == nil {
			why = append(why, w)
			continue
		}
		if best == nil || better(o, best) {
			best = o
		}
	}
	if best == nil {
		return nil, strings.Join(why, "; ")
	}
	return e.commit(t, best), ""
}

// bestOnType places t on GPU type ti if it can: the degree ChooseDegree
// picks from t's curve within the GPUs with room, a smaller one when that
// finds no placement.
func (e *Engine) bestOnType(t *Task, ti int) (*option, string) {
	typ := e.types[ti]
	var curve []policy.ScalingPoint
	for _, d := range t.Degrees {
		if d > e.count[ti] {
			continue
		}
		r, ok := 0.0, false
		if d <= e.largest[ti] {
			r, ok = e.est.Solo(t, typ, d, false)
		}
		if !ok && d > 1 {
			r, ok = e.est.Solo(t, typ, d, true)
		}
		if ok && r > 0 {
			curve = append(curve, policy.ScalingPoint{Degree: d, Throughput: r})
		}
	}
	if len(curve) == 0 {
		if t.Degrees[0] > e.count[ti] {
			return nil, fmt.Sprintf("%s: needs %d GPUs, the cluster has %d", typ, t.Degrees[0], e.count[ti])
		}
		return nil, fmt.Sprintf("%s: no measured throughput of %s at %s GPU(s)", typ, t.Workload, joinInts(t.Degrees))
	}
	room, fits := 0, false
	maxMem := 0.0
	for _, ni := range e.ofType[ti] {
		n := &e.nodes[ni]
		maxMem = math.Max(maxMem, n.spec.MemoryGB)
		if !memFits(t.MemoryGB, 0, n.spec.MemoryGB) {
			continue
		}
		fits = true
		for _, g := range n.gpus {
			if g == nil || len(g.members) < e.opt.Thresholds.MaxPerGPU {
				room++
			}
		}
	}
	if !fits {
		return nil, fmt.Sprintf("%s: needs %.3g GB per GPU, its GPUs have %.3g GB", typ, t.MemoryGB, maxMem)
	}
	if room == 0 {
		return nil, fmt.Sprintf("%s: all %d GPUs hold %d job(s)", typ, e.count[ti], e.opt.Thresholds.MaxPerGPU)
	}
	smallest := policy.ScalingPoints(curve)[0].Degree
	maxD := room
	for maxD >= smallest {
		p, ok := policy.ChooseDegree(curve, e.opt.Thresholds.ScalingEfficiency, maxD)
		if !ok {
			break
		}
		if o := e.placeOn(t, ti, p); o != nil {
			return o, ""
		}
		maxD = p.Degree - 1
	}
	free := 0
	for _, ni := range e.ofType[ti] {
		free += e.nodes[ni].free
	}
	return nil, fmt.Sprintf("%s: no room (%d of %d GPUs free; no co-location keeps every job at or above %.2f predicted normalized throughput)",
		typ, free, e.count[ti], e.opt.Thresholds.MinNormalized)
}

// placeOn finds a placement of t at degree p.Degree on type ti: on one
// node (CLWP ranks the nodes, NLWP picks the GPUs on the first that has
// a placement), else spread over nodes' free GPUs.
func (e *Engine) placeOn(t *Task, ti int, p policy.ScalingPoint) *option {
	typ, d := e.types[ti], p.Degree
	if d <= e.largest[ti] {
		if rate, ok := e.est.Solo(t, typ, d, false); ok && rate > 0 {
			step, stepOK := StepTime(rate, e.opt.Unit, d, t.BatchSize)
			for _, ni := range e.clwp(t, ti, d, step, stepOK) {
				if o := e.nlwp(t, ti, d, ni, rate, step, stepOK); o != nil {
					o.eff = p.Efficiency
					return o
				}
			}
		}
	}
	if d > 1 {
		if rate, ok := e.est.Solo(t, typ, d, true); ok && rate > 0 {
			if o := e.spread(t, ti, d, rate); o != nil {
				o.eff = p.Efficiency
				return o
			}
		}
	}
	return nil
}

func (e *Engine) commit(t *Task, o *option) *Placed {
	p := &Placed{Task: t, GPUType: e.types[o.typ], Degree: o.degree, Spread: o.spread, Rate: o.rate, Efficiency: o.eff, CommS: o.commS, CommFrac: o.frac}
	g := o.grp
	if g == nil {
		g = e.newGroup(o.typ, o.gpus)
	}
	p.GPUs = g.gpus
	e.join(g, p)
	return p
}

// Normalized returns p's normalized throughput next to its partners as
// est gives it at level l (the product over partners, not capped), and
// the sources of the values; 1 and no source when p is alone.
func (p *Placed) Normalized(est Estimator, l Level) (float64, []string) {
	y := 1.0
	var src []string
	for _, q := range p.Partners() {
		v, s, ok := est.Normalized(l, p.Task, q.Task, p.GPUType, p.Degree)
		if !ok {
			return math.NaN(), append(src, "unknown")
		}
		y *= v
		src = append(src, s)
	}
	return y, src
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ",")
}
