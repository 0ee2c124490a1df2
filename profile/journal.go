package profile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/coloc-dev/coloc/datasets"
)

// journalVersion is the version of the records in runs.jsonl. Version 2
// added the settled flag, spread and window of each side; version 3 the
// run's shared list (another tenant's processes on its GPUs), which a
// coloc that does not know it must not ignore. Version-1 and version-2
// records still read (their sides count as settled, window unknown; no
// tenant seen).
const journalVersion = 3

// RunRecord is one finished run: a line of the journal runs.jsonl. A run is
// finished when it has a value, failed, or was found infeasible; a run
// interrupted by the user has no record and is redone on resume.
type RunRecord struct {
	Version    int       `json:"version"`
	RunID      string    `json:"run_id"`
	Mode       string    `json:"mode"`
	Degree     int       `json:"degree"`
	Repeat     int       `json:"repeat"`
	DeviceType string    `json:"device_type"`
	DeviceIDs  string    `json:"device_ids"`
	Share      string    `json:"share_mode"`
	Start      time.Time `json:"start"`
	End        time.Time `json:"end"`
	// Status is ok when every side is, infeasible when the run was not
	// started for lack of memory, else failed.
	Status string       `json:"status"`
	Error  string       `json:"error,omitempty"`
	Sides  []sideRecord `json:"sides"`
	// Samples is the run's sample file relative to the campaign directory,
	// "" when the monitor returned none.
	Samples  string   `json:"samples,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
	// Shared names what else ran on the run's GPUs (another tenant's
	// processes, sampler.Sharer), with the ticks it was seen in: the
	// run's throughputs include that load, so its values are used only
	// where no run measured alone stands beside them, and make what they
	// give suspect (tables.go). Empty when the monitor cannot tell.
	Shared []string `json:"shared,omitempty"`
}

// sideRecord is what one workload of a run did. Throughput is in samples/s
// over the steady window; nil fields are unknown.
type sideRecord struct {
	Workload   string   `json:"workload"`
	Label      string   `json:"label"`
	Status     string   `json:"status"`
	Throughput *float64 `json:"throughput,omitempty"`
	WindowS    *float64 `json:"window_s,omitempty"`
	StepTime   *float64 `json:"step_time_s,omitempty"`
	Steps      int64    `json:"steps"`
	PeakMemory *float64 `json:"peak_memory_bytes,omitempty"`
	WallS      float64  `json:"wall_s"`
	Error      string   `json:"error,omitempty"`
	Meta       *meta    `json:"meta,omitempty"`
	// Settled is false when the side's step time never settled and its
	// value was measured over the best window available; Spread is then
	// the value's relative uncertainty (see unsettledSpread). Both are nil
	// unless the side is ok.
	Settled *bool    `json:"settled,omitempty"`
	Spread  *float64 `json:"spread,omitempty"`
	// WindowFrom and WindowTo bound the measuring window in seconds since
	// the run's Start; nil unless ok.
	WindowFrom *float64 `json:"window_from_s,omitempty"`
	WindowTo   *float64 `json:"window_to_s,omitempty"`
	// Log is the file that holds the side's whole stderr, "" when none
	// was kept.
	Log string `json:"log,omitempty"`
}

// Unsettled reports whether the side is ok but its step time never
// settled.
func (s *sideRecord) Unsettled() bool {
	return s.Status == datasets.StatusOK && s.Settled != nil && !*s.Settled
}

// unsettled reports whether the run is ok and a side of it unsettled.
func (r *RunRecord) unsettled() bool {
	if r.Status != datasets.StatusOK {
		return false
	}
	for i := range r.Sides {
		if r.Sides[i].Unsettled() {
			return true
		}
	}
	return false
}

// sharedGPU reports whether the run is ok and shared its GPUs with
// another tenant's processes.
func (r *RunRecord) sharedGPU() bool {
	return r.Status == datasets.StatusOK && len(r.Shared) > 0
}

// settle sets the run's status and error from its sides.
func (r *RunRecord) settle() {
	r.Version = journalVersion
	r.Status, r.Error = datasets.StatusOK, ""
	for _, s := range r.Sides {
		if s.Status != datasets.StatusOK {
			r.Status = s.Status
		}
	}
	if c := r.cause(); c != nil {
		r.Error = c.Label + ": " + c.Error
	}
}

// cause is the side that made the run fail: the first side that is not ok
// other than one stopped because its partner failed; nil for an ok run.
func (r *RunRecord) cause() *sideRecord {
	var first *sideRecord
	for i := range r.Sides {
		s := &r.Sides[i]
		if s.Status == datasets.StatusOK {
			continue
		}
		if first == nil {
			first = s
		}
		if !strings.HasPrefix(s.Error, partnerFailed) && !strings.HasPrefix(s.Error, stoppedForPartner) {
			return s
		}
	}
	return first
}

// journal is the append-only file of finished runs. Each record is one
// JSON line, written whole by one write(2) on a file opened O_APPEND and
// fsynced before the run counts as done, so a crash loses at most the run
// in progress and leaves at most a torn last line, which the next open
// drops.
type journal struct {
	path string
	f    *os.File
}

// openJournal opens (creating it if needed) the journal at path and returns
// the records in it, by run ID (a later record of a run replaces an earlier
// one). A last line cut short by a crash is dropped and cut from the file;
// a bad line anywhere else is an error naming its line.
func openJournal(path string) (*journal, map[string]*RunRecord, []string, error) {
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil, err
	}
	recs, keep, warns, err := parseJournal(path, data)
	if err != nil {
		return nil, nil, nil, err
	}
	if keep < len(data) {
		if err := os.Truncate(path, int64(keep)); err != nil {
			return nil, nil, nil, err
		}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, nil, nil, err
	}
	return &journal{path: path, f: f}, recs, warns, nil
}

// peekJournal returns the records of the journal at path like openJournal,
// without changing the file: a shard still running may be appending to it.
// A missing file holds no records.
func peekJournal(path string) (map[string]*RunRecord, []string, error) {
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, nil, err
	}
	recs, _, warns, err := parseJournal(path, data)
	return recs, warns, err
}

// ReadCampaignJournal returns the records of the journal of the campaign
// in dir, like peekJournal.
func ReadCampaignJournal(dir string) (map[string]*RunRecord, []string, error) {
	return peekJournal(filepath.Join(dir, journalName))
}

// parseJournal reads the records of data, the content of the journal at
// path, and returns the length of its complete lines.
func parseJournal(path string, data []byte) (map[string]*RunRecord, int, []string, error) {
	var warns []string
	keep := len(data)
	if keep > 0 && data[keep-1] != '\n' {
		keep = bytes.LastIndexByte(data, '\n') + 1
		warns = append(warns, fmt.Sprintf("%s: dropped an unfinished last record (%d bytes) left by an interrupted write", path, len(data)-keep))
	}
	recs := map[string]*RunRecord{}
	for n, line := range bytes.Split(data[:keep], []byte{'\n'}) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var r RunRecord
		if err := json.Unmarshal(line, &r); err != nil {
			return nil, 0, nil, fmt.Errorf("%s:%d: %v", path, n+1, err)
		}
		if r.Version < 1 || r.Version > journalVersion {
			return nil, 0, nil, fmt.Errorf("%s:%d: journal record version %d is not known to this coloc (it reads versions 1 to %d)", path, n+1, r.Version, journalVersion)
		}
		if r.RunID == "" {
			return nil, 0, nil, fmt.Errorf("%s:%d: record without run_id", path, n+1)
		}
		recs[r.RunID] = &r
	}
	return recs, keep, warns, nil
}

// Append writes one record and syncs it to disk.
func (j *journal) Append(r *RunRecord) error {
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("journal %s: run %s: %w", j.path, r.RunID, err)
	}
	if _, err := j.f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("journal %s: %w", j.path, err)
	}
	return j.f.Sync()
}

// Close closes the journal file.
func (j *journal) Close() error { return j.f.Close() }
