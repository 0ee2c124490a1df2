package paper

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/coloc-dev/coloc/model"
	"github.com/coloc-dev/coloc/model/eval"
	"github.com/coloc-dev/coloc/model/eval/evalfile"
	"github.com/coloc-dev/coloc/reports"
	"github.com/coloc-dev/coloc/sim"
	"github.com/coloc-dev/coloc/sim/experiment"
	"github.com/coloc-dev/coloc/sim/policies"
)

// stagesDir is the directory, inside the report directory, that holds the
// stages' files the page draws.
const stagesDir = "stages"

// Build checks the plan, then writes the page: in the directory the
// report is built in (reports.Config.Stages), so that the stages' files
// and the page are installed as one change, it runs the stages into
// stages/ — models (coloc fit), eval.arrow (coloc eval -o),
// predictions.arrow (coloc eval --predictions), active.json (coloc eval
// --protocol active -o) and one replay-DIR-TRACE-CLUSTER.json per
// scenario (coloc simulate -o) — and the report draws those files.
func (p *Plan) Build() (*reports.Summary, error) {
	if err := p.check(); err != nil {
		return nil, err
	}
	cfg := p.Report
	cfg.Progress = p.Progress
	cfg.Stages = p.stages
	return reports.Build(cfg)
}

// check refuses a plan that would fail only after minutes of work: an
// unknown model or policy, a split outside [0, 1), no scenario.
func (p *Plan) check() error {
	if len(p.Report.Data) == 0 {
		return fmt.Errorf("paper: no reference data")
	}
	if len(p.Models) == 0 || len(p.Evaluated) == 0 {
		return fmt.Errorf("paper: no model to fit or to evaluate")
	}
	for _, m := range append(slices.Concat(p.Models, p.Evaluated), p.Active.Model) {
		if _, err := model.New(m); err != nil {
			return err
		}
	}
	known := experiment.All(policies.Config{})
	for _, name := range p.Policies {
		if _, err := sim.Lookup(known, name); err != nil {
			return fmt.Errorf("policy: %w", err)
		}
	}
	if !(p.SplitFraction >= 0 && p.SplitFraction < 1) || p.SplitSeed < 1 {
		return fmt.Errorf("paper: split fraction %v, seed %d: want a fraction in [0, 1) and a seed of 1 or more", p.SplitFraction, p.SplitSeed)
	}
	if len(p.Scenarios) == 0 || len(p.Policies) == 0 {
		return fmt.Errorf("paper: no trace or no policy to replay")
	}
	return nil
}

// stages runs the stages into dir/stages and points cfg at their files.
func (p *Plan) stages(dir string, cfg *reports.Config) error {
	stages := filepath.Join(dir, stagesDir)
	if err := os.MkdirAll(stages, 0o755); err != nil {
		return err
	}
	data := cfg.Data[0]
	d, err := model.LoadData(data)
	if err != nil {
		return err
	}
	models := filepath.Join(stages, "models")
	_, hit, err := cachedModels(p.Cache, models, d, p.Models, model.DefaultSeed)
	if err != nil {
		return err
	}
	how := "fitted on every measured pair"
	if hit {
		how = "copied from the cache"
	}
	p.logf("models: %d %s", len(p.Models), how)
	if cfg.EvalFile, err = p.evaluate(d, stages); err != nil {
		return err
	}
	if cfg.PredictionsFile, err = p.predict(d, stages); err != nil {
		return err
	}
	if cfg.ActiveFile, err = p.curves(d, stages); err != nil {
		return err
	}
	cfg.SimFiles, err = p.replay(data, models, stages)
	return err
}

// predict writes the held-out predictions of the split into
// stages/predictions.arrow.
func (p *Plan) predict(d *model.Data, stages string) (string, error) {
	preds, err := evalfile.PredictSplit(d, p.Evaluated, p.Devices, p.SplitFraction, p.SplitSeed, p.Workers)
	if err != nil {
		return "", err
	}
	path := filepath.Join(stages, "predictions.arrow")
	split := eval.Split{Protocol: "pairs", Fraction: p.SplitFraction, Seed: p.SplitSeed}
	p.logf("predictions: %d held-out pairs", len(preds))
	return path, evalfile.WritePredictions(path, &evalfile.Predictions{Split: split, Rows: preds})
}

