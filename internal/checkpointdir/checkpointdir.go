// Package checkpointdir holds the folder rules of a saved checkpoint: which
// files in a checkpoint folder are the project's own (the GoMLX checkpoint
// files and the training history), how such a folder is checked, cleared
// and removed without touching anything else, and where each fold's
// checkpoint goes. Nothing a user put in a folder is ever deleted or
// overwritten: a folder holding a foreign file is refused and nothing in it
// is deleted.
package checkpointdir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
)

// HistoryFile is the per-epoch training history that "softshape train
// -checkpoint" and "softshape plot curves -save" write beside a checkpoint.
// It counts as one of the checkpoint's own files.
const HistoryFile = "history.json"

// checkpointFile matches the files GoMLX's checkpoint package writes:
// checkpoint-n<count>-<date>-<time>-<step or "initial">.bin and .json.
var checkpointFile = regexp.MustCompile(`^checkpoint-n\d+-[0-9A-Za-z_-]*\.(bin|json)$`)

// own reports whether a folder entry is one that a saved checkpoint of this
// project consists of: a GoMLX checkpoint .bin/.json or the training
// history.
func own(e fs.DirEntry) bool {
	if !e.Type().IsRegular() {
		return false
	}
	return e.Name() == HistoryFile || checkpointFile.MatchString(e.Name())
}

// ForeignFileError reports a checkpoint folder that holds something this
// project did not write there; a save into it then saves and deletes
// nothing.
type ForeignFileError struct {
	// Dir is the checkpoint folder and File the first (in name order) entry
	// that is not a checkpoint file.
	Dir, File string
}

// Error names the folder and the foreign file.
func (e *ForeignFileError) Error() string {
	return fmt.Sprintf("checkpoint folder %s holds %s, which is not a checkpoint file (checkpoint-*.bin/.json, %s): not saving there and deleting nothing; choose a new or empty folder",
		e.Dir, e.File, HistoryFile)
}

// Files returns the paths of the checkpoint files in dir, in name order, or
// a *ForeignFileError for the first entry that is not one (a sub-folder
// included). A dir that does not exist holds none; a dir that is not a
// folder is an error.
func Files(dir string) ([]string, error) {
	st, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("checkpoint folder %s: %w", dir, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("checkpoint folder %s is a file, not a folder: not saving there", dir)
	}
	entries, err := os.ReadDir(dir) // sorted by name
	if err != nil {
		return nil, fmt.Errorf("checkpoint folder %s: %w", dir, err)
	}
	var files []string
	for _, e := range entries {
		if !own(e) {
			return nil, &ForeignFileError{Dir: dir, File: e.Name()}
		}
		files = append(files, filepath.Join(dir, e.Name()))
	}
	return files, nil
}

// Clear removes the files of an earlier checkpoint in dir (and only those),
// leaving the folder: it first checks that dir holds nothing else (Files),
// and deletes nothing if it does.
func Clear(dir string) error {
	files, err := Files(dir)
	if err != nil {
		return err
	}
	for _, p := range files {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("replacing the checkpoint in %s: %w", dir, err)
		}
	}
	return nil
}

// Remove deletes a checkpoint folder: its checkpoint files, then the
// folder. When the folder holds anything else it returns a
// *ForeignFileError and deletes nothing. A missing folder is not an error.
func Remove(dir string) error {
	if err := Clear(dir); err != nil {
		return err
	}
	if err := os.Remove(dir); err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("removing checkpoint folder %s: %w", dir, err)
	}
	return nil
}

// Saved returns the base names of the GoMLX checkpoints in dir (their .json
// files, not HistoryFile), in name order; other entries are ignored.
func Saved(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", dir, err)
	}
	var names []string
	for _, e := range entries {
		if own(e) && filepath.Ext(e.Name()) == ".json" && e.Name() != HistoryFile {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names, nil
}

// Check reports whether a checkpoint may be saved into dir: nil when dir is
// missing or holds only checkpoint files, and it can be created and
// written; else the error Files returns, or the system's error naming what
// cannot be created or written. It leaves nothing behind: it writes a probe
// file and removes it, and removes the (empty) folders it had to create.
// Commands call it before training so that a refused save does not come
// after hours of work.
func Check(dir string) error {
	if _, err := Files(dir); err != nil {
		return err
	}
	if err := checkWritable(dir); err != nil {
		return fmt.Errorf("checkpoint folder %s cannot be written: %w", dir, err)
	}
	return nil
}

// checkWritable creates dir (and its missing parents) and a file in it, then
// removes the file and the folders it created, deepest first; a folder that
// is no longer empty stays.
func checkWritable(dir string) error {
	var made []string // missing folders, deepest first
	for d := filepath.Clean(dir); ; {
		if _, err := os.Lstat(d); !errors.Is(err, fs.ErrNotExist) {
			break
		}
		made = append(made, d)
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	defer func() {
		for _, d := range made {
			_ = os.Remove(d) // removes only an empty folder
		}
	}()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".softshape-write-check-*")
	if err != nil {
		return err
	}
	cerr := f.Close()
	if err := os.Remove(f.Name()); err != nil {
		return err
	}
	return cerr
}

// FoldDir is the subfolder of a checkpoint folder dir that receives the
// selected model of fold index fold (0-based, as in softshape's
// RunOptions.Folds and FoldResult.Fold): dir/fold-N with N = fold+1, the
// fold's number as the command line gives it (-fold, -folds 1-5), so
// fold-1 … fold-5. Versions before this numbering wrote dir/fold-<index>,
// fold-0 … fold-4: LegacyFoldDirs tells such a folder apart.
func FoldDir(dir string, fold int) string {
	return filepath.Join(dir, fmt.Sprintf("fold-%d", fold+1))
}

// LegacyFoldDirs reports whether the checkpoint folder dir was written by a
// version that numbered its fold subfolders from 0: it holds a fold-0
// folder, which FoldDir never names. Its fold-N holds the model of the fold
// now numbered N+1, so it must not be read as fold N.
func LegacyFoldDirs(dir string) bool {
	st, err := os.Stat(filepath.Join(dir, "fold-0"))
	return err == nil && st.IsDir()
}

// foldDirName matches the fold subfolders FoldDir names (and the older
// fold-0).
var foldDirName = regexp.MustCompile(`^fold-\d+$`)

// Held returns the fold subfolders of dir (fold-N, in name order) that hold
// a saved checkpoint: at least one checkpoint file, whatever else they
// hold. A dir that does not exist holds none. A command that saves a new
// run into dir uses it to tell an earlier run apart from an empty folder,
// so that no run is replaced, or mixed with another, unasked.
func Held(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("checkpoint folder %s: %w", dir, err)
	}
	var held []string
	for _, e := range entries {
		if !e.IsDir() || !foldDirName.MatchString(e.Name()) {
			continue
		}
		sub := filepath.Join(dir, e.Name())
		files, err := os.ReadDir(sub)
		if err != nil {
			return nil, fmt.Errorf("checkpoint folder %s: %w", sub, err)
		}
		for _, f := range files {
			if own(f) {
				held = append(held, sub)
				break
			}
		}
	}
	return held, nil
}
