package policy

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/coloc-dev/coloc/internal/similarity"
)

// ThroughputUnits are the units a policy file's throughputs may be in: the
// throughput units of coloc's datasets.
var ThroughputUnits = []string{"samples/s", "iterations/s"}

// LinkKinds are the intra-node link kinds of a node; "" is a link the
// cluster spec did not name.
var LinkKinds = []string{"nvlink", "nvswitch", "pcie", ""}

// CategoricalDescriptors are the categorical descriptors a similarity
// reference set may use.
var CategoricalDescriptors = []string{"class", "precision"}

// numericRE matches the numeric descriptors a similarity reference set
// may use: those Nearest computes from a Descriptor.
var numericRE = regexp.MustCompile(`^(log10_params|log10_flops_per_sample|log10_batch_size|layers_[a-z0-9_]+)$`)

var sha256RE = regexp.MustCompile(`^[0-9a-f]{64}$`)

// relTol is the relative tolerance of a scaling efficiency against the one
// ScalingPoints computes from the same throughputs.
const relTol = 1e-9

// Limits and values the writer keeps to. MaxGPUsPerNode is the cluster
// spec's limit (place/cluster.MaxGPUsPerNode, which a test keeps equal).
const MaxGPUsPerNode = 64

// Rules, Durations and Orders are the values of the objective's rule,
// durations and order that coloc writes.
var (
	Rules     = []string{RuleDecisionCore, RuleCompletionTime}
	Durations = []string{"attained", "known"}
	Orders    = []string{OrderGittins, "shortest", "arrival"}
)

func positive(x float64) bool { return x > 0 && !math.IsInf(x, 1) }
func nonNeg(x float64) bool   { return x >= 0 && !math.IsInf(x, 1) }

// checker checks the content of a file of the right format, version and
// shape.
type checker struct {
	f     *File
	ps    *problems
	nodes map[string]int  // node name -> index in Cluster.Nodes
	refs  map[string]bool // similarity reference workloads
}

func check(f *File, ps *problems) {
	c, post := checkHead(f, ps)
	ds := c.decisions()
	for _, d := range f.Decisions {
		ds.add(d)
	}
	ds.finish()
	ps.merge(post)
}

// checkHead checks every member of f but its decisions: those before them
// into ps, those after into the problems it returns, which a reader lists
// after the decisions' (merge).
func checkHead(f *File, ps *problems) (*checker, *problems) {
	c := &checker{f: f, ps: ps, nodes: map[string]int{}, refs: map[string]bool{}}
	c.header()
	c.cluster()
	c.similarity()
	post := &problems{file: ps.file}
	c.ps = post
	c.pairs()
	c.solo()
	c.scaling()
	c.predictions()
	c.objective()
	c.ps = ps
	return c, post
}

func (c *checker) add(path, format string, args ...any) { c.ps.add(path, format, args...) }

// nonEmpty checks a name or a text of the file: not empty, and without
// control characters (plainText).
func (c *checker) nonEmpty(path, s string) {
	if s == "" {
		c.add(path, "empty")
	}
	c.plain(path, s)
}

// unique checks the name v of the i-th element of list (at path): plain
// text, not empty, and not the name of an earlier element (seen, by name,
// which it records); what ("node ", "job " or "") starts the message. It
// reports whether v was new.
func (c *checker) unique(path, what, v, list string, i int, seen map[string]int) bool {
	c.plain(path, v)
	if v == "" {
		c.add(path, "empty")
		return false
	}
	if j, dup := seen[v]; dup {
		c.add(path, "%s%q is also %s[%d]", what, v, list, j)
		return false
	}
	seen[v] = i
	return true
}

// plain checks that s holds no control character: a newline or an escape
// in a job's name would start a line of its own, or recolour a terminal,
// in whatever prints it, and the writer never writes one.
func (c *checker) plain(path, s string) {
	for _, r := range s {
		if unicode.IsControl(r) {
			c.add(path, "%q holds a control character (%U)", s, r)
			return
		}
	}
}

