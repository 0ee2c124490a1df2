package eval

import (
	"fmt"
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
	scoredBy := make([][]scored, len(jobs))
	took := make([]time.Duration, len(jobs))
	prog := newProgress(o, groupEnd, groupName, took)
	err := model.ForEach(len(jobs), o.Workers, func(i int) error {
		j := jobs[i]
		start := time.Now()
		got, err := fitAndScore(d.Space, j.name, j.tk, j.seed)
		if err != nil {
			c := cells[j.cell]
			return fmt.Errorf("%s, %s on %s, fraction %g, seed %d: %w", c.Model, c.Protocol, c.Device, c.Fraction, c.Seed, err)
		}
		scoredBy[i], took[i] = got, time.Since(start)
		prog.done(i)
		return nil
	})
	if err != nil {
		return nil, err
	}
	prog.done(-1)
	xs := make([][]scored, len(cells))
	for i, j := range jobs {
		xs[j.cell] = append(xs[j.cell], scoredBy[i]...)
	}
	res := &Result{Warnings: d.Warnings}
	for c := range cells {
		cells[c].Metrics = score(xs[c])
	}
	res.Cells = cells
	for c := 0; c < len(cells); c += o.Seeds {
		res.Summaries = append(res.Summaries, summarise(cells[c:c+o.Seeds]))
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
