package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coloc-dev/coloc/integrations/slurm"
	"github.com/coloc-dev/coloc/internal/optional"
	"github.com/coloc-dev/coloc/place/decide"
)

// hookAddr is where the submit hook that scripts/slurm-localhost.sh
// installs asks coloc (COLOC_URL in integrations/slurm/job_submit.lua).
const hookAddr = "127.0.0.1:18480"

// TestSlurmSubmitHook submits held GPU jobs that name workloads to the
// test cluster's GPU partition (scripts/slurm-localhost.sh: two v100 and
// two k80 nodes of 4 GPUs and 8 shards, never running anything), with
// `coloc serve --slurm-poll` answering the installed job_submit.lua, and
// reads every job back with scontrol: each job's node, GRES and record
// must be the decision core's best option (POST /v1/score) for the jobs
// placed before it. Jobs naming no workload, and every job once coloc is
// stopped, pass unchanged.
func TestSlurmSubmitHook(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and submits to Slurm")
	}
	requireSlurm(t)
	requireHookCluster(t)
	in := stopSetup(t)

	var errb bytes.Buffer
	c := exec.Command(in.bin, "serve", "--models", in.models, "--data", in.data, "--addr", hookAddr,
		"--slurm-poll", "1s", "--slurm-states", "idle,mixed,allocated,down")
	pr, pw := io.Pipe()
	c.Stderr = io.MultiWriter(&errb, pw)
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer c.Process.Kill()
	go io.Copy(io.Discard, bufio.NewReader(pr))
	base := "http://" + hookAddr
	deadline := time.Now().Add(2 * time.Minute)
	for {
		resp, err := http.Get(base + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("coloc serve on %s not ready after 2 minutes (is the port taken?):\n%s", hookAddr, errb.String())
		}
		time.Sleep(200 * time.Millisecond)
	}

	out, err := exec.Command("sinfo", "--json").Output()
	if err != nil {
		t.Fatal(err)
	}
	all, err := slurm.ParseNodes(out)
	if err != nil {
		t.Fatal(err)
	}
	var nodes []decide.Node // the GPU partition, in sinfo's order, as serve sees it
	for _, n := range all {
		if slices.Contains(n.Partitions, "coloc-gpu") {
			nodes = append(nodes, decide.Node{Name: n.Name, Type: n.Type, GPUs: n.GPUs})
		}
	}

	var ids []string
	t.Cleanup(func() {
		if len(ids) > 0 {
			exec.Command("scancel", ids...).Run()
		}
	})
	submit := func(args ...string) map[string]string {
		t.Helper()
		args = append([]string{"--parsable", "--hold", "--output", "/dev/null", "--wrap", "true"}, args...)
		out, err := exec.Command("sbatch", args...).CombinedOutput()
		if err != nil {
			t.Fatalf("sbatch %q: %v\n%s", args, err, out)
		}
		id := strings.TrimSpace(strings.Split(string(out), ";")[0])
		ids = append(ids, id)
		return showJob(t, id)
	}

	// 1-GPU jobs of workloads with rates on both types: 16 fill the 16
	// GPUs (v100 first, then k80), the rest share where a pair does more
	// than its tenant alone, or are left as they are.
	workloads := []string{"ResNet-50 (batch size 64)", "LM (batch size 20)", "A3C", "CycleGAN",
		"Transformer (batch size 64)", "ResNet-18 (batch size 64)", "Recommendation (batch size 2048)", "LM (batch size 80)"}
	alone, shared, none := 0, 0, 0
	types := map[string]bool{}
	for i := range 26 {
		w := workloads[i%len(workloads)]
		var q struct {
			Job       map[string]any `json:"job"`
			Nodes     []decide.Node  `json:"nodes"`
			MaxPerGPU int            `json:"max_per_gpu"`
		}
		q.Job = map[string]any{"workload": w, "degrees": []int{1}}
		q.Nodes, q.MaxPerGPU = nodes, 2
		var want struct{ Options []decide.Option }
		postJSON(t, base+"/v1/score", q, &want)
		job := submit("--comment", "coloc: workload="+w, "--gres=gpu:1")
		best := want.Options[0]
		if best.Score <= 0 {
			none++
			if job["ReqNodeList"] != "(null)" || job["AdminComment"] != "" {
				t.Errorf("job %d (%s): placed %s, %q; the core has no option (%s)", i, w, job["ReqNodeList"], job["AdminComment"], best.Reason)
			}
			continue
		}
		rec, ok, err := slurm.ParseRecord(job["AdminComment"])
		if !ok || err != nil {
			t.Fatalf("job %d (%s): admin comment %q: %v", i, w, job["AdminComment"], err)
		}
		wantGres := "gres:gpu:" + nodeType(nodes, best.Node) + ":1"
		if best.Partner != "" {
			wantGres = "gres:shard:1"
		}
		if job["ReqNodeList"] != best.Node || job["TresPerNode"] != wantGres || rec.Node != best.Node || !slices.Equal(rec.GPUs, best.GPUs) || rec.Workload != w {
			t.Errorf("job %d (%s): Slurm has node %s, %s, record %+v; the core chose %s GPUs %v (%s), want %s",
				i, w, job["ReqNodeList"], job["TresPerNode"], rec, best.Node, best.GPUs, best.Reason, wantGres)
		}
		if best.Partner == "" {
			alone++
		} else {
			shared++
		}
		types[nodeType(nodes, best.Node)] = true
		// The state the next decision sees: this job on its GPUs.
		for k := range nodes {
			if nodes[k].Name == rec.Node {
				nodes[k].Tenants = append(nodes[k].Tenants, decide.Tenant{Workload: w, GPUs: rec.GPUs})
			}
		}
	}
	t.Logf("26 jobs: %d alone, %d sharing a GPU, %d left unchanged; types %v", alone, shared, none, types)
	if alone < 16 || shared < 2 || len(types) < 2 {
		t.Errorf("%d alone, %d shared, types %v: want the 16 GPUs filled, at least two jobs sharing, both types", alone, shared, types)
	}

	if job := submit("--gres=gpu:1", "-p", "coloc-gpu"); job["ReqNodeList"] != "(null)" || job["AdminComment"] != "" {
		t.Errorf("a job naming no workload was changed: %v", job)
	}
	c.Process.Signal(syscall.SIGTERM)
	if err := c.Wait(); err != nil {
		t.Fatalf("coloc serve after SIGTERM: %v\n%s", err, errb.String())
	}
	if job := submit("--comment", "coloc: workload=A3C", "--gres=gpu:1", "-p", "coloc-gpu"); job["ReqNodeList"] != "(null)" || job["AdminComment"] != "" || job["TresPerNode"] != "gres:gpu:1" {
		t.Errorf("with coloc down, a job was changed: %v", job)
	}
}