func (c *checker) header() {
	f := c.f
	if !slices.Contains(ThroughputUnits, f.ThroughputUnit) {
		c.add("throughput_unit", "%q is not one of %s", f.ThroughputUnit, strings.Join(ThroughputUnits, ", "))
	}
	pv := f.Provenance
	c.nonEmpty("provenance.tool_version", pv.Tool)
	if _, err := time.Parse(time.RFC3339, pv.Created); err != nil {
		c.add("provenance.created", "%q is not an RFC 3339 time", pv.Created)
	}
	for _, l := range []struct {
		name string
		sums []FileSum
	}{{"models", pv.Models}, {"data", pv.Data}, {"inputs", pv.Inputs}} {
		for i, s := range l.sums {
			p := elem("provenance."+l.name, i)
			c.nonEmpty(at(p, "name"), s.Name)
			if !sha256RE.MatchString(s.SHA256) {
				c.add(at(p, "sha256"), "%q is not a SHA-256 in lower-case hex (64 digits)", s.SHA256)
			}
		}
	}
	t := f.Thresholds
	if t.MaxPerGPU < 1 {
		c.add("thresholds.max_per_gpu", "%d, want at least 1", t.MaxPerGPU)
	}
	if !(t.MinNormalized >= 0 && t.MinNormalized <= 1) {
		c.add("thresholds.min_normalized", "%v, want 0 to 1", t.MinNormalized)
	}
	if !(t.ScalingEfficiency >= 0 && t.ScalingEfficiency <= 1) {
		c.add("thresholds.scaling_efficiency", "%v, want 0 to 1", t.ScalingEfficiency)
	}
	if t.SimilarityK < 1 {
		c.add("thresholds.similarity_k", "%d, want at least 1", t.SimilarityK)
	}
}

func (c *checker) cluster() {
	if len(c.f.Cluster.Nodes) == 0 {
		c.add("cluster.nodes", "no nodes")
	}
	for i, n := range c.f.Cluster.Nodes {
		p := elem("cluster.nodes", i)
		c.unique(at(p, "name"), "node ", n.Name, "cluster.nodes", i, c.nodes)
		c.nonEmpty(at(p, "gpu_type"), n.GPUType)
		if n.GPUs < 1 || n.GPUs > MaxGPUsPerNode {
			c.add(at(p, "gpus"), "%d, want 1 to %d", n.GPUs, MaxGPUsPerNode)
		}
		if !slices.Contains(LinkKinds, n.Link) {
			c.add(at(p, "link"), "%q is not one of nvlink, nvswitch, pcie", n.Link)
		}
		for _, x := range []struct {
			name string
			v    float64
		}{{"gpu_memory_gb", n.MemoryGB}, {"link_gbytes_s", n.LinkGBs}, {"network_gbytes_s", n.NetworkGB}} {
			if !nonNeg(x.v) {
				c.add(at(p, x.name), "%v, want a finite number at least 0 (0: unknown)", x.v)
			}
		}
	}
}

