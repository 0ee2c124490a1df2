package place

import (
	"fmt"

	"github.com/coloc-dev/coloc/features"
	"github.com/coloc-dev/coloc/model"
)

// SimilarQuery asks the similarity model for the profiled models nearest
// to a job and the GPU type and degree that suit it.
type SimilarQuery struct {
	Models string // model directory written by `coloc fit`, with the similarity model
	// Job is a job the models know (it is then left out of its own
	// neighbours), a new one named after a known model family, or one
	// Meta describes.
	Job string
	// Meta, when set, is a workloads.json file describing Job.
	Meta string
	// BatchSize is a new job's batch size; 0 reads it from Job's name.
	BatchSize int
	// K neighbours under Distance (Minkowski order P); a suggested degree
	// keeps at least Efficiency.
	K             int
	Distance      string
	P, Efficiency float64
}

// SimilarAnswer is the answer to a SimilarQuery.
type SimilarAnswer struct {
	Known      bool // Job is a job the models know
	Suggestion model.Suggestion
	// Warnings: Job is out of distribution, or the k-th neighbour is tied.
	Warnings []string
}

// Similar answers q. It refuses when the descriptors cannot tell the
// references apart (model.Similarity.CheckNeighbors).
func Similar(q SimilarQuery) (*SimilarAnswer, error) {
	if err := CheckModelDir(q.Models); err != nil {
		return nil, err
	}
	ls, err := model.LoadDir(q.Models, []string{"similarity"})
	if err != nil {
		return nil, err
	}
	sim := ls[0].Model.(*model.Similarity)
	if err := model.ValidDistance(q.Distance); err != nil {
		return nil, err
	}
	sim.Opts.Distance, sim.Opts.P, sim.Opts.Efficiency = q.Distance, q.P, q.Efficiency
	if q.K < 1 {
		return nil, fmt.Errorf("--k must be at least 1")
	}
	batch := q.BatchSize // 0: the name's, if it states one (QueryFor)
	var query model.Query
	known := false
	if q.Meta != "" {
		meta, err := features.ReadMetaFile(q.Meta)
		if err != nil {
			return nil, err
		}
		d, ok := meta[q.Job]
		if !ok {
			return nil, fmt.Errorf("%s has no workload %q", q.Meta, q.Job)
		}
		query = sim.DescribeQuery(d)
	} else if query, known, err = sim.QueryFor(q.Job, batch); err != nil {
		return nil, fmt.Errorf("%w (describe it in a workloads.json file and pass --meta)", err)
	}
	var nb []model.Neighbor
	self := ""
	if known {
		if nb, err = sim.Nearest(q.Job, q.K); err != nil {
			return nil, err
		}
		j, _ := ls[0].Frame.Job(q.Job)
		query = model.Query{Num: ls[0].Frame.Desc.Num[j], Cat: ls[0].Frame.Desc.Cat[j]}
		self = q.Job
	} else {
		nb = sim.NearestTo(query, q.K)
	}
	warns, err := sim.CheckNeighbors(query, self, nb)
	if err != nil {
		return nil, fmt.Errorf("similar %q: %w", q.Job, err)
	}
	sug, err := sim.Suggest(nb)
	if err != nil {
		return nil, err
	}
	return &SimilarAnswer{Known: known, Suggestion: sug, Warnings: warns}, nil
}
