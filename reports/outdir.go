package reports

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/coloc-dev/coloc/internal/atomicfile"
)

// ManifestFile lists, in the report directory, every file the report
// wrote there, so that the next report into the same directory removes
// exactly those and never a file of anyone else.
const ManifestFile = ".coloc-report.json"

// manifestVersion is the version of the manifest format; others are
// refused.
const manifestVersion = 1

// manifest is the content of ManifestFile.
type manifest struct {
	Version   int      `json:"version"`
	Generator string   `json:"generator"`
	Files     []string `json:"files"` // slash-separated, relative to the directory, sorted
}

// readManifest returns the files an earlier report listed in dir: none
// when dir or its manifest does not exist. A manifest of an unknown
// version, or one naming a path outside dir, is refused: nothing is
// deleted on its word.
func readManifest(dir string) ([]string, error) {
	p := filepath.Join(dir, ManifestFile)
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("report directory: %w", err)
	}
	var m manifest
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	if m.Version != manifestVersion {
		return nil, fmt.Errorf("%s: manifest version %d, want %d (written by another coloc?)", p, m.Version, manifestVersion)
	}
	for i, f := range m.Files {
		if !localPath(f) {
			return nil, fmt.Errorf("%s: file %d (%q) is not a plain path inside the directory", p, i+1, f)
		}
	}
	return m.Files, nil
}

// localPath reports whether f is a clean, relative, slash-separated path
// that stays inside its directory and is not the manifest itself.
func localPath(f string) bool {
	return f != "" && f != ManifestFile && !strings.Contains(f, `\`) && path.Clean(f) == f &&
		filepath.IsLocal(filepath.FromSlash(f))
}

func writeManifest(dir string, files []string) error {
	files = slices.Clone(files)
	sort.Strings(files)
	files = slices.Compact(files)
	data, err := json.MarshalIndent(manifest{Version: manifestVersion, Generator: generator, Files: files}, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteBytes(filepath.Join(dir, ManifestFile), append(data, '\n'))
}

// install moves the files of the finished report in stage into out. A
// file of out that the report would replace must be listed in out's
// manifest (an earlier report wrote it), else nothing is touched and the
// error names it. The manifest is first widened to the old and new files,
// so that a crash part-way leaves a manifest that still covers every file
// a report put there; then the old files the new report does not write
// are removed, the new ones renamed into place, and the manifest narrowed
// to them.
func install(stage, out string) error {
	old, err := readManifest(out)
	if err != nil {
		return err
	}
	var files []string
	err = filepath.WalkDir(stage, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		rel, err := filepath.Rel(stage, p)
		if err != nil {
			return err
		}
		files = append(files, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		return err
	}
	sort.Strings(files)
	for _, f := range files {
		if slices.Contains(old, f) {
			continue
		}
		if _, err := os.Lstat(filepath.Join(out, filepath.FromSlash(f))); err == nil {
			return fmt.Errorf("report directory %s: %s exists and no earlier coloc report wrote it (its %s does not list it): move it or choose another --out",
				out, f, ManifestFile)
		}
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	if err := writeManifest(out, append(slices.Clone(old), files...)); err != nil {
		return err
	}
	for _, f := range old {
		if slices.Contains(files, f) {
			continue
		}
		p := filepath.Join(out, filepath.FromSlash(f))
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("removing %s of the earlier report: %w", p, err)
		}
		removeEmptyParents(out, f)
	}
	for _, f := range files {
		dst := filepath.Join(out, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := os.Rename(filepath.Join(stage, filepath.FromSlash(f)), dst); err != nil {
			return err
		}
	}
	return writeManifest(out, files)
}

// removeEmptyParents removes the directories between out and the removed
// file f that are now empty (e.g. models/ of an earlier report), never
// out itself.
func removeEmptyParents(out, f string) {
	for d := path.Dir(f); d != "." && d != "/"; d = path.Dir(d) {
		if os.Remove(filepath.Join(out, filepath.FromSlash(d))) != nil {
			return // not empty, or not ours to judge
		}
	}
}
