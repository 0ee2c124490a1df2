package profile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// mpsControl is the binary that starts and stops the CUDA Multi-Process
// Service daemon; it ships with the NVIDIA driver utilities.
const mpsControl = "nvidia-cuda-mps-control"

// MPS runs a private CUDA MPS daemon for a campaign: its pipe and log
// directories are fresh temporary directories, so it neither needs root nor
// touches a daemon someone else runs. Workloads find it through the
// environment that Start returns.
type MPS struct {
	// Control is the control binary, looked up in PATH; default mpsControl.
	Control string
	// Devices is CUDA_VISIBLE_DEVICES for the daemon (the campaign's GPUs).
	Devices string
	// StateFile, when set, names the running daemon (its control binary,
	// devices and directory) from Start to Stop, so that a campaign
	// resumed after this one was killed can stop it (stopLeftoverMPS).
	StateFile string
	dir       string
	env       []string
}

// mpsVersion is the version of an MPS state file's format.
const mpsVersion = 1

type mpsRecord struct {
	Version int    `json:"version"`
	Host    string `json:"host"`
	Control string `json:"control"`
	Devices string `json:"devices"`
	Dir     string `json:"dir"`
}

// NewMPS checks that MPS can be used for devices and returns it unstarted.
// It fails with a message saying what to do when the control binary is
// absent.
func NewMPS(control, devices string) (*MPS, error) {
	if control == "" {
		control = mpsControl
	}
	path, err := exec.LookPath(control)
	if err != nil {
		return nil, fmt.Errorf("--share mps: %s not found in PATH (it comes with the NVIDIA driver utilities); install it or use --share timeslice", control)
	}
	return &MPS{Control: path, Devices: devices}, nil
}

// Start starts the daemon and returns the workloads' environment.
func (m *MPS) Start() ([]string, error) {
	dir, err := os.MkdirTemp("", "coloc-mps-")
	if err != nil {
		return nil, err
	}
	m.dir = dir
	m.env = []string{
		"CUDA_MPS_PIPE_DIRECTORY=" + filepath.Join(dir, "pipe"),
		"CUDA_MPS_LOG_DIRECTORY=" + filepath.Join(dir, "log"),
	}
	for _, d := range []string{"pipe", "log"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o700); err != nil {
			return nil, err
		}
	}
	if _, err := m.control(nil, "-d"); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("starting the MPS daemon: %w", err)
	}
	if m.StateFile != "" {
		host, _ := os.Hostname()
		b, _ := json.Marshal(mpsRecord{Version: mpsVersion, Host: host, Control: m.Control, Devices: m.Devices, Dir: dir})
		if err := writeFileAtomic(m.StateFile, append(b, '\n')); err != nil {
			_ = m.Stop()
			return nil, fmt.Errorf("naming the MPS daemon in %s: %w", m.StateFile, err)
		}
	}
	return m.env, nil
}

// Stop asks the daemon to quit and removes its directories.
func (m *MPS) Stop() error {
	if m.dir == "" {
		return nil
	}
	_, err := m.control([]byte("quit\n"))
	if rerr := os.RemoveAll(m.dir); err == nil {
		err = rerr
	}
	m.dir = ""
	if m.StateFile != "" {
		if rerr := os.Remove(m.StateFile); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) && err == nil {
			err = rerr
		}
	}
	return err
}

// stopLeftoverMPS quits the MPS daemon that the state file at path names:
// one a campaign started and could not stop because it was killed. A
// daemon left so keeps its server, and with it the GPUs' MPS state, from
// the killed campaign. It returns a warning saying what it did, "" when
// there was no such file; an error when the file cannot be read (it is
// then kept). The daemon's directory is removed, whether or not it still
// answered.
func stopLeftoverMPS(path string) (string, error) {
	var rec mpsRecord
	ok, err := readStateFile(path, mpsVersion, &rec, "the MPS daemon a killed campaign may have left running; quit it with "+mpsControl)
	if err != nil || !ok {
		return "", err
	}
	if rec.Dir == "" || rec.Control == "" {
		return "", fmt.Errorf("%s: no daemon directory or control binary named", path)
	}
	var warn string
	if host, other := elsewhere(rec.Host); other {
		warn = fmt.Sprintf("the campaign killed before left an MPS daemon on host %s (pipe directory %s); this is %s, so it was not stopped: quit it there", rec.Host, rec.Dir, host)
	} else {
		m := &MPS{Control: rec.Control, Devices: rec.Devices, dir: rec.Dir, env: []string{
			"CUDA_MPS_PIPE_DIRECTORY=" + filepath.Join(rec.Dir, "pipe"),
			"CUDA_MPS_LOG_DIRECTORY=" + filepath.Join(rec.Dir, "log"),
		}}
		if err := m.Stop(); err != nil {
			warn = fmt.Sprintf("the campaign killed before left the MPS daemon of %s: quitting it said %v (it may have ended already); its directory was removed", rec.Dir, err)
		} else {
			warn = fmt.Sprintf("the campaign killed before left its MPS daemon running (devices %s): quit it, so that this campaign starts a fresh one", rec.Devices)
		}
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return warn, err
	}
	return warn, nil
}

func (m *MPS) control(stdin []byte, args ...string) (string, error) {
	cmd := exec.Command(m.Control, args...)
	cmd.Env = append(os.Environ(), m.env...)
	cmd.Env = append(cmd.Env, "CUDA_VISIBLE_DEVICES="+m.Devices)
	cmd.Stdin = bytes.NewReader(stdin)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	text := strings.TrimSpace(out.String())
	var ee *exec.ExitError
	if errors.As(err, &ee) && text != "" {
		err = fmt.Errorf("%s %s: %v: %s", filepath.Base(m.Control), strings.Join(args, " "), err, text)
	}
	return text, err
}
