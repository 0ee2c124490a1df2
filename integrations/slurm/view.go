package slurm

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// Node is a node as Slurm reports it.
type Node struct {
	Name       string
	Type       string // the gpu GRES's type ("" when the node has no typed GPU)
	GPUs       int    // the gpu GRES's count
	Shards     int    // the shard GRES's count (0: the node does not share)
	Partitions []string
	State      string // lower case: idle, mixed, allocated, down, ...
}

// Job is a job as Slurm reports it.
type Job struct {
	ID           int64
	State        string // upper case: PENDING, RUNNING, ...
	Partition    string
	Nodes        []string // where it runs (running jobs)
	TresPerNode  string
	AdminComment string
	// GPUIndex is, per node it runs on, the GPU indices Slurm gave it
	// (gres_detail), where Slurm reports them.
	GPUIndex map[string][]int
}

// stringish reads a JSON string, or the first string of an array of
// them (Slurm's later JSON turns some strings into arrays), or null.
type stringish string

func (s *stringish) UnmarshalJSON(b []byte) error {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	switch v := v.(type) {
	case nil:
		*s = ""
	case string:
		*s = stringish(v)
	case []any:
		*s = ""
		if len(v) > 0 {
			if f, ok := v[0].(string); ok {
				*s = stringish(f)
			}
		}
	default:
		return fmt.Errorf("want a string or a list of strings, got %s", b)
	}
	return nil
}

// ParseNodes reads the nodes of `sinfo --json`.
func ParseNodes(b []byte) ([]Node, error) {
	var doc struct {
		Nodes []struct {
			Name       string    `json:"name"`
			Gres       stringish `json:"gres"`
			Partitions []string  `json:"partitions"`
			State      stringish `json:"state"`
		} `json:"nodes"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("sinfo --json: %w", err)
	}
	out := make([]Node, 0, len(doc.Nodes))
	for i, n := range doc.Nodes {
		if n.Name == "" {
			return nil, fmt.Errorf("sinfo --json: nodes[%d] has no name", i)
		}
		node := Node{Name: n.Name, Partitions: n.Partitions, State: strings.ToLower(string(n.State))}
		for _, g := range splitGres(string(n.Gres)) {
			switch g.name {
			case "gpu":
				node.Type, node.GPUs = g.typ, node.GPUs+g.count
			case "shard":
				node.Shards += g.count
			}
		}
		out = append(out, node)
	}
	return out, nil
}

// ParseJobs reads the jobs of `squeue --json`.
func ParseJobs(b []byte) ([]Job, error) {
	var doc struct {
		Jobs []struct {
			ID           int64     `json:"job_id"`
			State        stringish `json:"job_state"`
			Partition    string    `json:"partition"`
			Nodes        string    `json:"nodes"`
			TresPerNode  string    `json:"tres_per_node"`
			AdminComment string    `json:"admin_comment"`
			GresDetail   []string  `json:"gres_detail"`
		} `json:"jobs"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("squeue --json: %w", err)
	}
	out := make([]Job, 0, len(doc.Jobs))
	for _, j := range doc.Jobs {
		nodes, err := ExpandHostlist(j.Nodes)
		if err != nil {
			return nil, fmt.Errorf("squeue --json: job %d: nodes: %w", j.ID, err)
		}
		job := Job{ID: j.ID, State: strings.ToUpper(string(j.State)), Partition: j.Partition, Nodes: nodes,
			TresPerNode: j.TresPerNode, AdminComment: j.AdminComment}
		// gres_detail has one entry per node of the job, in node order.
		for k, d := range j.GresDetail {
			if k >= len(nodes) {
				break
			}
			if idx, ok := gpuIndex(d); ok {
				if job.GPUIndex == nil {
					job.GPUIndex = map[string][]int{}
				}
				job.GPUIndex[nodes[k]] = idx
			}
		}
		out = append(out, job)
	}
	return out, nil
}

type gres struct {
	name, typ string
	count     int
}

// splitGres reads a GRES list such as "gpu:v100:4(S:0-1),shard:8":
// name, optional type, count (1 when absent).
func splitGres(s string) []gres {
	var out []gres
	for _, f := range splitTop(s) {
		if i := strings.IndexByte(f, '('); i >= 0 {
			f = f[:i]
		}
		p := strings.Split(strings.TrimPrefix(f, "gres:"), ":")
		g := gres{name: p[0], count: 1}
		switch len(p) {
		case 2:
			if n, err := strconv.Atoi(p[1]); err == nil {
				g.count = n
			} else {
				g.typ = p[1]
			}
		case 3:
			g.typ = p[1]
			if n, err := strconv.Atoi(p[2]); err == nil {
				g.count = n
			}
		}
		if g.name != "" {
			out = append(out, g)
		}
	}
	return out
}