// requireHookCluster checks that the cluster is the one
// scripts/slurm-localhost.sh configures: the GPU partition and this
// repository's hook.
func requireHookCluster(t *testing.T) {
	t.Helper()
	fail := func(msg string) {
		optional.Missing(t, "slurm", "COLOC_REQUIRE_SLURM", msg+" (sudo bash scripts/slurm-localhost.sh configures it)")
	}
	if out, err := exec.Command("sinfo", "-h", "-p", "coloc-gpu", "-o", "%D").Output(); err != nil || strings.TrimSpace(string(out)) == "" {
		fail("the cluster has no coloc-gpu partition")
	}
	want, err := os.ReadFile("../../integrations/slurm/job_submit.lua")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile("/etc/slurm/job_submit.lua"); err != nil || !bytes.Equal(got, want) {
		fail("/etc/slurm/job_submit.lua is not integrations/slurm/job_submit.lua")
	}
}

// showJob reads a job's fields with scontrol (one line; AdminComment and
// Comment may hold spaces, so they are cut at the next known field).
func showJob(t *testing.T, id string) map[string]string {
	t.Helper()
	out, err := exec.Command("scontrol", "show", "job", "-o", id).Output()
	if err != nil {
		t.Fatalf("scontrol show job %s: %v", id, err)
	}
	line := strings.TrimSpace(string(out))
	got := map[string]string{}
	for _, k := range []string{"ReqNodeList", "TresPerNode", "AdminComment"} {
		i := strings.Index(line, " "+k+"=")
		if i < 0 {
			continue
		}
		v := line[i+len(k)+2:]
		if k == "AdminComment" {
			v, _, _ = strings.Cut(v, " Comment=")
			v, _, _ = strings.Cut(v, " DelayBoot=")
		} else {
			v, _, _ = strings.Cut(v, " ")
		}
		got[k] = strings.TrimSpace(v)
	}
	if _, ok := got["ReqNodeList"]; !ok {
		t.Fatalf("scontrol show job %s: no ReqNodeList in %q", id, line)
	}
	return got
}

func nodeType(nodes []decide.Node, name string) string {
	for _, n := range nodes {
		if n.Name == name {
			return n.Type
		}
	}
	return ""
}

func postJSON(t *testing.T, url string, body, into any) {
	t.Helper()
	b, _ := json.Marshal(body)
	resp, err := http.Post(url, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(resp.Body)
		t.Fatalf("POST %s: %s: %s", url, resp.Status, msg)
	}
	if err := json.NewDecoder(resp.Body).Decode(into); err != nil {
		t.Fatal(fmt.Errorf("POST %s: %w", url, err))
	}
}
