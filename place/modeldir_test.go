package place

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/coloc-dev/coloc/model"
)

// A model directory whose model file is a named pipe (the read would hang)
// or a link to /dev/zero (it would never end), or whose index lists no
// model, is refused before model's readers see it, by every loader.
func TestModelDirRefusals(t *testing.T) {
	fit := fitGavel(t, "bias", "similarity")
	copyDir := func(t *testing.T) string {
		dir := filepath.Join(t.TempDir(), "models")
		if err := os.CopyFS(dir, os.DirFS(fit)); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	loaders := map[string]func(dir string) error{
		"LoadModels": func(dir string) error {
			_, err := LoadModels(dir, ModelNames{Cluster: "bias", Node: "bias"})
			return err
		},
		"Similar":      func(dir string) error { _, err := Similar(SimilarQuery{Models: dir, Job: "A3C"}); return err },
		"CheckFitData": func(dir string) error { _, err := CheckFitData(dir, ""); return err },
	}
	for _, c := range []struct{ name, want string }{{"pipe", "a named pipe"}, {"device", "a character device"}, {"no models", "the index lists no models"}} {
		t.Run(c.name, func(t *testing.T) {
			dir := copyDir(t)
			path := filepath.Join(dir, "bias.json")
			switch c.name {
			case "pipe":
				os.Remove(path)
				if err := syscall.Mkfifo(path, 0o644); err != nil {
					t.Fatal(err)
				}
			case "device":
				os.Remove(path)
				os.Symlink("/dev/zero", path)
			default:
				ixPath := filepath.Join(dir, model.IndexFile)
				raw, _ := os.ReadFile(ixPath)
				var ix map[string]any
				json.Unmarshal(raw, &ix)
				ix["models"] = []any{}
				b, _ := json.Marshal(ix)
				os.WriteFile(ixPath, b, 0o644)
			}
			for name, load := range loaders {
				if err := load(dir); err == nil || !strings.Contains(err.Error(), c.want) {
					t.Errorf("%s: %v, want an error saying %s", name, err, c.want)
				}
			}
		})
	}
}