// splitTop splits on commas outside parentheses.
func splitTop(s string) []string { return splitOutside(s, '(', ')') }

// splitOutside splits s on the commas outside open...close pairs; an
// empty s gives no field.
func splitOutside(s string, open, close rune) []string {
	if s == "" {
		return nil
	}
	var out []string
	depth, start := 0, 0
	for i, c := range s {
		switch c {
		case open:
			depth++
		case close:
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// gpuIndex reads the GPU indices of a gres_detail entry such as
// "gpu:v100:2(IDX:0-1)" or "gpu:2(IDX:0,3)".
func gpuIndex(d string) ([]int, bool) {
	if !strings.HasPrefix(d, "gpu") {
		return nil, false
	}
	i := strings.Index(d, "IDX:")
	if i < 0 {
		return nil, false
	}
	rest := d[i+4:]
	if j := strings.IndexByte(rest, ')'); j >= 0 {
		rest = rest[:j]
	}
	idx, err := ranges(rest)
	return idx, err == nil && len(idx) > 0
}

// ranges reads "0-1,3" as [0 1 3].
func ranges(s string) ([]int, error) {
	var out []int
	for _, r := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(r, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", lo)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil {
				return nil, fmt.Errorf("%q is not a number", hi)
			}
		}
		if b < a || b-a > 1<<16 {
			return nil, fmt.Errorf("range %q", r)
		}
		for k := a; k <= b; k++ {
			out = append(out, k)
		}
	}
	return out, nil
}

// ExpandHostlist expands Slurm's host list syntax: "a[1-3,5],b" is a1,
// a2, a3, a5, b; zero padding is kept ("n[01-02]" is n01, n02).
func ExpandHostlist(s string) ([]string, error) {
	var out []string
	for _, item := range splitOutside(s, '[', ']') {
		if item == "" {
			continue
		}
		open := strings.IndexByte(item, '[')
		if open < 0 {
			out = append(out, item)
			continue
		}
		end := strings.IndexByte(item, ']')
		if end < open {
			return nil, fmt.Errorf("host list %q: unbalanced brackets", s)
		}
		prefix, body, suffix := item[:open], item[open+1:end], item[end+1:]
		for _, r := range strings.Split(body, ",") {
			lo, hi, isRange := strings.Cut(r, "-")
			if !isRange {
				hi = lo
			}
			a, err1 := strconv.Atoi(lo)
			b, err2 := strconv.Atoi(hi)
			if err1 != nil || err2 != nil || b < a || b-a > 1<<16 {
				return nil, fmt.Errorf("host list %q: range %q", s, r)
			}
			for k := a; k <= b; k++ {
				out = append(out, fmt.Sprintf("%s%0*d%s", prefix, len(lo), k, suffix))
			}
		}
	}
	return out, nil
}

// Record is what the hook writes into a job's admin comment: coloc's
// decision for it, read back by the next decisions.
type Record struct {
	ID       string // the decision's identity
	Node     string
	GPUs     []int // the planned GPUs, indices within the node
	Workload string
}

const recordPrefix = "coloc:v1 "

// String is the record's one textual form: "coloc:v1 id=ID node=NODE
// gpus=0,1 workload=W", the workload query-escaped (no spaces).
func (r Record) String() string {
	g := make([]string, len(r.GPUs))
	for i, x := range r.GPUs {
		g[i] = strconv.Itoa(x)
	}
	return fmt.Sprintf("%sid=%s node=%s gpus=%s workload=%s", recordPrefix, r.ID, r.Node, strings.Join(g, ","), url.QueryEscape(r.Workload))
}

// ParseRecord reads a record from an admin comment; ok is false when the
// comment holds none.
func ParseRecord(s string) (r Record, ok bool, err error) {
	rest, found := strings.CutPrefix(s, recordPrefix)
	if !found {
		return Record{}, false, nil
	}
	for _, f := range strings.Fields(rest) {
		k, v, _ := strings.Cut(f, "=")
		switch k {
		case "id":
			r.ID = v
		case "node":
			r.Node = v
		case "gpus":
			if r.GPUs, err = ranges(v); err != nil {
				return Record{}, true, fmt.Errorf("coloc record %q: gpus: %w", s, err)
			}
		case "workload":
			if r.Workload, err = url.QueryUnescape(v); err != nil {
				return Record{}, true, fmt.Errorf("coloc record %q: workload: %w", s, err)
			}
		}
	}
	if r.ID == "" || r.Node == "" || len(r.GPUs) == 0 || r.Workload == "" {
		return Record{}, true, fmt.Errorf("coloc record %q: want id, node, gpus and workload", s)
	}
	slices.Sort(r.GPUs)
	return r, true, nil
}
