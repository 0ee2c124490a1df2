package fleet

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/coloc-dev/coloc/profile"
)

// SlurmScriptName is the job array script of a fleet, in its directory.
const SlurmScriptName = "campaign.sbatch"

// SlurmOptions are the Slurm settings of a fleet's job array. Coloc, Suite
// and Python are the paths the nodes use: absolute, on a file system the
// nodes share with the submitting machine.
type SlurmOptions struct {
	JobName     string `json:"job_name"`
	Partition   string `json:"partition,omitempty"`
	Constraint  string `json:"constraint,omitempty"` // a node feature, e.g. the GPU type
	CPUsPerTask int    `json:"cpus_per_task,omitempty"`
	Time        string `json:"time,omitempty"` // Slurm's format: MM, HH:MM:SS, D-HH:MM...
	Coloc       string `json:"coloc"`
	Suite       string `json:"suite"`
	Python      string `json:"python"`
}

// slurmTime is Slurm's time limit syntax: "minutes", "minutes:seconds",
// "hours:minutes:seconds", "days-hours", "days-hours:minutes",
// "days-hours:minutes:seconds", or UNLIMITED.
var slurmTime = regexp.MustCompile(`^(\d+|\d+:\d+|\d+:\d+:\d+|\d+-\d+|\d+-\d+:\d+|\d+-\d+:\d+:\d+|UNLIMITED|unlimited|infinite)$`)

// check refuses values an #SBATCH line cannot carry, and paths a shell
// word cannot.
func (o *SlurmOptions) check() error {
	for _, v := range []struct{ flag, val string }{
		{"--job-name", o.JobName}, {"--partition", o.Partition}, {"--constraint", o.Constraint}, {"--time", o.Time},
	} {
		if strings.ContainsAny(v.val, " \t\r\n") {
			return fmt.Errorf("%s %q: an #SBATCH line cannot hold white space", v.flag, v.val)
		}
	}
	switch {
	case !slurmJobName.MatchString(o.JobName):
		return fmt.Errorf("--job-name %q: want 1 to 100 letters, digits, '.', '_' and '-'", o.JobName)
	case o.Partition != "" && !slurmPartition.MatchString(o.Partition):
		return fmt.Errorf("--partition %q: want partition names (letters, digits, '.', '_', '-') separated by commas", o.Partition)
	case o.Constraint != "" && !slurmConstraint.MatchString(o.Constraint):
		return fmt.Errorf("--constraint %q: want node features (letters, digits, '.', '_', '-', ':') and Slurm's operators & | , * ! [ ] ( )", o.Constraint)
	case o.Time != "" && !slurmTime.MatchString(o.Time):
		return fmt.Errorf("--time %q: want Slurm's format (minutes, HH:MM:SS, D-HH:MM:SS, ...)", o.Time)
	case o.CPUsPerTask < 0:
		return fmt.Errorf("--cpus-per-task %d: want 0 (Slurm's default) or more", o.CPUsPerTask)
	}
	for _, v := range []struct{ flag, val string }{{"--coloc", o.Coloc}, {"--suite", o.Suite}, {"--python", o.Python}} {
		if err := checkPlain(v.flag, v.val); err != nil {
			return err
		}
	}
	return nil
}

