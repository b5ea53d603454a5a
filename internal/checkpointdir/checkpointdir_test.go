package checkpointdir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/softshape-go/softshape/internal/testfs"
)

// The files of one saved checkpoint, named as GoMLX names them (those of
// softshape/testdata/checkpoint-9ece8f6), and its history.
const (
	savedBin  = "checkpoint-n0000000-20261127-105238-step-00000036.bin"
	savedJSON = "checkpoint-n0000000-20261127-105238-step-00000036.json"
)

// writeCheckpoint writes the files of a checkpoint (savedBin, savedJSON and
// HistoryFile) to dir and returns their names, in name order.
func writeCheckpoint(t *testing.T, dir string) []string {
	t.Helper()
	for _, n := range []string{savedBin, savedJSON, HistoryFile} {
		testfs.Write(t, dir, n, "{}")
	}
	return []string{savedBin, savedJSON, HistoryFile}
}

// TestForeignFilesRefused: a folder that holds a file the user put there
// (or a sub-folder, or a file where the folder should be, or a file named
// almost like a checkpoint's) is refused by Files, Check, Clear and Remove
// with an error naming the folder and the file, and nothing is deleted, not
// even the earlier checkpoint beside the foreign file.
func TestForeignFilesRefused(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "precious")
	before := writeCheckpoint(t, dir)
	thesis := testfs.Write(t, dir, "thesis.txt", "three years of work")
	for name, f := range map[string]func(string) error{
		"Files":  func(d string) error { _, err := Files(d); return err },
		"Check":  Check,
		"Clear":  Clear,
		"Remove": Remove,
	} {
		err := f(dir)
		var foreign *ForeignFileError
		if !errors.As(err, &foreign) || foreign.Dir != dir || foreign.File != "thesis.txt" {
			t.Fatalf("%s beside thesis.txt: got %v, want a *ForeignFileError naming it", name, err)
		}
		for _, part := range []string{dir, "thesis.txt", "not a checkpoint file", "deleting nothing"} {
			if !strings.Contains(err.Error(), part) {
				t.Errorf("%s: error %q does not say %q", name, err, part)
			}
		}
		if b, err := os.ReadFile(thesis); err != nil || string(b) != "three years of work" {
			t.Errorf("%s: thesis.txt after the refusal: %q, %v", name, b, err)
		}
		if after := testfs.List(t, dir); !slices.Equal(after, append(slices.Clone(before), "thesis.txt")) {
			t.Errorf("%s: folder holds %v after the refusal, want %v plus thesis.txt", name, after, before)
		}
	}

	// A sub-folder is foreign too, even an empty one, and so is a name that
	// only looks like a checkpoint's.
	for _, tc := range []struct{ entry, name string }{
		{"notes", "sub-folder"},
		{"checkpoint-notes.bin", "file named like a checkpoint"},
		{"checkpoint-n0000001-x.txt", "checkpoint-like .txt"},
	} {
		d := filepath.Join(t.TempDir(), "ck")
		writeCheckpoint(t, d)
		p := filepath.Join(d, tc.entry)
		var err error
		if tc.name == "sub-folder" {
			err = os.Mkdir(p, 0o755)
		} else {
			err = os.WriteFile(p, []byte("mine"), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
		var foreign *ForeignFileError
		if err := Clear(d); !errors.As(err, &foreign) || foreign.File != tc.entry {
			t.Errorf("clearing beside a %s: %v", tc.name, err)
		}
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s gone: %v", tc.name, err)
		}
		if got := len(testfs.List(t, d)); got != 4 {
			t.Errorf("beside a %s: %d entries left, want the 4 there were", tc.name, got)
		}
	}

	// A file where the folder should be.
	file := testfs.Write(t, t.TempDir(), "model", "x")
	for name, f := range map[string]func(string) error{"Check": Check, "Clear": Clear, "Remove": Remove} {
		if err := f(file); err == nil || !strings.Contains(err.Error(), "checkpoint folder "+file+" is a file") {
			t.Errorf("%s of a file: %v", name, err)
		}
	}
	if b, _ := os.ReadFile(file); string(b) != "x" {
		t.Errorf("the file was changed: %q", b)
	}
}