func (c *checker) similarity() {
	s := c.f.Similarity
	const p = "similarity"
	if err := similarity.Valid(s.Distance); err != nil {
		c.add(at(p, "distance"), "%v", err)
	}
	if !nonNeg(s.P) {
		c.add(at(p, "p"), "%v, want a finite number at least 0", s.P)
	} else if s.Distance == "minkowski" && s.P == 0 {
		c.add(at(p, "p"), "the minkowski distance needs its order p > 0")
	}
	seen := map[string]int{}
	for k, name := range s.Numeric {
		pk := elem(at(p, "numeric"), k)
		if !numericRE.MatchString(name) {
			c.add(pk, "%q is not a numeric descriptor (log10_params, log10_flops_per_sample, log10_batch_size or layers_<kind>)", name)
		}
		if j, dup := seen[name]; dup {
			c.add(pk, "%q is also numeric[%d]", name, j)
		}
		seen[name] = k
	}
	rangeOK := len(s.Lo) == len(s.Numeric) && len(s.Hi) == len(s.Numeric)
	for _, x := range []struct {
		name string
		v    []float64
	}{{"lo", s.Lo}, {"hi", s.Hi}} {
		if len(x.v) != len(s.Numeric) {
			c.add(at(p, x.name), "%d values for %d numeric descriptors", len(x.v), len(s.Numeric))
		}
		for k, v := range x.v {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				c.add(elem(at(p, x.name), k), "%v, want a finite number", v)
				rangeOK = false
			}
		}
	}
	if rangeOK {
		for k := range s.Lo {
			if s.Lo[k] > s.Hi[k] {
				c.add(elem(at(p, "hi"), k), "%v is below lo %v", s.Hi[k], s.Lo[k])
				rangeOK = false
			}
		}
	}
	clear(seen)
	for k, name := range s.Categorical {
		pk := elem(at(p, "categorical"), k)
		if !slices.Contains(CategoricalDescriptors, name) {
			c.add(pk, "%q is not a categorical descriptor (%s)", name, strings.Join(CategoricalDescriptors, ", "))
		}
		if j, dup := seen[name]; dup {
			c.add(pk, "%q is also categorical[%d]", name, j)
		}
		seen[name] = k
	}
	clear(seen)
	for i, r := range s.References {
		pr := elem(at(p, "references"), i)
		if c.unique(at(pr, "workload"), "", r.Workload, "references", i, seen) {
			c.refs[r.Workload] = true
		}
		if len(r.Num) != len(s.Numeric) {
			c.add(at(pr, "num"), "%d values for %d numeric descriptors", len(r.Num), len(s.Numeric))
		} else {
			for k, v := range r.Num {
				switch {
				case v == nil:
				case math.IsNaN(*v) || math.IsInf(*v, 0):
					c.add(elem(at(pr, "num"), k), "%v, want a finite number or null", *v)
				case rangeOK && (*v < s.Lo[k] || *v > s.Hi[k]):
					c.add(elem(at(pr, "num"), k), "%v is outside lo..hi [%v, %v], the range over the references", *v, s.Lo[k], s.Hi[k])
				}
			}
		}
		if len(r.Cat) != len(s.Categorical) {
			c.add(at(pr, "cat"), "%d values for %d categorical descriptors", len(r.Cat), len(s.Categorical))
		}
		c.nonEmpty(at(pr, "gpu_type"), r.GPUType)
		if r.Degree < 1 {
			c.add(at(pr, "degree"), "%d, want at least 1", r.Degree)
		}
	}
}

// gpuSlot is one GPU of the cluster.
type gpuSlot struct {
	node string
	gpu  int
}

// decisions checks a file's decisions one at a time (add), then what
// relates them (finish): what a reader checks of them, in the order it
// lists the problems (every job's id first, then each decision's own
// members, then the partners). It keeps the id of every decision and the
// decisions with a placement, whose number the cluster bounds in a valid
// file, so that a writer can check decisions it never holds together.
type decisions struct {
	c *checker
	// own collects each decision's own problems, listed after every id
	// problem (finish).
	own       problems
	n         int
	ids       map[string]int
	kept      map[int]Decision // those placed or with a placement, by index
	colo      map[int]map[string]bool
	order     []int // the indices of kept, ascending
	occupants map[gpuSlot][]int
}

func (c *checker) decisions() *decisions {
	return &decisions{c: c, own: problems{file: c.ps.file}, ids: map[string]int{}, kept: map[int]Decision{},
		colo: map[int]map[string]bool{}, occupants: map[gpuSlot][]int{}}
}

