package profile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestWritePlan(t *testing.T) {
	s := fakeSuiteFile(t, "duo", [2]string{"a", "ok"}, [2]string{"b", "ok"})
	full, err := NewPlan(s, planOpts("all", 1, 0, 1)) // 2 solo, 3 pairs
	if err != nil {
		t.Fatal(err)
	}
	p, err := full.Shard(1, 2)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WritePlanText(&b, s, full, p, "1/2", 0); err != nil {
		t.Fatal(err)
	}
	for _, re := range []string{`^suite duo \(sha256:\S+\): 2 workloads, 0 GPUs\nshard 1/2: \d of 5 runs\n`, `\nRUN +MODE +DEGREE +REPEAT +ESTIMATE\n`,
		`\n\d runs \(\d solo, \d pair, 0 scale\), estimated \S+\n$`} {
		if !regexp.MustCompile(re).MatchString(b.String()) {
			t.Errorf("text lacks %s:\n%s", re, b.String())
		}
	}
	b.Reset()
	if err := WritePlanJSON(&b, s, full, p, "1/2"); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		PlanHash string       `json:"plan_hash"`
		Shard    string       `json:"shard"`
		Runs     []PlannedRun `json:"runs"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.PlanHash != full.Hash() || doc.Shard != "1/2" || len(doc.Runs) != len(p.Runs) {
		t.Errorf("%+v", doc)
	}
}

// After a campaign with failed runs, its progress counts them, and what a
// run would redo follows the retry and force settings.
func TestReadPlanProgress(t *testing.T) {
	s := fakeSuiteFile(t, "bad", [2]string{"a", "ok"}, [2]string{"bad", "crash"})
	po := planOpts("all", 1, 0, 1)
	dir := t.TempDir()
	sum := runShard(t, dir, s, po, 1, 1, "cpu")
	plan, err := NewPlan(s, po)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	sum.WriteFailed(&b)
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != sum.Failed+1 || lines[0] != fmt.Sprintf("%d of %d runs failed:", sum.Failed, len(plan.Runs)) ||
		!slices.IsSorted(lines[1:]) || !strings.Contains(lines[1], "bad") {
		t.Errorf("failed runs:\n%s", b.String())
	}
	camp := dir
	for _, c := range []struct {
		force, retryFailed bool
		todo               int
	}{{false, false, 0}, {false, true, sum.Failed}, {true, false, len(plan.Runs)}} {
		pr, err := ReadPlanProgress(camp, plan, c.force, Retry{Failed: c.retryFailed})
		if err != nil {
			t.Fatal(err)
		}
		if pr.Finished != len(plan.Runs) || pr.Failed != sum.Failed || pr.Failed == 0 || pr.ToDo != c.todo {
			t.Errorf("force %v, retry failed %v: %+v, want %d finished, %d failed, %d to do", c.force, c.retryFailed, pr, len(plan.Runs), sum.Failed, c.todo)
		}
	}
}
