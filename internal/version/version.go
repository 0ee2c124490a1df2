// Package version reports the version of the coloc tool, for provenance in
// every file the tool writes (manifests, model files, policy files).
package version

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// Override is set at link time by the Makefile
// (-ldflags "-X github.com/coloc-dev/coloc/internal/version.Override=v0.3.0").
var Override string

// String returns the tool version: the link-time override when set, else the
// module version or VCS revision recorded by the Go toolchain, else "devel".
func String() string {
	if Override != "" {
		return Override
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	rev, dirty := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "devel"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "-dirty"
	}
	return "devel+" + rev
}

// Describe is the version with the Go toolchain and platform that built
// the tool, as `coloc version` prints it.
func Describe() string {
	return fmt.Sprintf("coloc %s (%s, %s/%s)", String(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