// add checks decision d, the next of the file.
func (x *decisions) add(d Decision) {
	c, i := x.c, x.n
	x.n++
	p := elem("decisions", i)
	c.unique(at(p, "job"), "job ", d.Job, "decisions", i, x.ids)
	if d.Status == StatusPlaced || len(d.Placement) > 0 {
		x.kept[i] = d
		x.order = append(x.order, i)
		x.colo[i] = make(map[string]bool, len(d.ColocatedWith))
		for _, id := range d.ColocatedWith {
			x.colo[i][id] = true
		}
	}
	all := c.ps
	c.ps = &x.own
	defer func() { c.ps = all }()
	maxPer := c.f.Thresholds.MaxPerGPU
	c.nonEmpty(at(p, "workload"), d.Workload)
	c.nonEmpty(at(p, "reason"), d.Reason)
	if d.Reference != "" && !c.refs[d.Reference] {
		c.add(at(p, "reference"), "%q is not a similarity reference", d.Reference)
	}
	if d.Degree < 0 {
		c.add(at(p, "degree"), "%d is negative", d.Degree)
	}
	if !nonNeg(d.PredictedNormalized) {
		c.add(at(p, "predicted_normalized"), "%v, want a finite number at least 0 (0: not given)", d.PredictedNormalized)
	}
	if !nonNeg(d.PredictedThroughput) {
		c.add(at(p, "predicted_throughput"), "%v, want a finite number at least 0 (0: unknown)", d.PredictedThroughput)
	}
	c.rule(p, d)
	if d.Assumed {
		if c.f.Version < 3 {
			c.add(at(p, "assumed"), "an assumed pair needs version 3")
		}
		if d.Status != StatusPlaced || d.Degree < 2 || len(d.ColocatedWith) == 0 {
			c.add(at(p, "assumed"), "only a placed job on two or more GPUs that shares them has an assumed pair")
		}
	}
	switch d.Status {
	case StatusPlaced:
	case StatusUnplaceable, StatusWaiting:
		if d.Status == StatusWaiting && c.f.Version < 2 {
			c.add(at(p, "status"), "%q needs version 2", d.Status)
		}
		if len(d.Placement) > 0 {
			c.add(at(p, "placement"), "a job that is %s has no placement", d.Status)
		}
		if len(d.ColocatedWith) > 0 {
			c.add(at(p, "colocated_with"), "a job that is %s is co-located with nobody", d.Status)
		}
		return
	default:
		c.add(at(p, "status"), "%q is not %s, %s or %s", d.Status, StatusPlaced, StatusWaiting, StatusUnplaceable)
		return
	}
	c.nonEmpty(at(p, "gpu_type"), d.GPUType)
	if d.Degree < 1 {
		c.add(at(p, "degree"), "%d: a placed job has at least one GPU", d.Degree)
	}
	if d.PredictedNormalized == 0 {
		c.add(at(p, "predicted_normalized"), "missing: a placed job has a predicted normalized throughput (1 alone)")
	}
	if len(d.Placement) == 0 {
		c.add(at(p, "placement"), "a placed job has a placement")
	}
	gpus := 0
	onNode := map[string]int{}
	for j, ng := range d.Placement {
		pj := elem(at(p, "placement"), j)
		ni, known := c.nodes[ng.Node]
		var node Node
		switch {
		case !known:
			c.add(at(pj, "node"), "node %q is not in the cluster", ng.Node)
		default:
			node = c.f.Cluster.Nodes[ni]
			if node.GPUType != d.GPUType {
				c.add(at(pj, "node"), "node %q has %s GPUs, the job's gpu_type is %q", ng.Node, node.GPUType, d.GPUType)
			}
		}
		if k, dup := onNode[ng.Node]; dup {
			c.add(at(pj, "node"), "node %q is also placement[%d]", ng.Node, k)
		}
		onNode[ng.Node] = j
		if len(ng.GPUs) == 0 {
			c.add(at(pj, "gpus"), "no GPUs")
		}
		seen := map[int]int{}
		for k, g := range ng.GPUs {
			pk := elem(at(pj, "gpus"), k)
			if first, dup := seen[g]; dup {
				c.add(pk, "GPU %d is also gpus[%d]", g, first)
				continue
			}
			seen[g] = k
			if g < 0 || (known && g >= node.GPUs) {
				if known {
					c.add(pk, "GPU %d is out of range: node %q has GPUs 0 to %d", g, ng.Node, node.GPUs-1)
				} else {
					c.add(pk, "GPU %d is negative", g)
				}
				continue
			}
			if !known {
				continue
			}
			s := gpuSlot{ng.Node, g}
			x.occupants[s] = append(x.occupants[s], i)
			if maxPer >= 1 && len(x.occupants[s]) == maxPer+1 {
				c.add(pk, "node %q GPU %d holds %d jobs (%s), more than max_per_gpu %d", ng.Node, g, maxPer+1, x.jobList(x.occupants[s]), maxPer)
			}
		}
		gpus += len(ng.GPUs)
	}
	if d.Degree >= 1 && len(d.Placement) > 0 && gpus != d.Degree {
		c.add(at(p, "degree"), "degree %d, but the placement has %d GPUs", d.Degree, gpus)
	}
}

