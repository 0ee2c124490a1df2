package profile

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/coloc-dev/coloc/internal/atomicfile"
)

// Manifest format and version: manifest.json of a campaign directory.
const (
	manifestFormat  = "coloc.campaign"
	manifestVersion = 1
)

// Hardware is what a campaign ran on.
type Hardware struct {
	Host    string   `json:"host,omitempty"`
	CPU     string   `json:"cpu,omitempty"`
	Devices []Device `json:"devices"`
	Driver  string   `json:"driver_version,omitempty"`
	CUDA    string   `json:"cuda_version,omitempty"`
}

// settings are the options that decide what a run measures. A campaign
// directory is resumed only with equal settings.
type settings struct {
	Device     string  `json:"device"`      // cuda or cpu
	DeviceType string  `json:"device_type"` // e.g. h200, cpu
	DurationS  float64 `json:"duration_s"`
	WarmupS    float64 `json:"warmup_s"`
	Share      string  `json:"share_mode"`
}

// manifest describes a campaign directory: what was planned, on what, with
// which tool. It is rewritten (atomically) after every run.
type manifest struct {
	Format    string           `json:"format"`
	Version   int              `json:"version"`
	Campaign  string           `json:"campaign"`
	Tool      string           `json:"tool_version"`
	Created   time.Time        `json:"created"`
	Updated   time.Time        `json:"updated"`
	Suite     ManifestSuite    `json:"suite"`
	Settings  settings         `json:"settings"`
	Hardware  Hardware         `json:"hardware"`
	Torch     string           `json:"torch_version,omitempty"`
	Workloads map[string]*meta `json:"workloads,omitempty"` // the meta line of each workload
	Plan      manifestPlan     `json:"plan"`
	Progress  manifestProgress `json:"progress"`
	// Shards, in a campaign merged from its shards (MergeShards), say where each shard ran; Hardware is then the first
	// shard's and settings.DeviceType lists every device type, sorted and
	// comma-separated.
	Shards []manifestShard `json:"shards,omitempty"`
}

// manifestShard is one shard of a merged campaign.
type manifestShard struct {
	Shard      string    `json:"shard"` // i/n
	Dir        string    `json:"dir"`   // relative to the campaign directory
	DeviceType string    `json:"device_type,omitempty"`
	Hardware   *Hardware `json:"hardware,omitempty"` // nil: the shard has not started
	Finished   int       `json:"finished"`
}

// ManifestSuite identifies the suite of a campaign.
type ManifestSuite struct {
	Name string `json:"name"`
	Path string `json:"path"`
	Hash string `json:"hash"`
}

// manifestPlan is the whole plan of a campaign and the shard this
// directory runs ("" for all of it).
type manifestPlan struct {
	Hash  string       `json:"hash"`
	Shard string       `json:"shard,omitempty"`
	EstS  float64      `json:"estimated_s"`
	Notes []string     `json:"notes,omitempty"`
	Runs  []PlannedRun `json:"runs"`
}

// manifestProgress counts the finished runs by status.
type manifestProgress struct {
	Finished   int `json:"finished"`
	OK         int `json:"ok"`
	Failed     int `json:"failed"`
	Infeasible int `json:"infeasible"`
}

// ReadManifest reads and checks a campaign's manifest.json.
func ReadManifest(path string) (*manifest, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var m manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if m.Format != manifestFormat {
		return nil, fmt.Errorf("%s: not a coloc campaign manifest (format %q, want %q)", path, m.Format, manifestFormat)
	}
	if m.Version != manifestVersion {
		return nil, fmt.Errorf("%s: campaign manifest version %d is not known to this coloc (it reads version %d)", path, m.Version, manifestVersion)
	}
	return &m, nil
}

// writeManifest writes m to path atomically.
func writeManifest(path string, m *manifest) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(path, append(b, '\n'))
}

// writeFileAtomic writes data to path atomically (internal/atomicfile).
func writeFileAtomic(path string, data []byte) error { return atomicfile.WriteBytes(path, data) }

