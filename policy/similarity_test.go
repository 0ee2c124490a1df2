package policy_test

import (
	"bytes"
	"math"
	"testing"

	"github.com/coloc-dev/coloc/features"
	"github.com/coloc-dev/coloc/model"
	"github.com/coloc-dev/coloc/policy"
)

// fromModel writes a fitted similarity model's reference set as a policy
// file's Similarity, as an export does: numeric descriptors with NaN as
// null, a range no reference has a value in as [0, 0] (both normalize
// every value to 0).
func fromModel(m *model.Similarity) policy.Similarity {
	desc := m.Frame().Desc
	s := policy.Similarity{Distance: m.Opts.Distance, P: m.Opts.P,
		Numeric: desc.Numeric, Categorical: desc.Categorical}
	for k := range desc.Numeric {
		lo, hi := m.Lo[k], m.Hi[k]
		if math.IsInf(lo, 0) || math.IsInf(hi, 0) {
			lo, hi = 0, 0
		}
		s.Lo, s.Hi = append(s.Lo, lo), append(s.Hi, hi)
	}
	for _, j := range m.Refs {
		r := policy.Reference{Workload: m.Frame().Jobs[j], Cat: desc.Cat[j], GPUType: "v100", Degree: 1}
		for _, v := range desc.Num[j] {
			if math.IsNaN(v) {
				r.Num = append(r.Num, nil)
			} else {
				r.Num = append(r.Num, &v)
			}
		}
		s.References = append(s.References, r)
	}
	return s
}

// TestNearestAgreesWithModel: on the shipped Gavel data, for every
// distance and every reference workload (described by its model family at
// its own batch size, at half of it, and without its parameter count),
// policy's Nearest ranks all references exactly as the similarity model's
// NearestTo, at the same distances, after the file went through JSON.
func TestNearestAgreesWithModel(t *testing.T) {
	data, err := model.LoadData("../datasets/reference/gavel")
	if err != nil {
		t.Fatal(err)
	}
	tr, err := model.NewTrain(data.Space, data.Obs, 1)
	if err != nil {
		t.Fatal(err)
	}
	base, err := policy.Load("testdata/small.json")
	if err != nil {
		t.Fatal(err)
	}
	compared := 0
	for _, dist := range model.Distances {
		opts := model.DefaultSimilarityOptions
		opts.Distance = dist
		m := model.NewSimilarity(opts)
		if err := m.Fit(tr); err != nil {
			t.Fatal(err)
		}
		f := *base.File
		f.Decisions, f.Pairs, f.Solo, f.Scaling = nil, nil, nil, nil
		f.Similarity = fromModel(m)
		b, err := policy.Encode(&f)
		if err != nil {
			t.Fatal(err)
		}
		p, err := policy.Decode(bytes.NewReader(b), dist)
		if err != nil {
			t.Fatal(err)
		}
		n := len(f.Similarity.References)
		for _, r := range f.Similarity.References {
			fd, ok := features.KnownDescriptor(r.Workload)
			if !ok {
				t.Fatalf("%s: no known descriptors", r.Workload)
			}
			half := fd
			half.BatchSize = max(1, fd.BatchSize/2)
			noParams := fd
			noParams.Params = 0
			for _, q := range []features.Descriptor{fd, half, noParams} {
				want := m.NearestTo(m.DescribeQuery(q), n)
				got := p.Nearest(policy.Descriptor{Params: q.Params, FLOPsPerSample: q.FLOPs, Layers: q.Layers,
					BatchSize: q.BatchSize, Class: q.Class, Precision: q.Precision}, n)
				if len(got) != len(want) {
					t.Fatalf("%s, %s: %d neighbours, model %d", dist, r.Workload, len(got), len(want))
				}
				for i := range want {
					if got[i].Reference.Workload != want[i].Job || got[i].Distance != want[i].Distance {
						t.Errorf("%s, %s (batch %d, params %g): neighbour %d is %s at %v, model %s at %v",
							dist, r.Workload, q.BatchSize, q.Params, i+1, got[i].Reference.Workload, got[i].Distance, want[i].Job, want[i].Distance)
						break
					}
				}
				compared++
			}
		}
	}
	// Gavel has 26 job types, all of them in measured pairs.
	if want := len(model.Distances) * 3 * 26; compared != want {
		t.Errorf("%d rankings compared, want %d (5 distances x 3 queries x 26 references)", compared, want)
	}
}