// finish lists the decisions' own problems after the ids', then checks
// the partners: co-located jobs that exist, are placed, share a GPU and
// list each other back.
func (x *decisions) finish() {
	c := x.c
	c.ps.merge(&x.own)
	// The jobs that share a GPU, and the first GPU each pair shares.
	type pair struct{ a, b int }
	shares := map[pair]gpuSlot{}
	var order []pair
	for _, i := range x.order {
		for _, ng := range x.kept[i].Placement {
			for _, g := range ng.GPUs {
				for _, k := range x.occupants[gpuSlot{ng.Node, g}] {
					pr := pair{min(i, k), max(i, k)}
					if _, done := shares[pr]; !done && k != i {
						shares[pr] = gpuSlot{ng.Node, g}
						order = append(order, pr)
					}
				}
			}
		}
	}
	for _, i := range x.order {
		d := x.kept[i]
		if d.Status != StatusPlaced {
			continue // an unplaceable job's list is faulted whole above
		}
		p := elem("decisions", i)
		listed := map[string]int{}
		for j, id := range d.ColocatedWith {
			pj := elem(at(p, "colocated_with"), j)
			k, known := x.ids[id]
			switch first, dup := listed[id]; {
			case id == d.Job:
				c.add(pj, "the job itself")
			case dup:
				c.add(pj, "job %q is also colocated_with[%d]", id, first)
			case !known:
				c.add(pj, "no job %q in decisions", id)
			case x.kept[k].Status != StatusPlaced:
				c.add(pj, "job %q (decisions[%d]) is not placed", id, k)
			default:
				if !x.colo[k][d.Job] {
					c.add(pj, "job %q (decisions[%d]) does not list %q back", id, k, d.Job)
				}
				if _, ok := shares[pair{min(i, k), max(i, k)}]; !ok {
					c.add(pj, "job %q (decisions[%d]) shares no GPU with it", id, k)
				}
			}
			listed[id] = j
		}
	}
	for _, pr := range order {
		a, b := x.kept[pr.a], x.kept[pr.b]
		if a.Job == "" || b.Job == "" || x.colo[pr.a][b.Job] || x.colo[pr.b][a.Job] {
			continue
		}
		s := shares[pr]
		c.add(at(elem("decisions", pr.a), "colocated_with"), "job %q (decisions[%d]) shares node %q GPU %d with it, but neither lists the other", b.Job, pr.b, s.node, s.gpu)
	}
}

func (x *decisions) jobList(idx []int) string {
	names := make([]string, len(idx))
	for i, k := range idx {
		names[i] = fmt.Sprintf("%q", x.kept[k].Job)
	}
	return strings.Join(names, ", ")
}

func (c *checker) pairs() {
	seen := map[pairKey]int{}
	for i, x := range c.f.Pairs {
		p := elem("pairs", i)
		c.nonEmpty(at(p, "gpu_type"), x.GPUType)
		c.nonEmpty(at(p, "workload"), x.Workload)
		c.nonEmpty(at(p, "partner"), x.Partner)
		if x.Degree < 1 {
			c.add(at(p, "degree"), "%d, want at least 1", x.Degree)
		}
		if !positive(x.Normalized) {
			c.add(at(p, "normalized"), "%v, want a finite number above 0 (values above 1 are kept)", x.Normalized)
		}
		if m, ok := strings.CutPrefix(x.Source, "predicted:"); !(x.Source == "measured" || ok && m != "") {
			c.add(at(p, "source"), "%q is neither measured nor predicted:<model>", x.Source)
		}
		k := pairKey{x.GPUType, x.Degree, x.Workload, x.Partner}
		if j, dup := seen[k]; dup {
			c.add(p, "duplicate of pairs[%d] (same gpu_type, degree, workload and partner)", j)
		} else {
			seen[k] = i
		}
	}
}

func (c *checker) solo() {
	seen := map[soloKey]int{}
	for i, x := range c.f.Solo {
		p := elem("solo", i)
		c.nonEmpty(at(p, "workload"), x.Workload)
		c.nonEmpty(at(p, "gpu_type"), x.GPUType)
		if x.Degree < 1 {
			c.add(at(p, "degree"), "%d, want at least 1", x.Degree)
		}
		if !positive(x.Throughput) {
			c.add(at(p, "throughput"), "%v, want a finite number above 0", x.Throughput)
		}
		if !nonNeg(x.MemoryGB) {
			c.add(at(p, "memory_gb"), "%v, want a finite number at least 0 (0: unknown)", x.MemoryGB)
		}
		k := soloKey{x.Workload, x.GPUType, x.Degree}
		if j, dup := seen[k]; dup {
			c.add(p, "duplicate of solo[%d] (same workload, gpu_type and degree)", j)
		} else {
			seen[k] = i
		}
	}
}

