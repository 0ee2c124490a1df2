package profile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/coloc-dev/coloc/datasets"
	"github.com/coloc-dev/coloc/internal/atomicfile"
	"github.com/coloc-dev/coloc/internal/version"
)

// shardState is what a shard's directory held at a merge.
type shardState struct {
	Index      int
	Dir        string // relative to the fleet directory
	Started    bool   // the shard wrote its manifest
	DeviceType string
	Host       string
	Planned    int // runs the shard owns
	Finished   int // of which have a record (ok, failed or infeasible)
}

// MergeResult is what MergeFleet found and wrote.
type MergeResult struct {
	Fleet  *Fleet
	Shards []shardState
	// Planned counts the runs of the plan; OK, Failed and Infeasible the
	// finished ones by status.
	Planned, OK, Failed, Infeasible int
	// Missing are the runs of the plan that no shard has finished (not
	// run yet, or interrupted), in plan order; Owner gives their shard.
	Missing []PlannedRun
	Owner   map[string]int
	// FailedRuns are the records of failed runs, in plan order.
	FailedRuns []*RunRecord
	// DeviceTypes are the device types the shards ran on, sorted.
	DeviceTypes []string
	Tables      *Tables
	Warnings    []string
}

// Complete reports whether every run of the plan is finished.
func (r *MergeResult) Complete() bool { return len(r.Missing) == 0 }

// IncompleteShards returns the shards that own a missing run, ascending.
func (r *MergeResult) IncompleteShards() []int {
	var out []int
	for _, pr := range r.Missing {
		if i := r.Owner[pr.ID]; !slices.Contains(out, i) {
			out = append(out, i)
		}
	}
	slices.Sort(out)
	return out
}

// MergeFleet merges the shards of the fleet in dir (dir/fleet.json, the
// shards in dir/shards/<i>) into one campaign in dir: the journal
// runs.jsonl of every finished run in plan order, the sample files under
// samples/, the tables (buildTables, as a one-node campaign writes them) and
// manifest.json, whose Shards say where each shard ran. It reads the shards
// without changing them, so it may run while shards still run, and running
// it again gives the same campaign. A shard of another suite, plan, shard
// split or settings is refused, naming the shard, and nothing is written.
// A campaign with missing runs is still written; the result lists them.
func MergeFleet(dir string) (*MergeResult, error) {
	f, err := ReadFleet(dir)
	if err != nil {
		return nil, err
	}
	s, err := LoadSuite(f.Suite.Path)
	if err != nil {
		return nil, fmt.Errorf("fleet %s: %w", dir, err)
	}
	if h := s.Hash(); h != f.Suite.Hash {
		return nil, fmt.Errorf("fleet %s: suite file %s changed since the fleet was written (hash %s, now %s)", dir, f.Suite.Path, short(f.Suite.Hash), short(h))
	}
	plan := f.PlanOf()
	n := len(f.Plan.Shards)
	res := &MergeResult{Fleet: f, Planned: len(plan.Runs), Owner: map[string]int{}}
	for _, sh := range f.Plan.Shards {
		for _, id := range sh.Runs {
			res.Owner[id] = sh.Index
		}
	}
	recs := map[string]*RunRecord{}
	src := map[string]string{} // run ID -> its sample file in its shard
	var mans []manifestShard
	var first *manifest
	types := map[string]bool{}
	for _, sh := range f.Plan.Shards {
		st := shardState{Index: sh.Index, Dir: ShardDir(sh.Index), Planned: len(sh.Runs)}
		sd := filepath.Join(dir, st.Dir)
		ms := manifestShard{Shard: fmt.Sprintf("%d/%d", sh.Index, n), Dir: st.Dir}
		man, err := ReadManifest(filepath.Join(sd, "manifest.json"))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			res.Shards = append(res.Shards, st)
			mans = append(mans, ms)
			continue
		case err != nil:
			return nil, fmt.Errorf("shard %d (%s): %w", sh.Index, sd, err)
		}
		if err := f.checkShard(man, sh.Index); err != nil {
			return nil, fmt.Errorf("shard %d (%s) is not a shard of this campaign: %s; refusing to merge", sh.Index, sd, err)
		}
		st.Started, st.DeviceType, st.Host = true, man.Settings.DeviceType, man.Hardware.Host
		types[st.DeviceType] = true
		if first == nil {
			first = man
		}
		rs, warns, err := peekJournal(filepath.Join(sd, journalName))
		if err != nil {
			return nil, fmt.Errorf("shard %d: %w", sh.Index, err)
		}
		res.Warnings = append(res.Warnings, warns...)
		for id, r := range rs {
			switch owner, ok := res.Owner[id]; {
			case !ok:
				return nil, fmt.Errorf("shard %d (%s): run %s is not in the fleet's plan; refusing to merge", sh.Index, sd, id)
			case owner != sh.Index:
				return nil, fmt.Errorf("shard %d (%s): run %s belongs to shard %d; refusing to merge", sh.Index, sd, id, owner)
			}
			if r.Samples != "" {
				src[id] = filepath.Join(sd, r.Samples)
			}
			recs[id] = r
			st.Finished++
		}
		hw := man.Hardware
		ms.DeviceType, ms.Hardware, ms.Finished = st.DeviceType, &hw, st.Finished
		res.Shards = append(res.Shards, st)
		mans = append(mans, ms)
	}
	for t := range types {
		res.DeviceTypes = append(res.DeviceTypes, t)
	}
	slices.Sort(res.DeviceTypes)
	for _, pr := range plan.Runs {
		switch r := recs[pr.ID]; {
		case r == nil:
			res.Missing = append(res.Missing, pr)
		case r.Status == datasets.StatusOK:
			res.OK++
		case r.Status == datasets.StatusInfeasible:
			res.Infeasible++
		default:
			res.Failed++
			res.FailedRuns = append(res.FailedRuns, r)
		}
	}
	if err := mergeSamples(dir, plan, recs, src, &res.Warnings); err != nil {
		return nil, err
	}
	if err := writeJournal(filepath.Join(dir, journalName), plan, recs); err != nil {
		return nil, err
	}
	if res.Tables, err = writeTables(dir, f.Name, s, plan, recs, true); err != nil {
		return nil, err
	}
	res.Warnings = append(res.Warnings, res.Tables.Warnings...)
	man := &manifest{
		Format: manifestFormat, Version: manifestVersion, Campaign: f.Name, Tool: version.String(),
		Created: f.Created, Updated: time.Now().UTC(), Suite: f.Suite,
		Settings: settings{Device: f.Settings.Device, DeviceType: strings.Join(res.DeviceTypes, ","),
			DurationS: f.Settings.DurationS, WarmupS: f.Settings.WarmupS, Share: f.Settings.Share},
		Plan:   manifestPlan{Hash: f.Plan.Hash, EstS: f.Plan.EstS, Notes: f.Plan.Notes, Runs: f.Plan.Runs},
		Shards: mans,
	}
	if first != nil {
		man.Hardware, man.Torch = first.Hardware, first.Torch
	}
	man.tally(plan, recs)
	if err := writeWorkloads(dir, man); err != nil {
		return nil, err
	}
	if err := writeManifest(filepath.Join(dir, "manifest.json"), man); err != nil {
		return nil, err
	}
	return res, nil
}

