package profile

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

	"github.com/coloc-dev/coloc/internal/version"
)

// Fleet manifest format and version: DIR/fleet.json of a campaign that a
// cluster manager runs as shards.
const (
	fleetFormat  = "coloc.fleet"
	fleetVersion = 1
	// FleetFile is the fleet manifest's name in its directory.
	FleetFile = "fleet.json"
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
	Format   string        `json:"format"`
	Version  int           `json:"version"`
	Name     string        `json:"name"` // the campaign name of the merged tables
	Tool     string        `json:"tool_version"`
	Created  time.Time     `json:"created"`
	Suite    ManifestSuite `json:"suite"`
	Settings FleetSettings `json:"settings"`
	Plan     FleetPlan     `json:"plan"`
	// Args are the flags of `coloc profile run` that every shard passes,
	// less --suite and --python (their paths depend on where the shard
	// runs: see SlurmOptions and K8sOptions), --out and --shard.
	Args  []string      `json:"run_args"`
	Slurm *SlurmOptions `json:"slurm,omitempty"`
	K8s   *K8sOptions   `json:"kubernetes,omitempty"`
}

// FleetSettings are the settings every shard must run with (see settings;
// the device type is the shard's own).
type FleetSettings struct {
	Device    string  `json:"device"` // cuda or cpu
	GPUs      int     `json:"gpus"`   // GPUs per shard, the plan's (0 on CPU)
	DurationS float64 `json:"duration_s"`
	WarmupS   float64 `json:"warmup_s"`
	Share     string  `json:"share_mode"`
}

// FleetPlan is the whole plan and its shards.
type FleetPlan struct {
	Hash   string       `json:"hash"`
	EstS   float64      `json:"estimated_s"`
	Notes  []string     `json:"notes,omitempty"`
	Runs   []PlannedRun `json:"runs"`
	Shards []FleetShard `json:"shards"`
}

// FleetShard is one shard: the runs it owns (Plan.Shard(Index, n)).
type FleetShard struct {
	Index int      `json:"index"` // 1-based, as in --shard i/n
	EstS  float64  `json:"estimated_s"`
	Runs  []string `json:"runs"`
}

// NewFleet splits plan into n shards balanced by estimated time (Plan.Shard).
// Every shard must get at least one run. The suite is recorded by its
// absolute path: the merge reads it again (and checks its hash).
func NewFleet(name string, s *Suite, plan *Plan, n int, set FleetSettings, args []string) (*Fleet, error) {
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
		Format: fleetFormat, Version: fleetVersion, Name: name, Tool: version.String(), Created: time.Now().UTC(),
		Suite:    ManifestSuite{Name: s.Name, Path: suitePath, Hash: s.Hash()},
		Settings: set,
		Plan:     FleetPlan{Hash: plan.Hash(), EstS: plan.Total().Seconds(), Notes: plan.Notes, Runs: plan.Runs},
		Args:     args,
	}
	for i := 1; i <= n; i++ {
		sh, err := plan.Shard(i, n)
		if err != nil {
			return nil, err
		}
		fs := FleetShard{Index: i, EstS: sh.Total().Seconds()}
		for _, r := range sh.Runs {
			fs.Runs = append(fs.Runs, r.ID)
		}
		f.Plan.Shards = append(f.Plan.Shards, fs)
	}
	return f, nil
}

// ShardDir is the campaign directory of shard i, relative to the fleet's.
func ShardDir(i int) string { return filepath.Join(shardsDir, strconv.Itoa(i)) }

// PlanOf returns the fleet's whole plan.
func (f *Fleet) PlanOf() *Plan { return &Plan{Runs: f.Plan.Runs, Notes: f.Plan.Notes} }

// check validates a fleet read from path: the plan matches its hash and the
// shards cover it, each run once.
func (f *Fleet) check(path string) error {
	if f.Format != fleetFormat {
		return fmt.Errorf("%s: not a coloc fleet manifest (format %q, want %q)", path, f.Format, fleetFormat)
	}
	if f.Version != fleetVersion {
		return fmt.Errorf("%s: fleet manifest version %d is not known to this coloc (it reads version %d)", path, f.Version, fleetVersion)
	}
	if h := f.PlanOf().Hash(); h != f.Plan.Hash {
		return fmt.Errorf("%s: plan.runs do not match plan.hash (%s, computed %s): the file was edited", path, short(f.Plan.Hash), short(h))
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

// ReadFleet reads and checks DIR/fleet.json.
func ReadFleet(dir string) (*Fleet, error) {
	path := filepath.Join(dir, FleetFile)
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

// PrepareFleet writes f into dir (creating dir and the shard directories,
// which Slurm needs for its log files before a task starts). A directory
// that already holds the same fleet (suite, plan, shards and settings) keeps
// its creation time and the sections of the other cluster managers, so
// writing a Slurm script and a Kubernetes manifest of one campaign, or
// writing either twice, is safe; another fleet is refused.
func PrepareFleet(dir string, f *Fleet) error {
	old, err := ReadFleet(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return err
	default:
		if d := f.differences(old); len(d) > 0 {
			return fmt.Errorf("%s holds another fleet campaign: %s; choose another --out, or remove %s and its shards to start over",
				dir, strings.Join(d, "; "), filepath.Join(dir, FleetFile))
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
	return writeFileAtomic(filepath.Join(dir, FleetFile), append(b, '\n'))
}

// differences lists what makes old another fleet than f.
func (f *Fleet) differences(old *Fleet) []string {
	var d []string
	if old.Suite.Hash != f.Suite.Hash {
		d = append(d, fmt.Sprintf("suite %s changed (hash %s, now %s)", f.Suite.Name, short(old.Suite.Hash), short(f.Suite.Hash)))
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