func (c *checker) scaling() {
	seen := map[scalingKey]int{}
	thr := c.f.Thresholds.ScalingEfficiency
	for i, x := range c.f.Scaling {
		p := elem("scaling", i)
		c.nonEmpty(at(p, "workload"), x.Workload)
		c.nonEmpty(at(p, "gpu_type"), x.GPUType)
		c.nonEmpty(at(p, "source"), x.Source)
		k := scalingKey{x.Workload, x.GPUType}
		if j, dup := seen[k]; dup {
			c.add(p, "duplicate of scaling[%d] (same workload and gpu_type)", j)
		} else {
			seen[k] = i
		}
		if len(x.Points) == 0 {
			c.add(at(p, "points"), "no points")
			continue
		}
		ok := true
		for j, pt := range x.Points {
			pj := elem(at(p, "points"), j)
			if pt.Degree < 1 {
				c.add(at(pj, "degree"), "%d, want at least 1", pt.Degree)
				ok = false
			} else if j > 0 && pt.Degree <= x.Points[j-1].Degree {
				c.add(at(pj, "degree"), "%d after degree %d: points go by degree, ascending", pt.Degree, x.Points[j-1].Degree)
				ok = false
			}
			if !positive(pt.Throughput) {
				c.add(at(pj, "throughput"), "%v, want a finite number above 0", pt.Throughput)
				ok = false
			}
			if !positive(pt.Efficiency) {
				c.add(at(pj, "efficiency"), "%v, want a finite number above 0", pt.Efficiency)
				ok = false
			}
		}
		if !ok {
			continue
		}
		want := ScalingPoints(x.Points)
		for j, pt := range x.Points {
			if e := want[j].Efficiency; math.Abs(pt.Efficiency-e) > relTol*max(1, e) {
				c.add(at(elem(at(p, "points"), j), "efficiency"), "%v, but the throughputs give %v (per-GPU throughput relative to degree %d)", pt.Efficiency, e, want[0].Degree)
			}
		}
		if thr >= 0 && thr <= 1 {
			if best, _ := ChooseDegree(x.Points, thr, 0); x.Chosen != best.Degree {
				c.add(at(p, "chosen_degree"), "%d, but the degree rule (highest throughput at scaling efficiency >= %v) chooses %d", x.Chosen, thr, best.Degree)
			}
		}
	}
}

// predictions checks the intervals and flags of predicted pairs and the
// summary that counts them.
func (c *checker) predictions() {
	flags := map[string]bool{FlagOutOfRange: true, FlagUnseen: true, FlagUncalibrated: true}
	for i, x := range c.f.Pairs {
		p := elem("pairs", i)
		hasInterval := x.Low != 0 || x.High != 0
		if x.Source == "measured" && (hasInterval || len(x.Flags) > 0 || x.Raw != 0) {
			c.add(p, "a measured pair has an interval, raw value or flags")
			continue
		}
		if hasInterval && !(positive(x.Low) && positive(x.High) && x.Low <= x.Normalized && x.Normalized <= x.High) {
			c.add(at(p, "low"), "interval [%v, %v] does not hold normalized %v", x.Low, x.High, x.Normalized)
		}
		for k, f := range x.Flags {
			if !flags[f] {
				c.add(elem(at(p, "flags"), k), "%q is not one of out-of-range, unseen, uncalibrated", f)
			}
		}
		if x.Raw != 0 && !slicesContains(x.Flags, FlagOutOfRange) {
			c.add(at(p, "raw"), "a raw value without the out-of-range flag")
		}
	}
	s := c.f.Provenance.Predictions
	if s == (PredictionSummary{}) {
		return
	}
	p := "provenance.predictions"
	if positive(s.RangeLow) && positive(s.RangeHigh) && s.RangeLow <= s.RangeHigh {
		// A prediction is bounded to the plausible range: one outside it
		// was set to the nearest bound (and flagged out-of-range).
		for i, x := range c.f.Pairs {
			if x.Source != "measured" && (x.Normalized < s.RangeLow || x.Normalized > s.RangeHigh) {
				c.add(at(elem("pairs", i), "normalized"), "%v is outside the plausible range [%v, %v] that bounds every prediction", x.Normalized, s.RangeLow, s.RangeHigh)
			}
		}
	}
	if s.Decide != DecideExpected && s.Decide != DecideLower {
		c.add(at(p, "decide"), "%q, want %s or %s", s.Decide, DecideExpected, DecideLower)
	}
	if !(s.Coverage > 0 && s.Coverage < 1) {
		c.add(at(p, "coverage"), "%v, want a share in (0, 1)", s.Coverage)
	}
	if !(positive(s.RangeLow) && positive(s.RangeHigh) && s.RangeLow <= s.RangeHigh) {
		c.add(at(p, "range_low"), "[%v, %v] is not a positive range", s.RangeLow, s.RangeHigh)
	}
	n := map[string]int{}
	pred := 0
	for _, x := range c.f.Pairs {
		if x.Source == "measured" {
			continue
		}
		pred++
		for _, f := range x.Flags {
			n[f]++
		}
	}
	for _, k := range []struct {
		name      string
		got, want int
	}{{"predicted", s.Predicted, pred}, {"clamped", s.Clamped, n[FlagOutOfRange]}, {"unseen", s.Unseen, n[FlagUnseen]}, {"uncalibrated", s.Uncalib, n[FlagUncalibrated]}} {
		if k.got != k.want {
			c.add(at(p, k.name), "%d, but the pairs table has %d", k.got, k.want)
		}
	}
	if s.Dropped < 0 || s.Skipped < 0 {
		c.add(p, "negative counts")
	}
}