// SlurmScript is the sbatch script of fleet f in directory dir (absolute):
// a job array whose task i runs shard i of n into dir/shards/i, with its
// log in dir/shards/i/slurm-<job>_<i>.out. The task execs coloc, so the
// SIGTERM of scancel or of the time limit reaches coloc, which stops the
// running workloads and keeps every finished run; resubmitting the task
// (sbatch --array=i) resumes the shard.
func SlurmScript(dir string, f *Fleet) (string, error) {
	o := f.Slurm
	if o == nil {
		return "", fmt.Errorf("fleet %s has no Slurm settings", f.Name)
	}
	if err := f.checkStrings(); err != nil {
		return "", err
	}
	if err := o.check(); err != nil {
		return "", err
	}
	if !filepath.IsAbs(dir) || strings.ContainsAny(dir, " \t\r\n") {
		return "", fmt.Errorf("fleet directory %q: Slurm needs an absolute path without white space", dir)
	}
	if !fleetDir.MatchString(dir) {
		return "", fmt.Errorf("fleet directory %q: an #SBATCH line carries letters, digits and - _ . / : = + , @ %% ~ ' only", dir)
	}
	n := len(f.Plan.Shards)
	var b strings.Builder
	directive := func(format string, args ...any) { fmt.Fprintf(&b, "#SBATCH "+format+"\n", args...) }
	b.WriteString("#!/bin/bash\n")
	directive("--job-name=%s", o.JobName)
	directive("--array=1-%d", n)
	directive("--nodes=1")
	directive("--ntasks=1")
	logDir := sbatchValue(filepath.Join(dir, shardsDir))
	directive("--output=%s/%%a/slurm-%%A_%%a.out", logDir)
	if o.Partition != "" {
		directive("--partition=%s", o.Partition)
	}
	if o.Constraint != "" {
		directive("--constraint=%s", o.Constraint)
	}
	if f.Settings.GPUs > 0 {
		directive("--gres=gpu:%d", f.Settings.GPUs)
	}
	if o.CPUsPerTask > 0 {
		directive("--cpus-per-task=%d", o.CPUsPerTask)
	}
	if o.Time != "" {
		directive("--time=%s", o.Time)
	}
	fmt.Fprintf(&b, `#
# coloc fleet campaign %s: suite %s (%s), plan %s of %d runs
# (estimated %s in all, %s for the longest shard), in %d shards.
# Written by 'coloc profile slurm'; %s beside this script is what
# 'coloc profile merge' checks the shards against.
#
# Array task i runs shard i/%d of the plan into shards/i on the node Slurm
# gives it; running a task again resumes its shard. Submit, resubmit one
# shard (here 2), merge:
#   sbatch %s
#   sbatch --array=2 %s
#   coloc profile merge %s
set -eu
shard=${SLURM_ARRAY_TASK_ID:?run this script with sbatch, as a task of its job array}
`, f.Name, f.Suite.Name, profile.ShortHash(f.Suite.Hash), profile.ShortHash(f.Plan.Hash), len(f.Plan.Runs),
		fmtSeconds(f.Plan.EstS), fmtSeconds(f.longestShard()), n, FileName, n,
		shellQuote(filepath.Join(dir, SlurmScriptName)), shellQuote(filepath.Join(dir, SlurmScriptName)), shellQuote(dir))
	cmd := shellQuoteAll(shardCommand(o.Coloc, o.Suite, o.Python, f.Args))
	cmd = append(cmd, "--out", shellQuote(filepath.Join(dir, shardsDir)+"/")+`"$shard"`, "--shard", fmt.Sprintf(`"$shard/%d"`, n))
	b.WriteString(wrapCommand("exec", cmd[:3], cmd[3:]))
	return b.String(), nil
}

// sbatchValue writes s for an #SBATCH line. sbatch splits such a line into
// words itself (no shell is involved): single and double quotes group
// characters and are removed, and a backslash makes the next character
// literal; in a file name pattern, %a and %A are the array index and job
// id, and a literal % is %%. So each quote and backslash gets a backslash,
// and each % is doubled.
func sbatchValue(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '\'', '"', '\\':
			b.WriteByte('\\')
		case '%':
			b.WriteByte('%')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// wrapCommand writes a shell command line: head words, then the flags
// (each with its value), continued over lines of about 80 columns.
func wrapCommand(prefix string, head, flags []string) string {
	var b strings.Builder
	line := prefix + " " + strings.Join(head, " ")
	for i := 0; i < len(flags); {
		w := flags[i]
		if i+1 < len(flags) && strings.HasPrefix(flags[i], "--") && !strings.HasPrefix(flags[i+1], "--") {
			w += " " + flags[i+1]
			i++
		}
		i++
		if len(line)+1+len(w) > 78 {
			b.WriteString(line + " \\\n")
			line = "    " + w
		} else {
			line += " " + w
		}
	}
	b.WriteString(line + "\n")
	return b.String()
}

// shardCommand is the command line of a shard, less --out and --shard.
func shardCommand(coloc, suite, python string, args []string) []string {
	cmd := []string{coloc, "profile", "run", "--suite", suite, "--python", python}
	return append(cmd, args...)
}

// longestShard is the estimated time of the longest shard, in seconds.
func (f *Fleet) longestShard() float64 {
	var m float64
	for _, sh := range f.Plan.Shards {
		m = max(m, sh.EstS)
	}
	return m
}

func fmtSeconds(s float64) string {
	return (time.Duration(s * float64(time.Second))).Round(time.Second).String()
}

// shellQuote quotes s for sh when it holds anything but safe characters.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=+,@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func shellQuoteAll(v []string) []string {
	out := make([]string, len(v))
	for i, s := range v {
		out[i] = shellQuote(s)
	}
	return out
}
