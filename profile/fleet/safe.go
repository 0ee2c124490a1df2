package fleet

import (
	"fmt"
	"regexp"
	"unicode"
	"unicode/utf8"

	"github.com/coloc-dev/coloc/profile"
)

// Strings that reach a generated Slurm script or Kubernetes manifest are
// checked twice over. First against a conservative character set for where
// they land (below): a name in a comment line, a value of an #SBATCH line,
// a Kubernetes name, label or quantity. Then, where they reach a shell
// command, they are quoted for it (shellQuote), and the manifest is
// written by a YAML encoder, which quotes every scalar that needs it. A
// string the set refuses is an error naming the flag or field; it is never
// silently rewritten (K8sJobName derives a name, it does not repair one).
var (
	// slurmJobName is an #SBATCH --job-name value.
	slurmJobName = regexp.MustCompile(`^[A-Za-z0-9._-]{1,100}$`)
	// slurmPartition is an #SBATCH --partition value: a comma-separated
	// list of partition names.
	slurmPartition = regexp.MustCompile(`^[A-Za-z0-9._-]+(,[A-Za-z0-9._-]+)*$`)
	// slurmConstraint is an #SBATCH --constraint value: node features
	// joined by Slurm's operators (& | , * [ ] !) and counts.
	slurmConstraint = regexp.MustCompile(`^[A-Za-z0-9._:&|,*!\[\]()-]+$`)
	// fleetDir is a fleet directory in an #SBATCH --output line, which
	// Slurm parses with its own quoting rules (double quotes, backslashes)
	// and which is not a shell: letters, digits and - _ . / : = + , @ % ~ '.
	fleetDir = regexp.MustCompile(`^/[A-Za-z0-9_./:=+,@%~'-]*$`)
	// k8sSubdomain is a DNS-1123 subdomain (a claim name).
	k8sSubdomain = regexp.MustCompile(`^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$`)
	// k8sImage is an image reference: registry/name[:tag][@digest].
	k8sImage = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._/:@+-]*$`)
	// k8sLabelKey is a label key ([prefix/]name), k8sLabelValue its value.
	k8sLabelKey   = regexp.MustCompile(`^([a-z0-9]([-a-z0-9.]*[a-z0-9])?/)?[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$`)
	k8sLabelValue = regexp.MustCompile(`^([A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?)?$`)
	// k8sQuantity is a CPU quantity: cores, decimal cores or millicores.
	k8sQuantity = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?m?$`)
)

// checkPlain refuses what no quoting makes safe to carry into a script or
// manifest: text that is not UTF-8, and control characters (newlines,
// tabs, NUL, escape sequences). It is for paths and arguments, which are
// quoted wherever they are written.
func checkPlain(what, s string) error {
	if !utf8.ValidString(s) {
		return fmt.Errorf("%s %q: not UTF-8 text", what, s)
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return fmt.Errorf("%s %q: holds the control character %U", what, s, r)
		}
	}
	return nil
}

// checkStrings checks what both generators write of a fleet: its name
// and its suite's name (in comment lines) and the run flags every shard
// passes (in the shell command).
func (f *Fleet) checkStrings() error {
	if err := profile.CheckName("fleet name (the name of its directory)", f.Name); err != nil {
		return err
	}
	if err := profile.CheckName("suite name", f.Suite.Name); err != nil {
		return err
	}
	for _, a := range f.Args {
		if err := checkPlain("run flag", a); err != nil {
			return err
		}
	}
	return nil
}
