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

	"github.com/coloc-dev/coloc/internal/atomicfile"
	"github.com/coloc-dev/coloc/internal/version"
)

// ShardedCampaign is a campaign whose plan ran as n shards, each an
// ordinary campaign directory that ran `--shard i/n` of the plan (package
// profile/fleet writes such campaigns for a cluster manager, and merges
// them with MergeShards). MergeShards checks the shards against it and
// writes them as one campaign.
type ShardedCampaign struct {
	Name    string       // the merged campaign's name in its tables
	Suite   *Suite       // the suite every shard ran (checked by hash)
	Plan    *Plan        // the whole plan
	Created time.Time    // the merged manifest's creation time
	Shards  []ShardOwner // shard i of n is Shards[i-1]
	// Device, DurationS, WarmupS and Share are the settings every shard
	// ran with; the device type is each shard's own.
	Device             string
	DurationS, WarmupS float64
	Share              string
}

// ShardOwner is one shard of a ShardedCampaign: its campaign directory,
// relative to the merged campaign's, and the IDs of the runs it owns.
type ShardOwner struct {
	Dir  string
	Runs []string
}

// MergedShard is what a shard's directory held at a merge.
type MergedShard struct {
	Index      int    // 1-based, as in --shard i/n
	Dir        string // relative to the merged campaign's directory
	Started    bool   // the shard wrote its manifest
	DeviceType string
	Host       string
	Planned    int // runs the shard owns
	Finished   int // of which have a record (ok, failed or infeasible)
}

// Merged is what MergeShards found and wrote.
type Merged struct {
	Shards []MergedShard
	// Records are the finished runs of the plan, by run ID.
	Records map[string]*RunRecord
	// DeviceTypes are the device types the shards ran on, sorted.
	DeviceTypes []string
	Tables      *Tables
	Warnings    []string
}

// MergeShards merges the shards of c into one campaign in dir: the
// journal runs.jsonl of every finished run in plan order, the sample files
// under samples/, the tables (buildTables, as a one-node campaign writes
// them) and manifest.json, whose Shards say where each shard ran. It reads
// the shards without changing them, so it may run while shards still run,
// and running it again gives the same campaign. A shard that has not
// written its manifest yet has not started. A shard of another suite,
// plan, shard split or settings, or whose journal holds a run another
// shard owns, is refused, naming the shard, and nothing is written.
func MergeShards(dir string, c *ShardedCampaign) (*Merged, error) {
	n := len(c.Shards)
	owner := map[string]int{}
	for i, sh := range c.Shards {
		for _, id := range sh.Runs {
			owner[id] = i + 1
		}
	}
	want := &manifest{
		Suite:    ManifestSuite{Name: c.Suite.Name, Path: c.Suite.Path, Hash: c.Suite.Hash()},
		Settings: settings{Device: c.Device, DurationS: c.DurationS, WarmupS: c.WarmupS, Share: c.Share},
		Plan:     manifestPlan{Hash: c.Plan.Hash(), EstS: c.Plan.Total().Seconds(), Notes: c.Plan.Notes, Runs: c.Plan.Runs},
	}
	res := &Merged{Records: map[string]*RunRecord{}}
	src := map[string]string{} // run ID -> its sample file in its shard
	var mans []manifestShard
	var first *manifest
	types := map[string]bool{}
	for i, sh := range c.Shards {
		st := MergedShard{Index: i + 1, Dir: sh.Dir, Planned: len(sh.Runs)}
		sd := filepath.Join(dir, sh.Dir)
		ms := manifestShard{Shard: fmt.Sprintf("%d/%d", st.Index, n), Dir: sh.Dir}
		man, err := ReadManifest(filepath.Join(sd, "manifest.json"))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			res.Shards = append(res.Shards, st)
			mans = append(mans, ms)
			continue
		case err != nil:
			return nil, fmt.Errorf("shard %d (%s): %w", st.Index, sd, err)
		}
		if err := want.checkShard(man, ms.Shard); err != nil {
			return nil, fmt.Errorf("shard %d (%s) is not a shard of this campaign: %s; refusing to merge", st.Index, sd, err)
		}
		st.Started, st.DeviceType, st.Host = true, man.Settings.DeviceType, man.Hardware.Host
		types[st.DeviceType] = true
		if first == nil {
			first = man
		}
		rs, warns, err := peekJournal(filepath.Join(sd, journalName))
		if err != nil {
			return nil, fmt.Errorf("shard %d: %w", st.Index, err)
		}
		res.Warnings = append(res.Warnings, warns...)
		for id, r := range rs {
			switch o, ok := owner[id]; {
			case !ok:
				return nil, fmt.Errorf("shard %d (%s): run %s is not in the campaign's plan; refusing to merge", st.Index, sd, id)
			case o != st.Index:
				return nil, fmt.Errorf("shard %d (%s): run %s belongs to shard %d; refusing to merge", st.Index, sd, id, o)
			}
			if r.Samples != "" {
				src[id] = filepath.Join(sd, r.Samples)
			}
			res.Records[id] = r
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
	if err := mergeSamples(dir, c.Plan, res.Records, src, &res.Warnings); err != nil {
		return nil, err
	}
	if err := writeJournal(filepath.Join(dir, journalName), c.Plan, res.Records); err != nil {
		return nil, err
	}
	var err error
	if res.Tables, err = writeTables(dir, c.Name, c.Suite, c.Plan, res.Records, true); err != nil {
		return nil, err
	}
	res.Warnings = append(res.Warnings, res.Tables.Warnings...)
	man := want
	man.Format, man.Version, man.Campaign, man.Tool = manifestFormat, manifestVersion, c.Name, version.String()
	man.Created, man.Updated = c.Created, time.Now().UTC()
	man.Settings.DeviceType = strings.Join(res.DeviceTypes, ",")
	man.Shards = mans
	if first != nil {
		man.Hardware, man.Torch = first.Hardware, first.Torch
	}
	man.tally(c.Plan, res.Records)
	if err := writeWorkloads(dir, man); err != nil {
		return nil, err
	}
	if err := writeManifest(filepath.Join(dir, "manifest.json"), man); err != nil {
		return nil, err
	}
	return res, nil
}

// checkShard says why m, the manifest of shard i/n ("i/n"), is not a shard
// of the campaign m0 describes (its suite, plan and settings; the device
// type is the shard's own).
func (m0 *manifest) checkShard(m *manifest, shard string) error {
	switch {
	case m.Suite.Hash != m0.Suite.Hash:
		return fmt.Errorf("it ran suite %s (hash %s), the campaign's is %s (hash %s)", m.Suite.Name, ShortHash(m.Suite.Hash), m0.Suite.Name, ShortHash(m0.Suite.Hash))
	case m.Plan.Hash != m0.Plan.Hash:
		return fmt.Errorf("it ran another plan (%d runs, hash %s; the campaign's has %d runs, hash %s: --pairs, --degrees, --repeats and the GPUs must match)",
			len(m.Plan.Runs), ShortHash(m.Plan.Hash), len(m0.Plan.Runs), ShortHash(m0.Plan.Hash))
	case m.Plan.Shard != shard:
		return fmt.Errorf("it ran shard %q, want %s", m.Plan.Shard, shard)
	}
	want := m0.Settings
	want.DeviceType = m.Settings.DeviceType
	if m.Settings != want {
		return fmt.Errorf("it ran with %s, the campaign with %s", m.Settings, want)
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
