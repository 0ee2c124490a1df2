package eval

import (
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/coloc-dev/coloc/model"
)

// fitJob is one fit of a sweep: model name on task k of cell c.
type fitJob struct {
	name string
	cell int // index into the sweep's cells
	tk   task
	seed int
}

// runFits runs every fit of the sweep of o over devices on up to
// o.Workers goroutines and assembles the cells and summaries in the order
// of the loops model, protocol, device, fraction, seed, with the scored
// pairs of each cell in task order: the result of one worker.
func runFits(d *model.Data, o Options, devices []string) (*Result, error) {
	type splitKey struct {
		proto, dev string
		f          float64
		seed       int
	}
	splits := map[splitKey][]task{}
	var cells []Cell
	var jobs []fitJob
	var groupEnd []int // index of the first job after each (model, protocol, device)
	var groupName []string
	for _, name := range o.Models {
		for _, proto := range o.Protocols {
			for _, dev := range devices {
				for _, f := range o.Fractions {
					for seed := 1; seed <= o.Seeds; seed++ {
						k := splitKey{proto, dev, f, seed}
						tasks, ok := splits[k]
						if !ok {
							var err error
							tasks, err = splitTasks(d, Split{Protocol: proto, Device: dev, Fraction: f, Seed: seed}, devices)
							if err != nil {
								return nil, err
							}
							splits[k] = tasks
						}
						for _, tk := range tasks {
							jobs = append(jobs, fitJob{name: name, cell: len(cells), tk: tk, seed: seed})
						}
						cells = append(cells, Cell{Model: name, Protocol: proto, Device: dev, Fraction: f, Seed: seed})
					}
				}
				groupEnd = append(groupEnd, len(jobs))
				groupName = append(groupName, fmt.Sprintf("%-10s %-12s %-6s", name, proto, dev))
			}
		}
	}
	got := make([]fitted, len(jobs))
	errs := make([]error, len(jobs))
	took := make([]time.Duration, len(jobs))
	prog := newProgress(o, groupEnd, groupName, took)
	// A fit that fails is recorded, not fatal: its cell is reported and
	// skipped below (too few pairs at a small fraction, say), so every
	// other cell of the sweep is still scored.
	model.ForEach(len(jobs), o.Workers, func(i int) error {
		j := jobs[i]
		start := time.Now()
		got[i], errs[i] = fitTask(d.Space, j.name, j.tk, j.seed, o.Trust)
		took[i] = time.Since(start)
		prog.done(i)
		return nil
	})
	prog.done(-1)
	type acc struct {
		xs                        []scored
		outside, unmeasured, fits int
		err                       error
	}
	accs := make([]acc, len(cells))
	for i, j := range jobs {
		a := &accs[j.cell]
		if errs[i] != nil {
			if a.err == nil {
				a.err = errs[i]
			}
			continue
		}
		a.xs = append(a.xs, got[i].xs...)
		a.outside += got[i].outside
		a.unmeasured += got[i].unmeasured
		if len(j.tk.test) > 0 {
			a.fits++
		}
	}
	res := &Result{Warnings: append([]string(nil), d.Warnings...)}
	for c0 := 0; c0 < len(cells); c0 += o.Seeds {
		var kept []Cell
		for c := c0; c < c0+o.Seeds; c++ {
			a := accs[c]
			if a.err != nil {
				cl := cells[c]
				sp := Split{Protocol: cl.Protocol, Device: cl.Device, Fraction: cl.Fraction, Seed: cl.Seed}
				res.Skipped++
				res.Warnings = append(res.Warnings, fmt.Sprintf("%s, %s: skipped: %v%s", cl.Model, sp, a.err, hint(a.err)))
				continue
			}
			cl := cells[c]
			cl.Metrics = score(a.xs)
			cl.NUnmeasured = a.unmeasured
			cl.OutOfRange = math.NaN()
			if a.unmeasured > 0 {
				cl.OutOfRange = float64(a.outside) / float64(a.unmeasured)
			}
			res.Fits += a.fits
			kept = append(kept, cl)
		}
		if len(kept) == 0 {
			continue
		}
		res.Cells = append(res.Cells, kept...)
		res.Summaries = append(res.Summaries, summarise(kept))
	}
	return res, nil
}

// progress prints one line per (model, protocol, device) once its fits
// and those of every earlier group are done, so lines keep the loop order
// whatever the number of workers.
type progress struct {
	o         Options
	mu        sync.Mutex
	left      []int // fits not yet done, per group
	groupOf   []int // group of each job
	name      []string
	took      []time.Duration
	first     []int // first job of each group
	nextPrint int
}

func newProgress(o Options, groupEnd []int, name []string, took []time.Duration) *progress {
	p := &progress{o: o, name: name, took: took, left: make([]int, len(groupEnd)), first: make([]int, len(groupEnd))}
	start := 0
	for g, end := range groupEnd {
		p.first[g] = start
		p.left[g] = end - start
		for i := start; i < end; i++ {
			p.groupOf = append(p.groupOf, g)
		}
		start = end
	}
	return p
}

// done records that job i is done (-1: none, print what is due).
func (p *progress) done(i int) {
	if p.o.Progress == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if i >= 0 {
		p.left[p.groupOf[i]]--
	}
	for p.nextPrint < len(p.left) && p.left[p.nextPrint] == 0 {
		g := p.nextPrint
		var sum time.Duration
		end := len(p.took)
		if g+1 < len(p.first) {
			end = p.first[g+1]
		}
		for _, t := range p.took[p.first[g]:end] {
			sum += t
		}
		fmt.Fprintf(p.o.Progress, "eval: %s %6.2fs\n", p.name[g], sum.Seconds())
		p.nextPrint++
	}
}
