package datasets

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"

	"github.com/coloc-dev/coloc/internal/inputfile"
	"github.com/coloc-dev/coloc/internal/strictnum"
)

// PolluxDeviceType is the GPU type of Pollux's measurements: its OSDI'21
// testbed was AWS g4dn.12xlarge nodes with four NVIDIA T4 GPUs each.
const PolluxDeviceType = "t4"

// PolluxOptions configures ImportPollux.
type PolluxOptions struct {
	// DeviceType labels every row; DefaultPolluxOptions uses
	// PolluxDeviceType.
	DeviceType string
}

// DefaultPolluxOptions are the options `coloc datasets import pollux` uses
// unless told otherwise.
var DefaultPolluxOptions = PolluxOptions{DeviceType: PolluxDeviceType}

// ImportPollux reads Pollux's scaling measurements (petuum/adaptdl,
// simulator/traces/<model>/) from dir: one subdirectory per model, each
// with placements.csv (placement,local_bsz,step_time,sync_time) and
// optionally scalability.csv (num_nodes,num_replicas,local_bsz,step_time,
// sync_time). Each row becomes a scaling row with throughput = replicas x
// local_bsz / step_time in samples/s; the workload is the directory name.
// Rows from placements.csv keep their placement; rows from scalability.csv
// have none.
func ImportPollux(dir string, opts PolluxOptions) (*Imported, error) {
	if opts.DeviceType == "" {
		opts.DeviceType = PolluxDeviceType
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	im := &Imported{
		Scaling: &ScalingTable{ThroughputUnit: UnitSamplesPerS},
		Meta:    map[string]string{MetaSource: "Pollux scaling measurements (petuum/adaptdl osdi21-artifact, simulator/traces, Apache-2.0 license)"},
	}
	var models []string
	for _, e := range entries {
		if e.IsDir() {
			models = append(models, e.Name())
		}
	}
	sort.Strings(models)
	for _, m := range models {
		place := filepath.Join(dir, m, "placements.csv")
		if _, err := os.Stat(place); errors.Is(err, fs.ErrNotExist) {
			im.Warnings = append(im.Warnings, fmt.Sprintf("%s: no placements.csv, skipped", filepath.Join(dir, m)))
			continue
		}
		if err := importPolluxFile(im, m, place, opts.DeviceType, true); err != nil {
			return nil, err
		}
		scal := filepath.Join(dir, m, "scalability.csv")
		if _, err := os.Stat(scal); err == nil {
			if err := importPolluxFile(im, m, scal, opts.DeviceType, false); err != nil {
				return nil, err
			}
		}
	}
	if len(im.Scaling.Rows) == 0 {
		return nil, fmt.Errorf("%s: no model directories with placements.csv", dir)
	}
	if err := Validate(im.Scaling.Table(), dir); err != nil {
		return nil, err
	}
	return im, nil
}

func importPolluxFile(im *Imported, model, path, device string, placements bool) error {
	f, err := inputfile.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	want := []string{"num_nodes", "num_replicas", "local_bsz", "step_time", "sync_time"}
	source := "pollux:scalability"
	if placements {
		want = []string{"placement", "local_bsz", "step_time", "sync_time"}
		source = "pollux:placements"
	}
	cr, err := newCSVReader(f, path)
	if err != nil {
		return err
	}
	if err := cr.requireHeader(want); err != nil {
		return err
	}
	for cr.next() {
		if err := cr.ragged(); err != nil {
			return err
		}
		var nodes, degree int
		var placement string
		if placements {
			placement = cr.field("placement")
			sum := 0
			for _, r := range placement {
				if r < '1' || r > '9' {
					return cr.errorf("placement", "%q is not one digit 1-9 per node", placement)
				}
				sum += int(r - '0')
			}
			if placement == "" {
				return cr.errorf("placement", "empty")
			}
			nodes, degree = len(placement), sum
		} else {
			if nodes, err = cr.positiveInt("num_nodes"); err != nil {
				return err
			}
			if degree, err = cr.positiveInt("num_replicas"); err != nil {
				return err
			}
		}
		bsz, err := cr.positiveInt("local_bsz")
		if err != nil {
			return err
		}
		step, err := cr.float("step_time", true)
		if err != nil {
			return err
		}
		sync, err := cr.float("sync_time", false)
		if err != nil {
			return err
		}
		im.Scaling.Rows = append(im.Scaling.Rows, Scale{
			Workload: model, DeviceType: device, Degree: degree, Nodes: nodes, BatchSize: bsz,
			Placement: placement, Throughput: float64(degree*bsz) / step,
			StepTime: step, SyncTime: sync, Source: source,
		})
	}
	return cr.err
}

// positiveInt parses the named field as an integer > 0.
func (cr *csvReader) positiveInt(col string) (int, error) {
	s := cr.field(col)
	v, err := strictnum.ParseInt(s)
	if err != nil || v <= 0 || v > math.MaxInt32 {
		return 0, cr.errorf(col, "%q is not a positive integer", s)
	}
	return int(v), nil
}

// float parses the named field as a finite number, > 0 when positive is
// set, else >= 0.
func (cr *csvReader) float(col string, positive bool) (float64, error) {
	s := cr.field(col)
	v, err := strictnum.ParseFloat(s)
	switch {
	case err != nil:
		return 0, cr.errorf(col, "%q is not a finite number", s)
	case positive && v <= 0:
		return 0, cr.errorf(col, "%s is not positive", s)
	case v < 0:
		return 0, cr.errorf(col, "%s is negative", s)
	}
	return v, nil
}