// evaluate writes the evaluation of the models (protocol pairs) into
// stages/eval.arrow, from the cache when it holds it.
func (p *Plan) evaluate(d *model.Data, stages string) (string, error) {
	o := eval.Options{Protocols: []string{"pairs"}, Fractions: p.Fractions, Seeds: p.Seeds,
		Models: p.Evaluated, Devices: p.Devices, Workers: p.Workers, Progress: p.Progress}
	var res *eval.Result
	var err error
	if p.Cache != "" {
		var hit bool
		if res, hit, err = eval.RunCached(p.Cache, d, o); err == nil && hit {
			p.logf("evaluation reused from the cache %s", p.Cache)
		}
	} else {
		res, err = eval.Run(d, o)
	}
	if err != nil {
		return "", err
	}
	path := filepath.Join(stages, "eval.arrow")
	return path, res.Write(path)
}

// curves writes the learning curves into stages/active.json, from the
// cache when it holds them.
func (p *Plan) curves(d *model.Data, stages string) (string, error) {
	o := p.Active
	o.Progress = p.Progress
	var res *eval.ActiveResult
	var err error
	if p.Cache != "" {
		var hit bool
		if res, hit, err = runActiveCached(p.Cache, d, o); err == nil && hit {
			p.logf("learning curves reused from the cache %s", p.Cache)
		}
	} else {
		res, err = eval.RunActive(d, o)
	}
	if err != nil {
		return "", err
	}
	path := filepath.Join(stages, "active.json")
	return path, evalfile.WriteActive(path, &evalfile.Active{Options: o, Result: res})
}

// replay replays every scenario under the policies, one per CPU at once,
// and writes each replay's file; the files keep the scenarios' order.
// A replay names the model directory relative to the report directory
// (stages/models), so the same paper gives the same files wherever it
// is written.
func (p *Plan) replay(data, models, stages string) ([]string, error) {
	truth, err := experiment.LoadTruth(data)
	if err != nil {
		return nil, err
	}
	files := make([]string, len(p.Scenarios))
	err = model.ForEach(len(p.Scenarios), p.Workers, func(i int) error {
		sc := p.Scenarios[i]
		tr, err := sim.LoadTrace(sc.Trace)
		if err != nil {
			return err
		}
		topo, err := experiment.LoadTopology(sc.Cluster)
		if err != nil {
			return err
		}
		// The experiment `coloc simulate` runs, at its defaults.
		x := experiment.Experiment{Jobs: tr.Jobs, Topology: topo, Truth: truth, Policies: p.Policies,
			Options: sim.DefaultOptions, Env: sim.Env{Seed: p.Seed},
			Config: policies.Config{Models: models, EstimateMedian: sim.DefaultEstimateMedian, EstimateSigma: sim.DefaultEstimateSigma}}
		res, err := x.Run()
		if err != nil {
			return fmt.Errorf("%s on %s: %w", sc.Trace, sc.Cluster, err)
		}
		rp, err := experiment.NewReplay(experiment.Inputs{Trace: sc.Trace, Cluster: sc.Cluster, Data: data}, tr, &x, res)
		if err != nil {
			return err
		}
		rp.Models = filepath.ToSlash(filepath.Join(stagesDir, "models"))
		name := strings.TrimSuffix(filepath.Base(sc.Trace), filepath.Ext(sc.Trace))
		files[i] = filepath.Join(stages, fmt.Sprintf("replay-%s-%s-%s.json", filepath.Base(filepath.Dir(sc.Trace)), name, topo.Name))
		p.logf("simulated %s on %s: %d policies", name, topo.Name, len(res))
		return experiment.WriteReplay(files[i], rp)
	})
	if err != nil {
		return nil, err
	}
	return files, nil
}

func (p *Plan) logf(format string, args ...any) {
	if p.Progress != nil {
		fmt.Fprintf(p.Progress, "paper: "+format+"\n", args...)
	}
}
