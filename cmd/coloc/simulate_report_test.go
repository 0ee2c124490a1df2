package main

import (
	"encoding/json"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/coloc-dev/coloc/sim"
)

// The report's policy table shows the numbers `coloc simulate --json`
// printed in the same run that wrote the replay file (-o) the report
// draws, each rounded as the table rounds it. -short leaves out coloc and
// the oracle, whose IASP and IAPP models take a while to fit.
func TestSimulateJSONMatchesReportTable(t *testing.T) {
	const (
		trace   = "../../examples/traces/msr/103959.trace"
		cluster = "../../examples/cluster-gavel-16.yaml"
	)
	pols, fit := "fifo,backfill,random-pack,greedy-pack,similarity", "similarity"
	if !testing.Short() {
		pols, fit = pols+",coloc,oracle", fit+",iasp,iapp"
	}
	models := filepath.Join(t.TempDir(), "models")
	mustRun(t, "fit", "--data", gavelDir, "-o", models, "--models", fit, "--folds", "0")
	replay := filepath.Join(t.TempDir(), "replay.json")
	js, _ := mustRun(t, "simulate", "--trace", trace, "--cluster", cluster, "--data", gavelDir, "--models", models,
		"--policy", pols, "--seed", "3", "--json", "-o", replay)
	out := filepath.Join(t.TempDir(), "report")
	mustRun(t, "report", "--data", gavelDir, "--scaling-device", "v100", "--sim", replay, "--out", out, "-q")
	page, err := os.ReadFile(filepath.Join(out, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	rows := policyTableRows(t, string(page), "Policies on gavel-16")

	lines := strings.Split(strings.TrimSpace(js), "\n")
	if n := len(strings.Split(pols, ",")); len(lines) != n || len(rows) != n {
		t.Fatalf("%d policies in the JSON, %d rows in the table, want %d each", len(lines), len(rows), n)
	}
	for i, line := range lines {
		var s sim.Summary
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatal(err)
		}
		if s.Jobs < 100 || !(s.AvgJCT > 3600) {
			t.Fatalf("%s: %d jobs, average JCT %gs: too small a case to compare", s.Policy, s.Jobs, s.AvgJCT)
		}
		// trace, policy, two changes, avg JCT, p95 JCT, makespan (h), GPU
		// util, util on k80, p100, v100, jobs, unrunnable, shared jobs.
		want := []string{"msr/103959", s.Policy, "", "",
			f2h(s.AvgJCT), f2h(s.P95JCT), f2h(s.Makespan), fmt.Sprintf("%.3f", s.GPUUtil),
			fmt.Sprintf("%.3f", s.UtilByType["k80"]), fmt.Sprintf("%.3f", s.UtilByType["p100"]), fmt.Sprintf("%.3f", s.UtilByType["v100"]),
			fmt.Sprint(s.Jobs), fmt.Sprint(s.Unrunnable), fmt.Sprint(s.Shared)}
		got := rows[i]
		if len(got) != len(want) {
			t.Fatalf("row %d has %d cells, want %d: %q", i, len(got), len(want), got)
		}
		for c := range want {
			if c == 2 || c == 3 {
				continue // the changes against fifo are the report's own
			}
			if got[c] != want[c] {
				t.Errorf("%s, column %d: report %q, coloc simulate --json %q", s.Policy, c, got[c], want[c])
			}
		}
	}
}

func f2h(seconds float64) string { return fmt.Sprintf("%.2f", seconds/3600) }

// policyTableRows returns the cells of the rows of the report table
// whose caption starts with caption.
func policyTableRows(t *testing.T, page, caption string) [][]string {
	t.Helper()
	i := strings.Index(page, "<caption>"+caption)
	if i < 0 {
		t.Fatalf("the report has no table %q", caption)
	}
	table := page[i:]
	table = table[:strings.Index(table, "</table>")]
	cell := regexp.MustCompile(`<td[^>]*>([^<]*)</td>`)
	var rows [][]string
	for _, tr := range regexp.MustCompile(`<tr>(<td.*?)</tr>`).FindAllStringSubmatch(table, -1) {
		var row []string
		for _, m := range cell.FindAllStringSubmatch(tr[1], -1) {
			row = append(row, html.UnescapeString(m[1]))
		}
		rows = append(rows, row)
	}
	return rows
}