// TestClearAndRemove: Clear deletes the files of an earlier checkpoint and
// keeps the folder; Remove deletes them and the folder; on a missing folder
// both do nothing and Files lists nothing.
func TestClearAndRemove(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ck")
	want := writeCheckpoint(t, dir)
	files, err := Files(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range want {
		want[i] = filepath.Join(dir, n)
	}
	if !slices.Equal(files, want) {
		t.Fatalf("Files = %v, want %v", files, want)
	}
	if err := Clear(dir); err != nil {
		t.Fatal(err)
	}
	if got := testfs.List(t, dir); len(got) != 0 {
		t.Errorf("Clear left %v", got)
	}
	writeCheckpoint(t, dir)
	if err := Remove(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("folder still there after Remove: %v", err)
	}
	if files, err := Files(dir); err != nil || files != nil {
		t.Errorf("Files of a missing folder: %v, %v", files, err)
	}
	if err := Clear(dir); err != nil {
		t.Errorf("clearing a missing folder: %v", err)
	}
	if err := Remove(dir); err != nil {
		t.Errorf("removing a missing folder: %v", err)
	}
}

// TestSaved: Saved lists the GoMLX checkpoints' .json files in name order,
// neither their .bin files nor the history nor anything else, and a missing
// folder is an error naming it.
func TestSaved(t *testing.T) {
	dir := t.TempDir()
	writeCheckpoint(t, dir)
	earlier := "checkpoint-n0000000-20261127-105230-initial.json"
	testfs.Write(t, dir, earlier, "{}")
	testfs.Write(t, dir, "notes.json", "{}")
	got, err := Saved(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{earlier, savedJSON}; !slices.Equal(got, want) {
		t.Errorf("Saved = %v, want %v", got, want)
	}
	missing := filepath.Join(dir, "missing")
	if _, err := Saved(missing); err == nil || !strings.Contains(err.Error(), "checkpoint "+missing) {
		t.Errorf("Saved of a missing folder: %v", err)
	}
}

// TestFoldDirsOneBased: fold index i goes to dir/fold-<i+1>, the numbers of
// the command line, never fold-0, which marks a folder of the older 0-based
// layout (LegacyFoldDirs), and only when it is a folder.
func TestFoldDirsOneBased(t *testing.T) {
	if got := FoldDir("ck", 0); got != filepath.Join("ck", "fold-1") {
		t.Errorf("FoldDir(ck, 0) = %s, want ck/fold-1", got)
	}
	if got := FoldDir("ck", 4); got != filepath.Join("ck", "fold-5") {
		t.Errorf("FoldDir(ck, 4) = %s, want ck/fold-5", got)
	}
	dir := t.TempDir()
	writeCheckpoint(t, FoldDir(dir, 0))
	writeCheckpoint(t, FoldDir(dir, 2))
	if LegacyFoldDirs(dir) {
		t.Error("a folder of fold-1 and fold-3 taken for the 0-based layout")
	}
	testfs.Write(t, dir, "fold-0", "a file, not a fold")
	if LegacyFoldDirs(dir) {
		t.Error("a file named fold-0 taken for the 0-based layout")
	}
	if err := os.Remove(filepath.Join(dir, "fold-0")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "fold-0"), 0o755); err != nil {
		t.Fatal(err)
	}
	if !LegacyFoldDirs(dir) {
		t.Error("a folder with fold-0 not taken for the 0-based layout")
	}
}

// TestCheckWritable: a checkpoint folder that cannot be created is an error
// naming the folder and the system's cause, whether its parent is a file or
// a folder no one may write in (sysfs on Linux, as root too, unlike a
// permission); one that can is accepted and the check leaves nothing
// behind, neither its probe file nor the folders it created.
func TestCheckWritable(t *testing.T) {
	root := t.TempDir()
	file := testfs.Write(t, root, "notes.txt", "mine")
	dir := filepath.Join(file, "ckpt", "fold-1")
	err := Check(dir)
	if err == nil || !strings.Contains(err.Error(), "checkpoint folder "+dir) || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("checkpoint under a file: %v", err)
	}
	if runtime.GOOS == "linux" {
		if st, serr := os.Stat("/sys/kernel"); serr == nil && st.IsDir() {
			dir := filepath.Join("/sys", fmt.Sprintf("softshape-check-%d", os.Getpid()), "fold-1")
			err := Check(dir)
			if err == nil || !strings.Contains(err.Error(), "checkpoint folder "+dir+" cannot be written: mkdir /sys/softshape-check-") {
				t.Errorf("checkpoint under /sys: %v", err)
			}
		}
	}

	if err := Check(filepath.Join(root, "new", "fold-1")); err != nil {
		t.Fatal(err)
	}
	if got := testfs.List(t, root); strings.Join(got, ",") != "notes.txt" {
		t.Errorf("the check left %v behind", got)
	}
	existing := filepath.Join(root, "old")
	testfs.Write(t, existing, HistoryFile, "{}")
	if err := Check(existing); err != nil {
		t.Fatal(err)
	}
	if got := testfs.List(t, existing); strings.Join(got, ",") != HistoryFile {
		t.Errorf("the check left %v in an existing folder", got)
	}
}

// TestHeld: the fold subfolders holding a checkpoint file are listed,
// whatever else they hold; empty fold folders, other folders and a missing
// dir hold none.
func TestHeld(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []struct{ sub, name string }{
		{"fold-1", "checkpoint-n0000001-20250101-000000-initial.json"},
		{"fold-3", HistoryFile},
		{"fold-3", "notes.txt"},
		{"fold-4", "notes.txt"},
		{"figures", "checkpoint-n0000001-20250101-000000-initial.json"},
	} {
		if err := os.MkdirAll(filepath.Join(dir, f.sub), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f.sub, f.name), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "fold-2"), 0o755); err != nil {
		t.Fatal(err)
	}
	held, err := Held(dir)
	if want := []string{filepath.Join(dir, "fold-1"), filepath.Join(dir, "fold-3")}; err != nil || !slices.Equal(held, want) {
		t.Errorf("Held: %v, %v; want %v", held, err, want)
	}
	if held, err := Held(filepath.Join(dir, "none")); err != nil || len(held) != 0 {
		t.Errorf("missing dir: %v, %v", held, err)
	}
}
