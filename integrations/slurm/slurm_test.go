package slurm

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// What Debian's Slurm 22.05 printed on the test cluster of
// scripts/slurm-localhost.sh: four GPU nodes (two v100, two k80, 4 GPUs
// and 8 shards each) and the CPU node, and four held jobs.
func TestParsesSlurm2205(t *testing.T) {
	b, err := os.ReadFile("testdata/sinfo-22.05.json")
	if err != nil {
		t.Fatal(err)
	}
	nodes, err := ParseNodes(b)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range nodes {
		got = append(got, fmt.Sprintf("%s:%s:%d:%d:%s:%v", n.Name, n.Type, n.GPUs, n.Shards, n.State, n.Partitions))
	}
	want := "coloc-k80-1:k80:4:8:idle:[coloc-gpu] coloc-k80-2:k80:4:8:idle:[coloc-gpu] coloc-v100-1:v100:4:8:idle:[coloc-gpu] coloc-v100-2:v100:4:8:idle:[coloc-gpu] vm::0:0:idle:[debug]"
	if strings.Join(got, " ") != want {
		t.Errorf("nodes\n%s\nwant\n%s", strings.Join(got, " "), want)
	}
	if b, err = os.ReadFile("testdata/squeue-22.05.json"); err != nil {
		t.Fatal(err)
	}
	jobs, err := ParseJobs(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 4 || jobs[0].ID != 26 || jobs[0].State != "PENDING" || jobs[0].TresPerNode != "gres:shard:2" || jobs[1].TresPerNode != "gres:gpu:v100:2" || jobs[3].Partition != "debug" {
		t.Errorf("jobs %+v", jobs)
	}
}

func TestParseErrorsNameTheCommand(t *testing.T) {
	if _, err := ParseNodes([]byte(`{"nodes": [{"gres": "gpu:1"}]}`)); err == nil || !strings.Contains(err.Error(), "nodes[0] has no name") {
		t.Errorf("nameless node: %v", err)
	}
	if _, err := ParseJobs([]byte(`{"jobs": [{"job_id": 7, "nodes": "n[3-1]"}]}`)); err == nil || !strings.Contains(err.Error(), "job 7") {
		t.Errorf("bad host list: %v", err)
	}
	if _, err := ParseJobs([]byte(`not json`)); err == nil || !strings.HasPrefix(err.Error(), "squeue --json") {
		t.Errorf("not json: %v", err)
	}
	// Later Slurm versions print states as lists.
	nodes, err := ParseNodes([]byte(`{"nodes": [{"name": "a", "gres": "gpu:p100:2(S:0)", "state": ["MIXED", "DRAIN"]}]}`))
	if err != nil || nodes[0].State != "mixed" || nodes[0].Type != "p100" || nodes[0].GPUs != 2 {
		t.Errorf("list state: %+v %v", nodes, err)
	}
}

func TestExpandHostlist(t *testing.T) {
	for in, want := range map[string]string{
		"":                  "",
		"a":                 "a",
		"n[1-3,5],b":        "n1 n2 n3 n5 b",
		"gpu[01-02]-x,c[9]": "gpu01-x gpu02-x c9",
	} {
		got, err := ExpandHostlist(in)
		if err != nil || strings.Join(got, " ") != want {
			t.Errorf("%q: %v %v, want %s", in, got, err, want)
		}
	}
	for _, bad := range []string{"n[2-1]", "n[x]", "n]1["} {
		if _, err := ExpandHostlist(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestRecordRoundTrip(t *testing.T) {
	r := Record{ID: "ab12", Node: "gpu-1", GPUs: []int{0, 3}, Workload: "ResNet-50 (batch size 64)"}
	got, ok, err := ParseRecord(r.String())
	if !ok || err != nil || got.ID != r.ID || got.Node != r.Node || !slices.Equal(got.GPUs, r.GPUs) || got.Workload != r.Workload {
		t.Errorf("%q read back as %+v %v %v", r.String(), got, ok, err)
	}
	if strings.ContainsAny(strings.TrimPrefix(r.String(), recordPrefix), "()") {
		t.Errorf("%q: the workload is not escaped", r.String())
	}
	if _, ok, _ := ParseRecord("someone else's comment"); ok {
		t.Error("a foreign comment read as a record")
	}
	if _, ok, err := ParseRecord("coloc:v1 id=x node=n gpus=a workload=w"); !ok || err == nil {
		t.Errorf("bad gpus: %v", err)
	}
}

func TestWorkloadOf(t *testing.T) {
	for in, want := range map[string]string{
		"coloc: workload=LM (batch size 20)":                    "LM (batch size 20)",
		"  coloc:workload=A3C; estimate=3600":                   "A3C",
		"coloc: estimate=1; workload=ResNet-18 (batch size 32)": "ResNet-18 (batch size 32)",
		"my job":         "",
		"coloc: nothing": "",
	} {
		if got := WorkloadOf(in); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}

// rates: solo rate per GPU 2 on v100, 1 on k80 for every workload; pairs
// of "a" and "b" are worth sharing (1.4), pairs with "c" are not.
type rates struct{}

func (rates) Solo(w, t string, gpus int, spread bool) (float64, bool) {
	if w == "z" {
		return 0, false
	}
	return map[string]float64{"v100": 2, "k80": 1}[t] * float64(gpus), true
}

func (rates) Pair(w, q, t string, gpus int) (float64, bool) {
	switch w + q {
	case "ab":
		return 0.8, true
	case "ba":
		return 0.6, true
	case "ac", "ca", "bc", "cb", "aa", "bb", "cc":
		return 0.45, true
	}
	return 0, false
}

func testCluster(now *time.Time) *Cluster {
	c := NewCluster(Options{Poll: 10 * time.Second, Now: func() time.Time { return *now }})
	c.Update([]Node{
		{Name: "k1", Type: "k80", GPUs: 2, Shards: 4, Partitions: []string{"gpu"}, State: "idle"},
		{Name: "v1", Type: "v100", GPUs: 2, Shards: 4, Partitions: []string{"gpu"}, State: "idle"},
		{Name: "v2", Type: "v100", GPUs: 2, Partitions: []string{"gpu"}, State: "idle"}, // no shards
		{Name: "v3", Type: "v100", GPUs: 2, Shards: 4, Partitions: []string{"gpu"}, State: "down"},
		{Name: "cpu", Partitions: []string{"debug"}, State: "idle"},
	}, nil)
	return c
}

// Jobs fill the free v100 GPUs first, then the k80s, then share a v100
// with a partner worth sharing with; the decisions made between polls
// count as tenants; the shard request splits a GPU's shards in two.
func TestPlaceFillsThenShares(t *testing.T) {
	now := time.Unix(1000, 0)
	c := testCluster(&now)
	var got []string
	for _, w := range []string{"a", "a", "a", "a", "a", "a", "b", "b", "c"} {
		d, err := c.Place(rates{}, 2, Request{Workload: w, Partition: "gpu", TresPerNode: "gres:gpu:1"})
		if err != nil {
			t.Fatal(err)
		}
		if !d.Place {
			got = append(got, "none")
			continue
		}
		got = append(got, d.Node+":"+d.TresPerNode)
		rec, ok, err := ParseRecord(d.AdminComment)
		if !ok || err != nil || rec.Node != d.Node || rec.Workload != w || !slices.Equal(rec.GPUs, d.Option.GPUs) {
			t.Errorf("admin comment %q for %+v: %v", d.AdminComment, d, err)
		}
	}
	want := "v1:gres:gpu:v100:1 v1:gres:gpu:v100:1 v2:gres:gpu:v100:1 v2:gres:gpu:v100:1 k1:gres:gpu:k80:1 k1:gres:gpu:k80:1 v1:gres:shard:1 v1:gres:shard:1 none"
	if strings.Join(got, " ") != want {
		t.Errorf("decisions\n%s\nwant\n%s", strings.Join(got, " "), want)
	}
}

// A poll that lists a decision's job replaces the pending decision with
// the job (no double count); a decision no poll ever lists is forgotten
// after three poll intervals.
func TestPendingDecisions(t *testing.T) {
	now := time.Unix(1000, 0)
	c := testCluster(&now)
	nodes := c.nodes
	first, _ := c.Place(rates{}, 1, Request{Workload: "a", TresPerNode: "gres:gpu:2"})
	if !first.Place || first.Node != "v1" || first.Partition != "gpu" {
		t.Fatalf("first %+v", first)
	}
	second, _ := c.Place(rates{}, 1, Request{Workload: "a", TresPerNode: "gres:gpu:2"})
	if second.Node != "v2" {
		t.Fatalf("second %+v, want v2 (v1 is taken by the pending first)", second)
	}
	// The poll lists the first job only; the second's decision stays.
	now = now.Add(5 * time.Second)
	c.Update(nodes, []Job{{ID: 1, State: "PENDING", AdminComment: first.AdminComment}})
	if len(c.pending) != 1 {
		t.Fatalf("pending %v, want the second only", c.pending)
	}
	third, _ := c.Place(rates{}, 1, Request{Workload: "a", TresPerNode: "gres:gpu:2"})
	if third.Node != "k1" {
		t.Errorf("third %+v, want k1", third)
	}
	// Long after: the second's and third's jobs never showed up.
	now = now.Add(31 * time.Second)
	c.Update(nodes, []Job{{ID: 1, State: "PENDING", AdminComment: first.AdminComment}})
	if len(c.pending) != 0 {
		t.Errorf("pending %v after three poll intervals", c.pending)
	}
	// A finished job holds nothing.
	c.Update(nodes, []Job{{ID: 1, State: "COMPLETED", AdminComment: first.AdminComment}})
	if d, _ := c.Place(rates{}, 1, Request{Workload: "a", TresPerNode: "gres:gpu:2"}); d.Node != "v1" {
		t.Errorf("after the job ended: %+v, want v1", d)
	}
}

// Running jobs that coloc did not place hold their GPUs (Slurm's indices,
// or the lowest free) and are never shared; a job's GPU type and
// partition narrow the nodes; no GPU request or no node is a reason, not
// an error.
func TestPlaceAroundOtherJobs(t *testing.T) {
	now := time.Unix(1000, 0)
	c := testCluster(&now)
	c.Update(c.nodes, []Job{
		{ID: 1, State: "RUNNING", Nodes: []string{"v1"}, TresPerNode: "gres:gpu:1", GPUIndex: map[string][]int{"v1": {1}}},
		{ID: 2, State: "RUNNING", Nodes: []string{"v2"}, TresPerNode: "gres:gpu:v100:2"},
		{ID: 3, State: "PENDING", Nodes: nil, TresPerNode: "gres:gpu:2"},
	})
	d, _ := c.Place(rates{}, 2, Request{Workload: "a", TresPerNode: "gres:gpu:1"})
	if d.Node != "v1" || !slices.Equal(d.Option.GPUs, []int{0}) {
		t.Errorf("%+v, want GPU 0 of v1 (GPU 1 is Slurm's job 1's)", d)
	}
	d, _ = c.Place(rates{}, 2, Request{Workload: "b", TresPerNode: "gres:gpu:1"})
	if d.Node != "k1" {
		t.Errorf("%+v, want k1: v2 is full, v1's job 1 is not coloc's", d)
	}
	// Only v100s, by --gpus: v1's GPU 0 beside coloc's "a" (GPU 1 is job 1's).
	d, _ = c.Place(rates{}, 2, Request{Workload: "b", TresPerJob: "gres:gpu:v100:1"})
	if d.Node != "v1" || d.Option.Partner != "a" || !slices.Equal(d.Option.GPUs, []int{0}) || d.TresPerNode != "gres:shard:1" {
		t.Errorf("typed request: %+v, want to share v1's GPU 0 with a", d)
	}
	for _, q := range []Request{
		{Workload: "a"}, // no GPUs
		{Workload: "a", TresPerNode: "gres:gpu:1", Partition: "debug"}, // no GPU node
		{Workload: "z", TresPerNode: "gres:gpu:1"},                     // no rate
		{Workload: "a", TresPerNode: "gres:gpu:v100:8"},                // too big
	} {
		d, err := c.Place(rates{}, 2, q)
		if err != nil || d.Place || d.Reason == "" {
			t.Errorf("%+v: %+v %v, want no placement with a reason", q, d, err)
		}
	}
	if _, err := c.Place(rates{}, 2, Request{TresPerNode: "gres:gpu:1"}); err == nil {
		t.Error("no workload is no request")
	}
}

// Poll runs sinfo and squeue, and a failed command keeps the last view.
func TestPollUsesSlurmsJSON(t *testing.T) {
	sinfo, _ := os.ReadFile("testdata/sinfo-22.05.json")
	squeue, _ := os.ReadFile("testdata/squeue-22.05.json")
	fail := false
	c := NewCluster(Options{Poll: time.Second, Run: func(ctx context.Context, name string, args ...string) ([]byte, error) {
		if fail {
			return nil, fmt.Errorf("%s: connection refused", name)
		}
		return map[string][]byte{"sinfo": sinfo, "squeue": squeue}[name], nil
	}})
	if d, _ := c.Place(rates{}, 2, Request{Workload: "a", TresPerNode: "gres:gpu:1"}); d.Place || !strings.Contains(d.Reason, "not been read") {
		t.Errorf("before a poll: %+v", d)
	}
	if err := c.Poll(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Job 26's admin comment is not a record: no tenant; the nodes are idle.
	d, _ := c.Place(rates{}, 2, Request{Workload: "a", TresPerNode: "gres:gpu:1"})
	if !d.Place || d.Node != "coloc-v100-1" || d.Partition != "coloc-gpu" || d.TresPerNode != "gres:gpu:v100:1" {
		t.Errorf("%+v", d)
	}
	fail = true
	if err := c.Poll(context.Background()); err == nil || len(c.nodes) != 5 {
		t.Errorf("failed poll: %v, %d nodes kept", err, len(c.nodes))
	}
}
