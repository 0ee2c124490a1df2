package reports

import (
	"fmt"
	"slices"
	"strings"

	"github.com/coloc-dev/coloc/model/eval"
	"github.com/coloc-dev/coloc/sim"
)

// The summary opens the report: what the sections below find, one screen.
// Each step that has something to say adds its rows as it runs; build
// puts the section first.

// peers are the published policies coloc is measured against: the
// strongest of them in a case is the one with the lowest average JCT.
var peers = []string{"gavel-las", "gavel-las-packed", "tiresias"}

// colocModels are coloc's interference models, and treeModels the tree
// baselines given the same inputs, as the summary compares them.
var (
	colocModels = []string{"iasp", "iapp", "rlfm", "committee", "stack"}
	treeModels  = []string{"tree", "gbt", "forest", "gbt-sums"}
)

// summarizePolicies adds a row per replay where coloc and a peer ran:
// coloc's average JCT and makespan over the strongest peer's.
func (b *builder) summarizePolicies(rps []*replay) {
	for _, rp := range rps {
		var coloc, best *sim.Result
		for _, r := range rp.Results {
			switch {
			case r.Policy == "coloc":
				coloc = r
			case slices.Contains(peers, r.Policy) && (best == nil || r.AvgJCT < best.AvgJCT):
				best = r
			}
		}
		if coloc == nil || best == nil || !(best.AvgJCT > 0) || !(best.Makespan > 0) {
			continue
		}
		b.sumPolicies = append(b.sumPolicies, []string{traceName(rp.Trace.Path), rp.Cluster.Name, best.Policy,
			fmt.Sprintf("%.3f", coloc.AvgJCT/best.AvgJCT), fmt.Sprintf("%.3f", coloc.Makespan/best.Makespan)})
	}
}

// summarizeModels adds a row per (protocol, device, fraction) where one
// of coloc's models and a tree baseline were scored: the best of each by
// median MAE, their ratio, and the interval coverage of coloc's best.
func (b *builder) summarizeModels(res *eval.Result) {
	type cell struct {
		proto, dev string
		frac       float64
	}
	type best struct {
		model string
		s     eval.Summary
	}
	var order []cell
	seen := map[cell]bool{}
	ours, trees := map[cell]*best{}, map[cell]*best{}
	for _, s := range res.Summaries {
		c := cell{s.Protocol, s.Device, s.Fraction}
		pick := func(m map[cell]*best) {
			if cur, ok := m[c]; !ok || s.MAEMedian < cur.s.MAEMedian {
				m[c] = &best{s.Model, s}
			}
		}
		if !seen[c] {
			seen[c] = true
			order = append(order, c)
		}
		switch {
		case slices.Contains(colocModels, s.Model):
			pick(ours)
		case slices.Contains(treeModels, s.Model):
			pick(trees)
		}
	}
	for _, c := range order {
		o, t := ours[c], trees[c]
		if o == nil || t == nil || !(t.s.MAEMedian > 0) {
			continue
		}
		cov := "-"
		if o.s.CoverageMedian > 0 {
			cov = fmt.Sprintf("%.2f", o.s.CoverageMedian)
		}
		b.sumModels = append(b.sumModels, []string{c.proto, c.dev, fmt.Sprint(c.frac),
			fmt.Sprintf("%s %.4f", o.model, o.s.MAEMedian), fmt.Sprintf("%s %.4f", t.model, t.s.MAEMedian),
			fmt.Sprintf("%.3f", o.s.MAEMedian/t.s.MAEMedian), cov})
	}
}

// summary is the opening section, or false when no step added a row.
func (b *builder) summary() (section, bool) {
	sec := section{Title: "Summary", Text: "What the sections below find, in one place. Policies: coloc's average JCT and makespan " +
		"over those of the strongest of the published peers (" + strings.Join(peers, ", ") + ") in each case, below 1 when coloc is better. " +
		"Models: the best of coloc's interference models against the best tree baseline given the same inputs, by median " +
		"absolute error of the normalized throughput on held-out pairs (below 1 when coloc's is better), with the coverage " +
		"of its intervals."}
	if len(b.sumPolicies) > 0 {
		sec.Tables = append(sec.Tables, table{Caption: "coloc against the strongest peer",
			Header: []string{"trace", "cluster", "strongest peer", "avg JCT ratio", "makespan ratio"}, Rows: b.sumPolicies})
	}
	if len(b.sumModels) > 0 {
		sec.Tables = append(sec.Tables, table{Caption: "coloc's best model against the best tree baseline",
			Header: []string{"protocol", "device", "fraction", "coloc (MAE)", "tree (MAE)", "ratio", "coverage"}, Rows: b.sumModels})
	}
	return sec, len(sec.Tables) > 0
}
