package model

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
)

// With PairSums the tree input is the plain one followed by each
// feature's sum over the pair.
func TestTreeInputPairSums(t *testing.T) {
	tr, _ := gradSpace(t, 5, []string{"k80", "v100"}, 9)
	f := tr.Frame
	for _, c := range [][3]int{{0, 3, 0}, {4, 4, 1}, {2, 1, 1}} {
		a, b, s := c[0], c[1], c[2]
		plain := treeInput(f, a, b, s, false, nil)
		sums := treeInput(f, a, b, s, true, nil)
		if len(sums) != len(plain)+f.Dim() {
			t.Fatalf("with sums %d inputs, want %d + %d", len(sums), len(plain), f.Dim())
		}
		for i, v := range plain {
			if sums[i] != v {
				t.Fatalf("input %d: %v with sums, %v without", i, sums[i], v)
			}
		}
		za, zb := f.Z(a, s), f.Z(b, s)
		for i := range za {
			if got, want := sums[len(plain)+i], za[i]+zb[i]; got != want {
				t.Fatalf("pair (%d, %d) on slot %d, sum of feature %d: %v, want %v", a, b, s, i, got, want)
			}
		}
	}
}

// A target that is a threshold on the pair's summed feature is one split
// on the sum: the trees with PairSums learn it from half the pairs, the
// trees without approximate it with a staircase on the two features.
// The file keeps the option, and the loaded model predicts the same.
func TestGBTPairSumsLearnsALoadThreshold(t *testing.T) {
	tr, obs := gradSpace(t, 16, []string{"k80"}, 4)
	f := tr.Frame
	for i := range obs {
		o := &obs[i]
		o.Y = 0.95
		if f.Z(o.A, 0)[0]+f.Z(o.B, 0)[0] > 0.3 {
			o.Y = 0.55
		}
	}
	r := rng(8, 8)
	train, test := splitObs(obs, 0.5, r)
	fit := func(sums bool) (*gbt, *Train) {
		o := defaultGBTOptions
		o.PairSums = sums
		m := newGBT(o)
		t2, err := NewTrain(tr.Space, train, 3)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Fit(t2); err != nil {
			t.Fatal(err)
		}
		return m, t2
	}
	withSums, t2 := fit(true)
	plain, _ := fit(false)
	if a, b := mae(withSums, test), mae(plain, test); !(a < b/2) {
		t.Fatalf("test MAE with pair sums %.4f, without %.4f: the sums do not make the threshold one split", a, b)
	}
	raw, err := encode(withSums, t2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(raw, []byte(`"pair_sums": true`)) {
		t.Fatal("the model file does not record pair_sums")
	}
	l, err := decode(raw, "gbt.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range test {
		if got, want := l.Model.Predict(o.A, o.B, 0), withSums.Predict(o.A, o.B, 0); math.Abs(got-want) > 1e-12 {
			t.Fatalf("pair (%d, %d): loaded %v, fitted %v", o.A, o.B, got, want)
		}
	}
	plainRaw, err := encode(plain, t2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(plainRaw, []byte("pair_sums")) {
		t.Fatal("a gbt without pair sums writes pair_sums")
	}
}

// The trees of the stack and the committee read the pair sums, and so
// does gbt-sums; the gbt baseline's do not.
func TestMemberTreesReadPairSums(t *testing.T) {
	if !newCommittee().GBT.Opts.PairSums {
		t.Fatal("the committee's trees do not read the pair sums")
	}
	if !newStack().GBT.Opts.PairSums {
		t.Fatal("the stack's trees do not read the pair sums")
	}
	m, err := New("gbt")
	if err != nil {
		t.Fatal(err)
	}
	if m.(*gbt).Opts.PairSums {
		t.Fatal("the gbt baseline reads the pair sums")
	}
	if m, err = New("gbt-sums"); err != nil || !m.(*gbt).Opts.PairSums {
		t.Fatalf("gbt-sums (err %v) does not read the pair sums", err)
	}
}

// A tree state read into a GBT made with pair sums on (the stack's and
// the committee's trees are made that way before their file is read)
// takes the file's options: a state written without pair_sums reads as
// off, as it was written.
func TestGBTStateReadsOverItsDefaults(t *testing.T) {
	m := newGBT(memberGBTOptions)
	state := `{"options":{"depths":[3],"max_trees":300,"learning_rate":0.1,"min_leaf":3},"depth":3,"init":0.5,"trees":[[{"f":-1,"v":0.1}]]}`
	if err := json.Unmarshal([]byte(state), m); err != nil {
		t.Fatal(err)
	}
	if m.Opts.PairSums || m.Name() != "gbt" || m.Init != 0.5 || len(m.Trees) != 1 {
		t.Errorf("read %+v named %s, want plain trees, init 0.5, one tree", m.Opts, m.Name())
	}
	var c committee
	c.GBT = newGBT(memberGBTOptions)
	if err := json.Unmarshal([]byte(`{"gbt":`+state+`}`), &c); err != nil {
		t.Fatal(err)
	}
	if c.GBT.Opts.PairSums {
		t.Error("a committee's trees written without pair_sums read with them")
	}
}
