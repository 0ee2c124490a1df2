package fleet

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/coloc-dev/coloc/internal/atomicfile"
	"github.com/coloc-dev/coloc/internal/version"
	"github.com/coloc-dev/coloc/profile"
)

// Fleet manifest format and version: DIR/fleet.json of a campaign that a
// cluster manager runs as shards.
const (
	format        = "coloc.fleet"
	formatVersion = 1
	// FileName is the fleet manifest's name in its directory. A campaign
	// refuses to run in a directory that holds one (package profile knows
	// the name too; TestMerge checks that it refuses).
	FileName = "fleet.json"
	// shardsDir holds one campaign directory per shard: shards/<i>.
	shardsDir = "shards"
)

// Fleet describes a campaign split into shards that a cluster manager
// (a Slurm job array, a Kubernetes Indexed Job) runs, one `coloc profile
// run --shard i/n` per shard into DIR/shards/<i>. It holds what the merge
// checks the shards against: the suite's hash, the whole plan and which
// shard owns which run. A fleet is one plan, hence one number of GPUs per
// shard; the device type is whatever each shard's node has (recorded in the
// shard's manifest).
type Fleet struct {
	Format   string                `json:"format"`
	Version  int                   `json:"version"`
	Name     string                `json:"name"` // the campaign name of the merged tables
	Tool     string                `json:"tool_version"`
	Created  time.Time             `json:"created"`
	Suite    profile.ManifestSuite `json:"suite"`
	Settings Settings              `json:"settings"`
	Plan     Plan                  `json:"plan"`
	// Args are the flags of `coloc profile run` that every shard passes,
	// less --suite and --python (their paths depend on where the shard
	// runs: see SlurmOptions and K8sOptions), --out and --shard.
	Args  []string      `json:"run_args"`
	Slurm *SlurmOptions `json:"slurm,omitempty"`
	K8s   *K8sOptions   `json:"kubernetes,omitempty"`
}

// Settings are the settings every shard must run with: those a campaign
// manifest records but the device type, which is each shard's own, and
// the GPUs a shard asks for.
type Settings struct {
	Device    string  `json:"device"` // cuda or cpu
	GPUs      int     `json:"gpus"`   // GPUs per shard, the plan's (0 on CPU)
	DurationS float64 `json:"duration_s"`
	WarmupS   float64 `json:"warmup_s"`
	Share     string  `json:"share_mode"`
}

// Plan is the whole plan and its shards.
type Plan struct {
	Hash   string               `json:"hash"`
	EstS   float64              `json:"estimated_s"`
	Notes  []string             `json:"notes,omitempty"`
	Runs   []profile.PlannedRun `json:"runs"`
	Shards []Shard              `json:"shards"`
}

// Shard is one shard: the runs it owns (profile.Plan.Shard(Index, n)).
type Shard struct {
	Index int      `json:"index"` // 1-based, as in --shard i/n
	EstS  float64  `json:"estimated_s"`
	Runs  []string `json:"runs"`
}

// New splits plan into n shards balanced by estimated time
// (profile.Plan.Shard). Every shard must get at least one run. The suite is
// recorded by its absolute path: the merge reads it again (and checks its
// hash).
func New(name string, s *profile.Suite, plan *profile.Plan, n int, set Settings, args []string) (*Fleet, error) {
	if n < 1 {
		return nil, fmt.Errorf("--shards %d: want at least 1", n)
	}
	if n > len(plan.Runs) {
		return nil, fmt.Errorf("--shards %d: the plan has only %d runs, so at most %d shards", n, len(plan.Runs), len(plan.Runs))
	}
	suitePath, err := filepath.Abs(s.Path)
	if err != nil {
		return nil, err
	}
	f := &Fleet{
		Format: format, Version: formatVersion, Name: name, Tool: version.String(), Created: time.Now().UTC(),
		Suite:    profile.ManifestSuite{Name: s.Name, Path: suitePath, Hash: s.Hash()},
		Settings: set,
		Plan:     Plan{Hash: plan.Hash(), EstS: plan.Total().Seconds(), Notes: plan.Notes, Runs: plan.Runs},
		Args:     args,
	}
	for i := 1; i <= n; i++ {
		sh, err := plan.Shard(i, n)
		if err != nil {
			return nil, err
		}
		fs := Shard{Index: i, EstS: sh.Total().Seconds()}
		for _, r := range sh.Runs {
			fs.Runs = append(fs.Runs, r.ID)
		}
		f.Plan.Shards = append(f.Plan.Shards, fs)
	}
	return f, nil
}

// ShardDir is the campaign directory of shard i, relative to the fleet's.
func ShardDir(i int) string { return filepath.Join(shardsDir, strconv.Itoa(i)) }

