package fleet

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// ResolvePrograms settles the programs the tasks run: Coloc "" becomes
// this binary (symbolic links resolved), and Coloc and Python become
// absolute when they are paths (hold a "/"); a bare name is left to the
// nodes' PATH.
func (o *SlurmOptions) ResolvePrograms() error {
	if o.Coloc == "" {
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("finding this coloc binary (pass --coloc): %w", err)
		}
		if o.Coloc, err = filepath.EvalSymlinks(exe); err != nil {
			return err
		}
	}
	for _, p := range []*string{&o.Coloc, &o.Python} {
		if strings.Contains(*p, "/") {
			abs, err := filepath.Abs(*p)
			if err != nil {
				return err
			}
			*p = abs
		}
	}
	return nil
}

// Sbatch submits script from dir with `sbatch --parsable` and returns the
// job id.
func Sbatch(dir, script string) (string, error) {
	bin, err := exec.LookPath("sbatch")
	if err != nil {
		return "", fmt.Errorf("--submit: sbatch not found (%v); the script is written: submit it where Slurm runs with sbatch %s", err, script)
	}
	var out, errb bytes.Buffer
	c := exec.Command(bin, "--parsable", script)
	c.Dir, c.Stdout, c.Stderr = dir, &out, &errb
	if err := c.Run(); err != nil {
		return "", fmt.Errorf("sbatch --parsable %s: %v: %s", script, err, strings.TrimSpace(errb.String()))
	}
	// --parsable prints "jobid" or "jobid;cluster".
	id, _, _ := strings.Cut(strings.TrimSpace(out.String()), ";")
	if id == "" {
		return "", fmt.Errorf("sbatch --parsable %s printed no job id (stderr: %s)", script, strings.TrimSpace(errb.String()))
	}
	return id, nil
}
