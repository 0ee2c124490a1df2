package place

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/coloc-dev/coloc/place/cluster"
	"github.com/coloc-dev/coloc/policy"
)

// Options are the engine's parameters.
type Options struct {
	Thresholds policy.Thresholds
	// Unit is the unit of the estimator's throughputs, "iterations/s" or
	// "samples/s": it says how long one synchronous step takes (see
	// StepTime), which weighs the communication cost.
	Unit string
}

// Validate checks the thresholds.
func (o Options) Validate() error {
	t := o.Thresholds
	switch {
	case t.MaxPerGPU < 1:
		return fmt.Errorf("max jobs per GPU %d: want at least 1", t.MaxPerGPU)
	case !(t.MinNormalized >= 0 && t.MinNormalized <= 1):
		return fmt.Errorf("min normalized throughput %v: want a number in [0, 1]", t.MinNormalized)
	case !(t.ScalingEfficiency >= 0 && t.ScalingEfficiency <= 1):
		return fmt.Errorf("scaling efficiency %v: want a number in [0, 1]", t.ScalingEfficiency)
	case t.SimilarityK < 1:
		return fmt.Errorf("similarity k %d: want at least 1", t.SimilarityK)
	}
	return nil
}

// GPU names one GPU of the engine's cluster: its node (an index into the
// nodes the engine was built with) and its index on the node.
type GPU struct{ Node, Index int }

// Engine places tasks on a cluster, one at a time, keeping the occupancy:
// CLWP chooses the node, NLWP the GPUs (see the package doc). It is not
// safe for concurrent use.
type Engine struct {
	opt     Options
	est     Estimator
	nodes   []node
	types   []string // sorted
	ofType  [][]int  // node indices by type index
	count   []int    // GPUs by type index
	largest []int    // GPUs of the largest node by type index
	placed  []*Placed
}

type node struct {
	spec   cluster.Node
	typ    int
	gpus   []*group // by GPU index: the group holding it, nil when free
	free   int
	groups []*group // the groups that lie on this node alone, in creation order
}

// group is a set of GPUs and the tasks that share all of them.
type group struct {
	typ     int
	gpus    []GPU
	spread  bool
	members []*Placed
	memGB   float64
}

// Placed is a task the engine placed, and where.
type Placed struct {
	Task    *Task
	GPUType string
	Degree  int
	GPUs    []GPU // sorted by node, then index
	Spread  bool  // on more than one node
	// Rate is the task's solo throughput on this placement shape (0 for a
	// task given to Occupy).
	Rate float64
	// Efficiency is the scaling efficiency of Degree on the task's curve.
	Efficiency float64
	// CommS is the all-reduce time of one synchronous step, seconds, and
	// CommFrac its share of the step (see the package doc).
	CommS, CommFrac float64
	grp             *group
}

// New returns an engine over the nodes of a cluster.
func New(nodes []cluster.Node, est Estimator, opt Options) (*Engine, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	if len(nodes) == 0 {
		return nil, errors.New("no nodes")
	}
	e := &Engine{opt: opt, est: est}
	idx := map[string]int{}
	for _, n := range nodes {
		idx[n.GPUType] = 0
	}
	for t := range idx {
		e.types = append(e.types, t)
	}
	sort.Strings(e.types)
	for i, t := range e.types {
		idx[t] = i
	}
	e.ofType = make([][]int, len(e.types))
	e.count = make([]int, len(e.types))
	e.largest = make([]int, len(e.types))
	for i, n := range nodes {
		if n.GPUs < 1 {
			return nil, fmt.Errorf("node %s has %d GPUs", n.Name, n.GPUs)
		}
		t := idx[n.GPUType]
		e.nodes = append(e.nodes, node{spec: n, typ: t, gpus: make([]*group, n.GPUs), free: n.GPUs})
		e.ofType[t] = append(e.ofType[t], i)
		e.count[t] += n.GPUs
		e.largest[t] = max(e.largest[t], n.GPUs)
	}
	return e, nil
}