// planOf returns the fleet's whole plan.
func (f *Fleet) planOf() *profile.Plan { return &profile.Plan{Runs: f.Plan.Runs, Notes: f.Plan.Notes} }

// check validates a fleet read from path: the plan matches its hash and the
// shards cover it, each run once.
func (f *Fleet) check(path string) error {
	if f.Format != format {
		return fmt.Errorf("%s: not a coloc fleet manifest (format %q, want %q)", path, f.Format, format)
	}
	if f.Version != formatVersion {
		return fmt.Errorf("%s: fleet manifest version %d is not known to this coloc (it reads version %d)", path, f.Version, formatVersion)
	}
	if h := f.planOf().Hash(); h != f.Plan.Hash {
		return fmt.Errorf("%s: plan.runs do not match plan.hash (%s, computed %s): the file was edited", path, profile.ShortHash(f.Plan.Hash), profile.ShortHash(h))
	}
	if len(f.Plan.Shards) == 0 {
		return fmt.Errorf("%s: no shards", path)
	}
	owner := map[string]int{}
	for _, r := range f.Plan.Runs {
		owner[r.ID] = 0
	}
	for k, sh := range f.Plan.Shards {
		if sh.Index != k+1 {
			return fmt.Errorf("%s: shard %d is listed as number %d", path, sh.Index, k+1)
		}
		for _, id := range sh.Runs {
			prev, ok := owner[id]
			switch {
			case !ok:
				return fmt.Errorf("%s: shard %d lists run %s, which is not in the plan", path, sh.Index, id)
			case prev != 0:
				return fmt.Errorf("%s: run %s is in shards %d and %d", path, id, prev, sh.Index)
			}
			owner[id] = sh.Index
		}
	}
	for _, r := range f.Plan.Runs {
		if owner[r.ID] == 0 {
			return fmt.Errorf("%s: run %s is in no shard", path, r.ID)
		}
	}
	return nil
}

// Read reads and checks DIR/fleet.json.
func Read(dir string) (*Fleet, error) {
	path := filepath.Join(dir, FileName)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f Fleet
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := f.check(path); err != nil {
		return nil, err
	}
	return &f, nil
}

// Prepare writes f into dir (creating dir and the shard directories,
// which Slurm needs for its log files before a task starts). A directory
// that already holds the same fleet (suite, plan, shards and settings) keeps
// its creation time and the sections of the other cluster managers, so
// writing a Slurm script and a Kubernetes manifest of one campaign, or
// writing either twice, is safe; another fleet is refused.
func Prepare(dir string, f *Fleet) error {
	old, err := Read(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return err
	default:
		if d := f.differences(old); len(d) > 0 {
			return fmt.Errorf("%s holds another fleet campaign: %s; choose another --out, or remove %s and its shards to start over",
				dir, strings.Join(d, "; "), filepath.Join(dir, FileName))
		}
		f.Created = old.Created
		if f.Slurm == nil {
			f.Slurm = old.Slurm
		}
		if f.K8s == nil {
			f.K8s = old.K8s
		}
	}
	for i := range f.Plan.Shards {
		if err := os.MkdirAll(filepath.Join(dir, ShardDir(i+1)), 0o755); err != nil {
			return err
		}
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteBytes(filepath.Join(dir, FileName), append(b, '\n'))
}

// differences lists what makes old another fleet than f.
func (f *Fleet) differences(old *Fleet) []string {
	var d []string
	if old.Suite.Hash != f.Suite.Hash {
		d = append(d, fmt.Sprintf("suite %s changed (hash %s, now %s)", f.Suite.Name, profile.ShortHash(old.Suite.Hash), profile.ShortHash(f.Suite.Hash)))
	}
	if old.Plan.Hash != f.Plan.Hash {
		d = append(d, fmt.Sprintf("plan changed (%d runs, now %d)", len(old.Plan.Runs), len(f.Plan.Runs)))
	}
	if len(old.Plan.Shards) != len(f.Plan.Shards) {
		d = append(d, fmt.Sprintf("%d shards, now %d", len(old.Plan.Shards), len(f.Plan.Shards)))
	} else {
		for i, sh := range f.Plan.Shards {
			if !slices.Equal(sh.Runs, old.Plan.Shards[i].Runs) {
				d = append(d, fmt.Sprintf("shard %d holds other runs (the run time estimates changed)", sh.Index))
				break
			}
		}
	}
	if old.Settings != f.Settings {
		d = append(d, fmt.Sprintf("settings changed (%+v, now %+v)", old.Settings, f.Settings))
	}
	return d
}
