package eval

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/coloc-dev/coloc/model"
)

// Protocols names the evaluation protocols.
var Protocols = []string{"pairs", "new-job", "cross-device"}

// ParseProtocols splits a comma-separated list ("" or "all": every one).
func ParseProtocols(list string) ([]string, error) {
	if list == "" || list == "all" {
		return Protocols, nil
	}
	var out []string
	for _, p := range strings.Split(list, ",") {
		p = strings.TrimSpace(p)
		ok := false
		for _, q := range Protocols {
			ok = ok || p == q
		}
		if !ok {
			return nil, fmt.Errorf("unknown protocol %q (want one of %s)", p, strings.Join(Protocols, ", "))
		}
		out = append(out, p)
	}
	return out, nil
}

// task is one fit: the pairs a model is trained on and the pairs it is
// scored on.
type task struct {
	train, test []model.Obs
}

// split returns the tasks of one protocol on one target slot for one
// fraction and seed. They depend on nothing else: every model gets the same
// tasks. others are the measured pairs of the other evaluated slots (used
// by cross-device only).
func split(protocol string, target []model.Obs, others []model.Obs, slot string, fraction float64, seed int, jobs int) []task {
	switch protocol {
	case "pairs":
		obs := shuffled(target, seed, slot)
		n := observed(fraction, len(obs))
		return []task{{train: obs[:n], test: obs[n:]}}
	case "cross-device":
		obs := shuffled(target, seed, slot)
		n := observed(fraction, len(obs))
		train := append(append([]model.Obs(nil), others...), obs[:n]...)
		return []task{{train: train, test: obs[n:]}}
	default: // new-job
		var out []task
		for j := 0; j < jobs; j++ {
			var mine, rest []model.Obs
			for _, o := range target {
				if o.A == j || o.B == j {
					mine = append(mine, o)
				} else {
					rest = append(rest, o)
				}
			}
			if len(mine) == 0 {
				continue
			}
			mine = shuffled(mine, seed, fmt.Sprintf("%s/%d", slot, j))
			n := observed(fraction, len(mine))
			out = append(out, task{train: append(rest, mine[:n]...), test: mine[n:]})
		}
		return out
	}
}

// observed is the number of pairs a fraction reveals: rounded, and never
// all of them (something must be left to score).
func observed(fraction float64, n int) int {
	k := int(math.Round(fraction * float64(n)))
	return max(0, min(k, n-1))
}

// shuffled returns obs (sorted first, so the input order does not matter)
// in a random order drawn from seed and key. Orders of one seed and key
// nest across fractions: the pairs revealed at 0.2 are among those at 0.5.
func shuffled(obs []model.Obs, seed int, key string) []model.Obs {
	out := append([]model.Obs(nil), obs...)
	sort.Slice(out, func(i, j int) bool {
		if out[i].S != out[j].S {
			return out[i].S < out[j].S
		}
		if out[i].A != out[j].A {
			return out[i].A < out[j].A
		}
		return out[i].B < out[j].B
	})
	h := fnv.New64a()
	h.Write([]byte(key))
	r := rand.New(rand.NewPCG(uint64(seed), h.Sum64()))
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}