// Reset empties the cluster.
func (e *Engine) Reset() {
	for i := range e.nodes {
		n := &e.nodes[i]
		clear(n.gpus)
		n.free = len(n.gpus)
		n.groups = n.groups[:0]
	}
	e.placed = e.placed[:0]
}

// SetEstimator replaces the estimator; the occupancy stays.
func (e *Engine) SetEstimator(est Estimator) { e.est = est }

// Node returns the spec of node i.
func (e *Engine) Node(i int) cluster.Node { return e.nodes[i].spec }

// Placed returns the tasks placed so far, in order.
func (e *Engine) Placed() []*Placed { return e.placed }

// Partners returns the tasks sharing p's GPUs, in placement order.
func (p *Placed) Partners() []*Placed {
	var out []*Placed
	for _, q := range p.grp.members {
		if q != p {
			out = append(out, q)
		}
	}
	return out
}

// Occupy records a task already running on gpus (the simulator's running
// jobs): it joins the task sharing exactly those GPUs, or takes them when
// they are free. GPUs shared with a task on another set of GPUs, of two
// types, or repeated are refused.
func (e *Engine) Occupy(t *Task, gpus []GPU) (*Placed, error) {
	if len(gpus) == 0 {
		return nil, fmt.Errorf("task %s: no GPUs", t.ID)
	}
	gs := sortGPUs(gpus)
	typ := -1
	var g *group
	for i, x := range gs {
		if x.Node < 0 || x.Node >= len(e.nodes) || x.Index < 0 || x.Index >= len(e.nodes[x.Node].gpus) {
			return nil, fmt.Errorf("task %s: GPU %d of node %d does not exist", t.ID, x.Index, x.Node)
		}
		if i > 0 && gs[i-1] == x {
			return nil, fmt.Errorf("task %s: GPU %d of node %d given twice", t.ID, x.Index, x.Node)
		}
		n := &e.nodes[x.Node]
		if typ >= 0 && n.typ != typ {
			return nil, fmt.Errorf("task %s: GPUs of two types", t.ID)
		}
		typ = n.typ
		if h := n.gpus[x.Index]; i == 0 {
			g = h
		} else if h != g {
			return nil, fmt.Errorf("task %s: shares some of its GPUs with another task but not all", t.ID)
		}
	}
	if g != nil && len(g.gpus) != len(gs) {
		return nil, fmt.Errorf("task %s: shares some of its GPUs with another task but not all", t.ID)
	}
	p := &Placed{Task: t, GPUType: e.types[typ], Degree: len(gs), GPUs: gs, Spread: gs[0].Node != gs[len(gs)-1].Node}
	if g == nil {
		g = e.newGroup(typ, gs)
	}
	e.join(g, p)
	return p, nil
}

func sortGPUs(gpus []GPU) []GPU {
	gs := append([]GPU(nil), gpus...)
	sort.Slice(gs, func(i, j int) bool {
		if gs[i].Node != gs[j].Node {
			return gs[i].Node < gs[j].Node
		}
		return gs[i].Index < gs[j].Index
	})
	return gs
}

func (e *Engine) newGroup(typ int, gpus []GPU) *group {
	g := &group{typ: typ, gpus: gpus, spread: gpus[0].Node != gpus[len(gpus)-1].Node}
	for _, x := range gpus {
		n := &e.nodes[x.Node]
		n.gpus[x.Index] = g
		n.free--
	}
	if !g.spread {
		n := &e.nodes[gpus[0].Node]
		n.groups = append(n.groups, g)
	}
	return g
}

func (e *Engine) join(g *group, p *Placed) {
	g.members = append(g.members, p)
	g.memGB += p.Task.MemoryGB
	p.grp = g
	e.placed = append(e.placed, p)
}

// memFits reports whether need more GB fit next to used GB on a GPU of
// capacity GB; unknown (0) needs or capacities are not checked.
func memFits(need, used, capacity float64) bool {
	return need <= 0 || capacity <= 0 || used+need <= capacity+1e-9
}

// clip1 caps a normalized throughput at 1 for decisions: values above 1
// are measurement noise (docs/datasets.md) and do not make sharing a gain.
func clip1(y float64) float64 { return math.Min(y, 1) }
