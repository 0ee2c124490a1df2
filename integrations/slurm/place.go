package slurm

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/coloc-dev/coloc/place/decide"
)

// DefaultStates are the node states whose nodes are candidates.
var DefaultStates = []string{"idle", "mixed", "allocated", "completing"}

// Options configure a Cluster.
type Options struct {
	// States are the node states (sinfo's, lower case) whose nodes take
	// jobs (nil: DefaultStates).
	States []string
	// Poll is how often Run reads the cluster (it must be positive).
	Poll time.Duration
	// Run runs a Slurm command and returns its standard output (nil:
	// exec, with the command's stderr in the error).
	Run func(ctx context.Context, name string, args ...string) ([]byte, error)
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// Cluster is the cluster as the last poll read it, plus the decisions
// made since.
type Cluster struct {
	opt     Options
	mu      sync.Mutex
	nodes   []Node
	jobs    []Job
	polled  time.Time
	pending map[string]pendingDecision // by Record.ID
}

type pendingDecision struct {
	rec Record
	at  time.Time
}

// NewCluster returns an empty cluster view; Update or Poll fills it.
func NewCluster(o Options) *Cluster {
	if o.States == nil {
		o.States = DefaultStates
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Run == nil {
		o.Run = runCommand
	}
	return &Cluster{opt: o, pending: map[string]pendingDecision{}}
}

func runCommand(ctx context.Context, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// Poll reads the nodes and jobs from Slurm once.
func (c *Cluster) Poll(ctx context.Context) error {
	b, err := c.opt.Run(ctx, "sinfo", "--json")
	if err != nil {
		return err
	}
	nodes, err := ParseNodes(b)
	if err != nil {
		return err
	}
	if b, err = c.opt.Run(ctx, "squeue", "--json"); err != nil {
		return err
	}
	jobs, err := ParseJobs(b)
	if err != nil {
		return err
	}
	c.Update(nodes, jobs)
	return nil
}

// Update replaces the view with what a poll read; decisions that the
// jobs now carry, or older than three poll intervals, are forgotten.
func (c *Cluster) Update(nodes []Node, jobs []Job) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nodes, c.jobs, c.polled = nodes, jobs, c.opt.Now()
	for _, j := range jobs {
		if r, ok, err := ParseRecord(j.AdminComment); ok && err == nil {
			delete(c.pending, r.ID)
		}
	}
	ttl := 3 * c.opt.Poll
	for id, p := range c.pending {
		if ttl > 0 && c.polled.Sub(p.at) > ttl {
			delete(c.pending, id)
		}
	}
}

// Polled is when the view was last read (zero: never).
func (c *Cluster) Polled() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.polled
}

// Run polls every Options.Poll until ctx is done; a failed poll keeps the
// last view and is reported to logf.
func (c *Cluster) Run(ctx context.Context, logf func(format string, a ...any)) {
	t := time.NewTicker(c.opt.Poll)
	defer t.Stop()
	for {
		if err := c.Poll(ctx); err != nil && ctx.Err() == nil {
			logf("slurm: poll failed, keeping the view of %s: %v", c.Polled().Format(time.RFC3339), err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Request is what the submit hook sends for a job.
type Request struct {
	Workload    string // from the job's comment, "coloc: workload=NAME"
	Partition   string // the job's partition ("" when it names none)
	TresPerNode string // e.g. "gres:gpu:2" or "gres:gpu:v100:1"
	TresPerJob  string // e.g. "gres:gpu:2" (sbatch --gpus), single node
}

// Decision is the answer for one job.
type Decision struct {
	Place        bool   // false: leave the job as it is (Reason says why)
	Node         string // the node it goes to
	Partition    string // the partition to set, when the job named none
	TresPerNode  string // the GRES to ask for there
	AdminComment string // the Record to store in the job
	Reason       string
	Option       decide.Option
}

// WorkloadOf reads the workload from a job comment ("coloc:
// workload=NAME", optionally followed by "; other=..."); "" when the
// comment names none.
func WorkloadOf(comment string) string {
	rest, ok := strings.CutPrefix(strings.TrimSpace(comment), "coloc:")
	if !ok {
		return ""
	}
	for _, f := range strings.Split(rest, ";") {
		if k, v, ok := strings.Cut(strings.TrimSpace(f), "="); ok && k == "workload" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// gpusWanted reads the job's GPU count and type from its GRES request.
func gpusWanted(q Request) (typ string, n int, err error) {
	for _, s := range []string{q.TresPerNode, q.TresPerJob} {
		for _, g := range splitGres(s) {
			if g.name == "gpu" {
				if g.count < 1 || g.count > 64 {
					return "", 0, fmt.Errorf("%q asks for %d GPUs, want 1 to 64", s, g.count)
				}
				return g.typ, g.count, nil
			}
		}
	}
	return "", 0, fmt.Errorf("the job asks for no GPU (tres_per_node %q, tres_per_job %q): request them with --gres=gpu:N", q.TresPerNode, q.TresPerJob)
}

// Place decides where the job goes: decide.Score's best option over the
// candidate nodes, with the tenants the view and the decisions since it
// hold. A job coloc cannot place (no workload, no GPU request, no node
// with an option) gets Place false and the reason, not an error; the
// error is for a request that is not a job's (no workload at all).
func (c *Cluster) Place(r decide.Rates, maxPerGPU int, q Request) (Decision, error) {
	if q.Workload == "" {
		return Decision{}, fmt.Errorf("workload: missing")
	}
	typ, d, err := gpusWanted(q)
	if err != nil {
		return Decision{Reason: err.Error()}, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.polled.IsZero() {
		return Decision{Reason: "the cluster has not been read yet (sinfo/squeue)"}, nil
	}
	nodes, byName := c.candidates(q.Partition, typ)
	if len(nodes) == 0 {
		return Decision{Reason: fmt.Sprintf("no node of partition %q in states %v has GPUs%s", q.Partition, c.opt.States, ifType(typ))}, nil
	}
	opts := decide.Score(r, maxPerGPU, decide.Job{Workload: q.Workload, Degrees: []int{d}}, nodes)
	best := opts[0]
	if best.Score <= 0 {
		return Decision{Reason: best.Reason, Option: best}, nil
	}
	n := byName[best.Node]
	rec := Record{ID: newID(), Node: n.Name, GPUs: best.GPUs, Workload: q.Workload}
	dec := Decision{Place: true, Node: n.Name, AdminComment: rec.String(), Reason: best.Reason, Option: best}
	if best.Partner == "" {
		dec.TresPerNode = fmt.Sprintf("gres:gpu:%s:%d", n.Type, d)
	} else {
		dec.TresPerNode = fmt.Sprintf("gres:shard:%d", max(1, d*n.Shards/n.GPUs/2))
	}
	if q.Partition == "" && len(n.Partitions) > 0 {
		dec.Partition = n.Partitions[0]
	}
	c.pending[rec.ID] = pendingDecision{rec: rec, at: c.opt.Now()}
	return dec, nil
}

func ifType(t string) string {
	if t == "" {
		return ""
	}
	return " of type " + t
}

// candidates are the nodes a job of the partition (and GPU type, when it
// asks for one) may go to, with their tenants.
func (c *Cluster) candidates(partition, typ string) ([]decide.Node, map[string]Node) {
	byName := map[string]Node{}
	var out []decide.Node
	index := map[string]int{}
	for _, n := range c.nodes {
		if n.GPUs < 1 || n.Type == "" || !slices.Contains(c.opt.States, n.State) ||
			(partition != "" && !slices.Contains(n.Partitions, partition)) || (typ != "" && typ != n.Type) {
			continue
		}
		byName[n.Name] = n
		index[n.Name] = len(out)
		out = append(out, decide.Node{Name: n.Name, Type: n.Type, GPUs: n.GPUs, Exclusive: n.Shards < n.GPUs})
	}
	// Tenants: coloc's records first (their planned GPUs, or Slurm's
	// indices once they run), then other running GPU jobs.
	var others []Job
	for _, j := range c.jobs {
		if j.State != "PENDING" && j.State != "RUNNING" && j.State != "CONFIGURING" {
			continue
		}
		rec, ok, err := ParseRecord(j.AdminComment)
		if !ok || err != nil {
			if j.State != "PENDING" {
				others = append(others, j)
			}
			continue
		}
		i, in := index[rec.Node]
		if !in {
			continue
		}
		gpus := rec.GPUs
		if idx, ok := j.GPUIndex[rec.Node]; ok {
			gpus = idx
		}
		out[i].Tenants = append(out[i].Tenants, decide.Tenant{Workload: rec.Workload, GPUs: gpus})
	}
	ids := make([]string, 0, len(c.pending))
	for id := range c.pending {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		rec := c.pending[id].rec
		if i, in := index[rec.Node]; in {
			out[i].Tenants = append(out[i].Tenants, decide.Tenant{Workload: rec.Workload, GPUs: rec.GPUs})
		}
	}
	for _, j := range others {
		for _, name := range j.Nodes {
			i, in := index[name]
			if !in {
				continue
			}
			gpus, ok := j.GPUIndex[name]
			if !ok {
				_, want, err := gpusWanted(Request{TresPerNode: j.TresPerNode})
				if err != nil {
					continue // not a GPU job
				}
				gpus = lowestFree(out[i], want)
			}
			// A tenant with no workload: its GPUs are taken, not shared.
			out[i].Tenants = append(out[i].Tenants, decide.Tenant{Workload: "", GPUs: gpus})
		}
	}
	return out, byName
}

// lowestFree returns the want lowest GPUs of n no tenant holds (fewer
// when fewer are free).
func lowestFree(n decide.Node, want int) []int {
	held := make([]bool, n.GPUs)
	for _, t := range n.Tenants {
		for _, g := range t.GPUs {
			if g >= 0 && g < n.GPUs {
				held[g] = true
			}
		}
	}
	var out []int
	for g := 0; g < n.GPUs && len(out) < want; g++ {
		if !held[g] {
			out = append(out, g)
		}
	}
	return out
}

func newID() string {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return strconv.FormatInt(time.Now().UnixNano(), 36)
	}
	return hex.EncodeToString(b[:])
}