// checkShard says why the shard manifest m of shard i is not one of f's.
func (f *Fleet) checkShard(m *manifest, i int) error {
	n := len(f.Plan.Shards)
	switch {
	case m.Suite.Hash != f.Suite.Hash:
		return fmt.Errorf("it ran suite %s (hash %s), the fleet's is %s (hash %s)", m.Suite.Name, short(m.Suite.Hash), f.Suite.Name, short(f.Suite.Hash))
	case m.Plan.Hash != f.Plan.Hash:
		return fmt.Errorf("it ran another plan (%d runs, hash %s; the fleet's has %d runs, hash %s: --pairs, --degrees, --repeats and the GPUs must match)",
			len(m.Plan.Runs), short(m.Plan.Hash), len(f.Plan.Runs), short(f.Plan.Hash))
	case m.Plan.Shard != fmt.Sprintf("%d/%d", i, n):
		return fmt.Errorf("it ran shard %q, want %d/%d", m.Plan.Shard, i, n)
	}
	want := settings{Device: f.Settings.Device, DeviceType: m.Settings.DeviceType, DurationS: f.Settings.DurationS,
		WarmupS: f.Settings.WarmupS, Share: f.Settings.Share}
	if m.Settings != want {
		return fmt.Errorf("it ran with %s, the fleet with %s", m.Settings, want)
	}
	return nil
}

// mergeSamples puts the sample file of every record into dir/samples
// (a hard link where the file system allows, else a copy), points the
// records at them, and removes sample files no record names.
func mergeSamples(dir string, plan *Plan, recs map[string]*RunRecord, src map[string]string, warns *[]string) error {
	sdir := filepath.Join(dir, samplesDir)
	if err := os.MkdirAll(sdir, 0o755); err != nil {
		return err
	}
	keep := map[string]bool{}
	for _, pr := range plan.Runs {
		r := recs[pr.ID]
		if r == nil || src[pr.ID] == "" {
			continue
		}
		rel := filepath.Join(samplesDir, pr.ID+".arrow")
		if err := linkOrCopy(src[pr.ID], filepath.Join(dir, rel)); err != nil {
			*warns = append(*warns, fmt.Sprintf("run %s: samples not merged: %v", pr.ID, err))
			r.Samples = ""
			continue
		}
		r.Samples = rel
		keep[pr.ID+".arrow"] = true
	}
	entries, err := os.ReadDir(sdir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !keep[e.Name()] && strings.HasSuffix(e.Name(), ".arrow") {
			if err := os.Remove(filepath.Join(sdir, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

// linkOrCopy replaces dst with src's content: a hard link renamed into
// place, or else a copy written atomically (internal/atomicfile).
func linkOrCopy(src, dst string) error {
	tmp := filepath.Join(filepath.Dir(dst), "."+filepath.Base(dst)+".merge")
	os.Remove(tmp)
	if err := os.Link(src, tmp); err == nil {
		if err := os.Rename(tmp, dst); err != nil {
			os.Remove(tmp)
			return err
		}
		atomicfile.SyncDir(filepath.Dir(dst))
		return nil
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	return atomicfile.Write(dst, func(w io.Writer) error {
		_, err := io.Copy(w, in)
		return err
	})
}

// writeJournal writes the records of plan's runs, in plan order, as the
// journal at path (atomically).
func writeJournal(path string, plan *Plan, recs map[string]*RunRecord) error {
	var b bytes.Buffer
	for _, pr := range plan.Runs {
		r := recs[pr.ID]
		if r == nil {
			continue
		}
		line, err := json.Marshal(r)
		if err != nil {
			return fmt.Errorf("journal %s: run %s: %w", path, r.RunID, err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return writeFileAtomic(path, b.Bytes())
}
