package profile

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// MPSControl is the binary that starts and stops the CUDA Multi-Process
// Service daemon; it ships with the NVIDIA driver utilities.
const MPSControl = "nvidia-cuda-mps-control"

// MPS runs a private CUDA MPS daemon for a campaign: its pipe and log
// directories are fresh temporary directories, so it neither needs root nor
// touches a daemon someone else runs. Workloads find it through the
// environment that Start returns.
type MPS struct {
	// Control is the control binary, looked up in PATH; default MPSControl.
	Control string
	// Devices is CUDA_VISIBLE_DEVICES for the daemon (the campaign's GPUs).
	Devices string
	dir     string
	env     []string
}

// NewMPS checks that MPS can be used for devices and returns it unstarted.
// It fails with a message saying what to do when the control binary is
// absent.
func NewMPS(control, devices string) (*MPS, error) {
	if control == "" {
		control = MPSControl
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
	return err
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
