package decide

import (
	"math"
	"slices"
)

// history is what the core learns of job sizes with durations unknown: a
// scale for each workload, and the distribution of sizes over their
// scales (Sizes), from which come a job's Gittins index and its expected
// remaining size.
//
// A job's size is measured in reference seconds: the time it would run at
// its reference rate (its fastest solo rate at its reference degree). Its
// scale is the typical size of its workload: the geometric mean of the
// workload's completed sizes, shrunk towards the mean of all workloads by
// as much as the data say workloads differ (empirical Bayes: a workload
// of n completions keeps the weight n/(n + W/B) on its own mean, W the
// variance of log sizes within workloads and B the variance of the
// workload means beyond what W explains; when they do not differ, B <= 0,
// all take the overall mean). A scheduler knows each job's workload when
// it arrives, and jobs of one workload tend to be alike. Sizes in time
// rather than in GPU-time: a trace's job of 4 GPUs is not 4 times longer
// than one of 1 GPU of the same workload (Gavel's generator draws a
// duration independent of the scale factor), and the time classes order
// the shipped traces' jobs better than GPU-time classes did (docs/
// simulation.md).
//
// The distribution of size over scale is the Kaplan-Meier estimate over
// the completed jobs and, censored at their attained service, the active
// ones. The completed are the short ones first, so a workload's mean is
// low until its long jobs end; imputing the active jobs' sizes from
// their service (one expectation-maximization step per update) was tried
// and ordered jobs worse on the shipped traces, so scales use completions
// only.
type history struct {
	done    []sized
	res     Sizes // size / scale
	classes map[string]*logAcc
	names   []string  // the classes' names, sorted (the sums' order)
	byWid   []float64 // each workload's scale by its number (sized.wid), 0 none
	all     float64   // the overall scale
	scratch []float64 // the active jobs' service over scale, reused
}

// sized is a job's size (or an active job's attained service), in
// reference seconds, with its workload (name and number: Core.widOf) and
// its place in the order of arrival (the cohort window).
type sized struct {
	workload string
	wid      int32
	bin      int32 // a completed size's bin at the last update (Sizes.doneNear); -1 none
	size     float64
	seq      int
}

// logAcc accumulates one workload's log sizes: their count, sum and sum
// of squares; and its number and the scale the last update gave it.
type logAcc struct {
	n, sum, sumSq float64
	wid           int32
	scale         float64
}

// window is how many of the latest jobs to arrive the learned sizes come
// from: the completed among them as sizes, the others censored at their
// service; older jobs are forgotten. A cohort of arrivals rather than the
// last completions, so that the completed and the censored are one
// population, as the Kaplan-Meier estimate assumes. 2,048 jobs put the
// standard error of the estimate's every point under 1.2% (at most
// 0.5/sqrt(n)), far below what sets one job's priority apart from
// another's, and follow a cluster's mix as it drifts; without a window
// each revision passed over the whole history, and a trace's learning
// cost grew with the square of its length (100,000 jobs). Traces of up to
// 2,048 jobs (every results page) learn from all their jobs, as before.
const window = 2048

// resUnit is the unit of the distribution of size over scale: a job of
// its workload's typical size counts resUnit, so that the grid of Sizes
// (GridMin = 60 up) resolves ratios from 1/60 of the typical size up.
const resUnit = 3600.0

// noScale is the scale before any job completed: the residuals are
// empty too, so it only sets the unit in which ages are compared (an
// hour).
const noScale = 3600.0

// scaleAt returns the scale of the workload numbered wid: its own when
// the last update had sizes of it, else the overall one.
func (h *history) scaleAt(wid int32) float64 {
	if wid >= 0 && int(wid) < len(h.byWid) && h.byWid[wid] > 0 {
		return h.byWid[wid]
	}
	if h.all > 0 {
		return h.all
	}
	return noScale
}