// differences lists what makes old a different campaign from m: another
// suite, plan or settings. Hardware, tool version and shard may change
// (resuming on a replaced node, with a newer build, or merging the journals
// of the shards of one plan). extended says m's plan extends old's
// (extendPlan): a plan change allowed.
func (m *manifest) differences(old *manifest, extended bool) []string {
	var d []string
	if old.Suite.Hash != m.Suite.Hash {
		d = append(d, fmt.Sprintf("suite %s changed (hash %s, now %s)", m.Suite.Name, ShortHash(old.Suite.Hash), ShortHash(m.Suite.Hash)))
	}
	if old.Plan.Hash != m.Plan.Hash && !extended {
		d = append(d, fmt.Sprintf("plan changed (%d runs, now %d; --pairs, --degrees and --repeats must match; --pairs-from may add pairs, nothing else)", len(old.Plan.Runs), len(m.Plan.Runs)))
	}
	if old.Settings != m.Settings {
		d = append(d, fmt.Sprintf("settings changed (%s, now %s)", old.Settings, m.Settings))
	}
	return d
}

// hardwareChanges says what of the hardware that decides a run's speed
// differs between old, the manifest of the campaign's earlier sessions,
// and m: the driver, and the power limit of a GPU (matched by UUID, else
// by index). A resumed campaign is allowed on changed hardware, but its
// runs from before and after are then not measured alike.
func (m *manifest) hardwareChanges(old *manifest) []string {
	var out []string
	if o, n := old.Hardware.Driver, m.Hardware.Driver; o != "" && n != "" && o != n {
		out = append(out, fmt.Sprintf("the GPU driver was %s in the campaign's earlier runs and is %s now", o, n))
	}
	for _, n := range m.Hardware.Devices {
		for _, o := range old.Hardware.Devices {
			same := o.UUID != "" && o.UUID == n.UUID || (o.UUID == "" || n.UUID == "") && o.Index == n.Index
			if same && o.PowerLimitW > 0 && n.PowerLimitW > 0 && o.PowerLimitW != n.PowerLimitW {
				out = append(out, fmt.Sprintf("GPU %d's power limit was %g W in the campaign's earlier runs and is %g W now", n.Index, o.PowerLimitW, n.PowerLimitW))
			}
		}
	}
	for i := range out {
		out[i] += ": runs before and after are not measured alike (--force starts the campaign over)"
	}
	return out
}

func (s settings) String() string {
	return fmt.Sprintf("device %s (%s), duration %gs, warmup %gs, share %s", s.Device, s.DeviceType, s.DurationS, s.WarmupS, s.Share)
}

// ShortHash abbreviates a hash of Suite.Hash or Plan.Hash for a message
// or a comment line: its first 12 hex digits, without the "sha256:".
func ShortHash(h string) string {
	h = strings.TrimPrefix(h, "sha256:")
	if len(h) > 12 {
		h = h[:12]
	}
	return h
}

// campaignFiles are the files and directories a campaign owns in its
// directory; --force removes them and nothing else.
var campaignFiles = []string{"manifest.json", journalName, samplesDir, logsDir,
	"runs.arrow", "samples.arrow", "solo.arrow", "pairs.arrow", "scaling.arrow"}

const (
	journalName = "runs.jsonl"
	samplesDir  = "samples"
	logsDir     = "logs"
)

// A fleet directory (package profile/fleet) holds the fleet manifest
// fleetFile and its shards' campaign directories under shardsDir. A
// campaign refuses to run in one (Campaign.prepare): the fleet's campaign
// is merged from its shards, and a merge would drop runs made beside them.
// Package fleet owns the names (fleet.FileName, fleet.ShardDir), which
// this package cannot import; its TestMerge checks the refusal.
const (
	fleetFile = "fleet.json"
	shardsDir = "shards"
)

// removeCampaign deletes the campaign files of dir.
func removeCampaign(dir string) error {
	for _, name := range campaignFiles {
		if err := os.RemoveAll(filepath.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}