// oneOf checks that s is one of the values the writer writes.
func (c *checker) oneOf(path, s string, values []string) {
	if !slices.Contains(values, s) {
		c.add(path, "%q is not one of %s", s, strings.Join(values, ", "))
	}
}

func slicesContains(xs []string, v string) bool {
	for _, x := range xs {
		if x == v {
			return true
		}
	}
	return false
}

// rule checks the rule record of decision d at path p: a version 2
// member, an option that agrees with the status, finite times and rates.
func (c *checker) rule(p string, d Decision) {
	r := d.Rule
	if r == nil {
		return
	}
	p = at(p, "rule")
	if c.f.Version < 2 {
		c.add(p, "a rule record needs version 2")
	}
	want := map[string]string{OptionRun: StatusPlaced, OptionShare: StatusPlaced, OptionWait: StatusWaiting}
	switch st, ok := want[r.Option]; {
	case !ok:
		c.add(at(p, "option"), "%q is not %s, %s or %s", r.Option, OptionRun, OptionShare, OptionWait)
	case st != d.Status:
		c.add(at(p, "option"), "option %s with status %s, want status %s", r.Option, d.Status, st)
	}
	for _, x := range []struct {
		name string
		v    float64
	}{{"cost_s", r.CostS}, {"predicted_completion_s", r.CompletionS}, {"predicted_start_s", r.StartS},
		{"solo_throughput", r.SoloThroughput}, {"partner_normalized", r.PartnerNormalized}, {"partner_delay_s", r.PartnerDelayS}} {
		if !nonNeg(x.v) {
			c.add(at(p, x.name), "%v, want a finite number at least 0", x.v)
		}
	}
	if !(r.Normalized > 0) || math.IsInf(r.Normalized, 1) {
		c.add(at(p, "predicted_normalized"), "%v, want a finite number above 0 (1 alone)", r.Normalized)
	}
	if (r.Option == OptionShare) != (r.Partner != "") {
		c.add(at(p, "partner"), "%q: a partner is named exactly when the option is %s", r.Partner, OptionShare)
	}
}

// objective checks the file's objective, a version 2 member.
func (c *checker) objective() {
	o := c.f.Objective
	if o == nil {
		return
	}
	if c.f.Version < 2 {
		c.add("objective", "an objective needs version 2")
	}
	c.oneOf("objective.rule", o.Rule, Rules)
	c.nonEmpty("objective.minimize", o.Minimize)
	c.oneOf("objective.durations", o.Durations, Durations)
	c.oneOf("objective.order", o.Order, Orders)
	if (o.Rule == RuleDecisionCore || o.Order == OrderGittins) && c.f.Version < 4 {
		c.add("objective", "rule %s and order %s need version 4", o.Rule, o.Order)
	}
	if (o.Rule == RuleDecisionCore) != (o.Order == OrderGittins) {
		c.add("objective.order", "%q with rule %q: the decision core orders by %s, the completion-time rule by shortest or arrival", o.Order, o.Rule, OrderGittins)
	}
	if !(o.MinNormalized >= 0 && o.MinNormalized <= 1) {
		c.add("objective.min_normalized", "%v, want a number in [0, 1] (0: off)", o.MinNormalized)
	}
}
