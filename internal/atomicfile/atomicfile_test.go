package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func TestWriteReplacesWholeOrNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.json")
	if err := WriteBytes(path, []byte("old")); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := Write(path, func(w io.Writer) error {
		w.Write([]byte("half of the new content"))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("error %v, want boom", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("file holds %q after a failed write, want the old content", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d entries, want only the file (no temporary left)", len(entries))
	}
	if err := WriteBytes(path, []byte("new")); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(path)
	if b, _ := os.ReadFile(path); string(b) != "new" || st.Mode().Perm() != 0o644 {
		t.Errorf("file %q mode %v", b, st.Mode().Perm())
	}
}

func TestDirReplacesWholeOrNothing(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "out")
	write := func(dir, name, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			return "<" + err.Error() + ">"
		}
		return string(b)
	}
	// A first write creates the directory.
	if err := Dir(out, func(tmp string) error {
		write(tmp, "a", "a1")
		write(tmp, "b", "b1")
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if read("a") != "a1" || read("b") != "b1" {
		t.Fatalf("after the first write: a=%q b=%q", read("a"), read("b"))
	}
	write(out, "user/notes.txt", "mine")

	// A failing write leaves the old directory whole.
	boom := errors.New("boom")
	err := Dir(out, func(tmp string) error {
		write(tmp, "a", "a2")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("error %v, want boom", err)
	}
	if read("a") != "a1" || read("b") != "b1" || read("user/notes.txt") != "mine" {
		t.Errorf("after a failed write: a=%q b=%q notes=%q, want the old content", read("a"), read("b"), read("user/notes.txt"))
	}

	// A good write replaces what it writes and keeps the rest, and the
	// directory's permissions.
	if err := os.Chmod(out, 0o750); err != nil {
		t.Fatal(err)
	}
	if err := Dir(out, func(tmp string) error {
		write(tmp, "a", "a3")
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if read("a") != "a3" || read("b") != "b1" || read("user/notes.txt") != "mine" {
		t.Errorf("after a second write: a=%q b=%q notes=%q", read("a"), read("b"), read("user/notes.txt"))
	}
	if st, err := os.Stat(out); err != nil {
		t.Error(err)
	} else if st.Mode().Perm() != 0o750 {
		t.Errorf("directory mode after the write: %v, want 0750", st.Mode().Perm())
	}
	entries, _ := os.ReadDir(parent)
	if len(entries) != 1 || entries[0].Name() != "out" {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("parent holds %v, want only out (no temporary or old copy left)", names)
	}
}

func TestDirRefusesAFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	called := false
	err := Dir(path, func(string) error { called = true; return nil })
	if err == nil {
		t.Fatal("replaced a file with a directory")
	}
	if b, _ := os.ReadFile(path); string(b) != "x" || !called {
		t.Errorf("file %q, fn called %v", b, called)
	}
}

func TestWriteModeSetsTheMode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.sh")
	if err := WriteMode(path, 0o755, func(w io.Writer) error { _, err := io.WriteString(w, "#!/bin/sh\n"); return err }); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(path); err != nil {
		t.Fatal(err)
	} else if st.Mode().Perm() != 0o755 {
		t.Fatalf("mode %v, want 0755", st.Mode().Perm())
	}
}

func TestDirOfTheWorkingDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "work")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	if err := os.WriteFile("old", []byte("o"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Dir(".", func(tmp string) error { return os.WriteFile(filepath.Join(tmp, "new"), []byte("n"), 0o644) }); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"old", "new"} {
		if _, err := os.Stat(name); err != nil {
			t.Errorf("%s, relative to the working directory after the write: %v", name, err)
		}
	}
}