// completed records that a job of workload w (numbered wid), the seq-th
// to arrive, completed with size size.
func (h *history) completed(w string, wid int32, size float64, seq int) {
	if size > 0 && !math.IsInf(size, 0) {
		h.done = append(h.done, sized{workload: w, wid: wid, bin: -1, size: size, seq: seq})
		h.account(w, wid, size, 1)
	}
}

// account adds (sign 1) or removes (sign -1) a size from its workload's
// sums; a workload left without sizes is forgotten.
func (h *history) account(w string, wid int32, size, sign float64) {
	if h.classes == nil {
		h.classes = map[string]*logAcc{}
	}
	a := h.classes[w]
	if a == nil {
		a = &logAcc{wid: wid}
		h.classes[w] = a
		i, _ := slices.BinarySearch(h.names, w)
		h.names = slices.Insert(h.names, i, w)
	}
	l := math.Log(size)
	a.n += sign
	a.sum += sign * l
	a.sumSq += sign * l * l
	if a.n <= 0 {
		delete(h.classes, w)
		if i, ok := slices.BinarySearch(h.names, w); ok {
			h.names = slices.Delete(h.names, i, i+1)
		}
	}
}

// update recomputes the scales and the distribution from the completed
// jobs and the active ones (their attained service, censored) that
// arrived from the since-th on: the sizes of jobs that arrived before are
// forgotten (window).
func (h *history) update(active []sized, since int) {
	kept := h.done[:0]
	for _, x := range h.done {
		if x.seq >= since {
			kept = append(kept, x)
		} else {
			h.account(x.workload, x.wid, x.size, -1)
		}
	}
	h.done = kept
	h.all = shrunkScales(h.names, h.classes)
	clear(h.byWid)
	for _, a := range h.classes {
		if int(a.wid) >= len(h.byWid) {
			h.byWid = append(h.byWid, make([]float64, int(a.wid)+1-len(h.byWid))...)
		}
		h.byWid[a.wid] = a.scale
	}
	// A fresh distribution on the last one's arrays (nothing else holds
	// them): each update would otherwise allocate the whole history anew.
	res := &h.res
	res.reset()
	u := resUnit
	for i := range h.done {
		x := &h.done[i]
		x.bin = res.doneNear(x.size/h.scaleAt(x.wid)*u, x.bin)
	}
	censored := h.scratch[:0]
	for _, x := range active {
		if x.seq >= since {
			censored = append(censored, x.size/h.scaleAt(x.wid)*u)
		}
	}
	h.scratch = censored
	res.Censor(censored)
}

// shrunkScales sets each workload's scale, the geometric mean of its
// sizes shrunk towards the overall one (empirical Bayes, see history),
// and returns the overall geometric mean, from the workloads' sums of log
// sizes (names: the workloads' names, sorted); 0 without sizes.
func shrunkScales(names []string, classes map[string]*logAcc) float64 {
	if len(classes) == 0 {
		return 0
	}
	// Sums in the order of the workloads' names, so that the same
	// history gives the same scales to the last bit.
	var n, sum, within, nw, invN float64
	var means []float64
	for _, k := range names {
		a := classes[k]
		n += a.n
		sum += a.sum
		m := a.sum / a.n
		within += a.sumSq - a.n*m*m
		nw += a.n - 1
		means = append(means, m)
		invN += 1 / a.n
	}
	mu := sum / n
	var b, w float64
	if nw > 0 && len(means) >= 2 {
		w = within / nw
		var mm, vm float64
		for _, m := range means {
			mm += m
		}
		mm /= float64(len(means))
		for _, m := range means {
			vm += (m - mm) * (m - mm)
		}
		vm /= float64(len(means) - 1)
		b = vm - w*invN/float64(len(means))
	}
	for _, a := range classes {
		m := mu
		if b > 0 {
			weight := a.n / (a.n + w/b)
			m = weight*a.sum/a.n + (1-weight)*mu
		}
		a.scale = math.Exp(m)
	}
	return math.Exp(mu)
}
