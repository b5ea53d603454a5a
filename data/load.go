package data

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
)

// DataEnv is the environment variable that overrides DefaultRoot.
const DataEnv = "SOFTSHAPE_DATA"

// DefaultRoot returns the folder that holds the datasets, one sub-folder per
// dataset: $SOFTSHAPE_DATA when set, else <user cache dir>/softshape/ucr
// (e.g. ~/.cache/softshape/ucr on Linux), or <temp dir>/softshape/ucr when
// the system has no user cache dir.
func DefaultRoot() string {
	if dir := os.Getenv(DataEnv); dir != "" {
		return dir
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	return filepath.Join(cache, "softshape", "ucr")
}

// Split names of the UCR files.
const (
	splitTrain = "TRAIN"
	splitTest  = "TEST"
)

// fileExts are the file formats Load accepts, in order of preference.
var fileExts = [...]string{".tsv", ".ts"}

// splitFile returns the path of root/name/name_SPLIT.ext.
func splitFile(root, name, split, ext string) string {
	return filepath.Join(root, name, name+"_"+split+ext)
}

// findSplitFile returns the existing file of one split, .tsv before .ts,
// or "" when neither exists.
func findSplitFile(root, name, split string) (string, error) {
	for _, ext := range fileExts {
		p := splitFile(root, name, split, ext)
		st, err := os.Stat(p)
		if err == nil && st.Mode().IsRegular() {
			return p, nil
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("look for %s file: %w", split, err)
		}
	}
	return "", nil
}

// Present reports whether root holds both files of the named dataset (it
// does not read them).
func Present(root, name string) bool {
	train, err1 := findSplitFile(root, name, splitTrain)
	test, err2 := findSplitFile(root, name, splitTest)
	return err1 == nil && err2 == nil && train != "" && test != ""
}

// MissingError reports dataset files that are not where Load looks for
// them. It matches fs.ErrNotExist with errors.Is.
type MissingError struct {
	// Root and Name are the arguments of Load.
	Root, Name string
	// Missing lists the expected .tsv paths that were not found (the .ts
	// alternative was not found either); Found is the other split's file
	// when only one is missing.
	Missing []string
	Found   string
	// Unknown reports a name that is not in the registry and has no files;
	// Hint then suggests close registry names.
	Unknown bool
	Hint    string
}

// Error explains what is missing and where the files belong.
func (e *MissingError) Error() string {
	if e.Unknown {
		return fmt.Sprintf("unknown dataset %q: not one of the paper's 128 UCR datasets, and no files under %s%s",
			e.Name, filepath.Join(e.Root, e.Name), e.Hint)
	}
	where := fmt.Sprintf("put the files at %s and %s (UCR .tsv, or .ts), or point -data or $%s at the folder that holds %s/",
		splitFile(e.Root, e.Name, splitTrain, ".tsv"), splitFile(e.Root, e.Name, splitTest, ".tsv"), DataEnv, e.Name)
	if len(e.Missing) == 1 {
		split := splitTrain
		if strings.HasSuffix(e.Missing[0], "_"+splitTest+".tsv") {
			split = splitTest
		}
		return fmt.Sprintf("dataset %s: missing %s file %s (or .ts) beside %s; %s", e.Name, split, e.Missing[0], e.Found, where)
	}
	return fmt.Sprintf("dataset %s not found under %s: %s", e.Name, e.Root, where)
}

// Is makes errors.Is(err, fs.ErrNotExist) true.
func (e *MissingError) Is(target error) bool { return target == fs.ErrNotExist }

// checkName rejects names that cannot be a dataset folder.
func checkName(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\:`) || strings.TrimSpace(name) != name {
		return fmt.Errorf("invalid dataset name %q", name)
	}
	return nil
}

// readSplit reads one file with the reader for its extension.
func readSplit(path string) (*fileRows, error) {
	if strings.HasSuffix(path, ".ts") {
		return readTS(path)
	}
	return readTSV(path)
}

// Load reads the named dataset from root/<name>/<name>_TRAIN.tsv and
// <name>_TEST.tsv (each may instead be a .ts file; .tsv is preferred) and
// merges them, TRAIN rows first. Nothing is dropped. When the two files
// have different widths and one of them holds NaN padding (variable-length
// data), the narrower one is padded with NaN; otherwise different widths
// are an error. A missing file gives a *MissingError.
func Load(root, name string) (*Dataset, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	trainPath, err := findSplitFile(root, name, splitTrain)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", name, err)
	}
	testPath, err := findSplitFile(root, name, splitTest)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", name, err)
	}
	if trainPath == "" || testPath == "" {
		e := &MissingError{Root: root, Name: name}
		if trainPath == "" {
			e.Missing = append(e.Missing, splitFile(root, name, splitTrain, ".tsv"))
		}
		if testPath == "" {
			e.Missing = append(e.Missing, splitFile(root, name, splitTest, ".tsv"))
		}
		e.Found = trainPath + testPath // at most one is set
		if trainPath == "" && testPath == "" {
			if _, lerr := Lookup(name); lerr != nil {
				e.Unknown = true
				e.Hint = suggestion(name, registryNames())
			}
		}
		return nil, e
	}
	return readMerged(name, trainPath, testPath, readSplit)
}

// readMerged reads the TRAIN and TEST rows of dataset name with read (given
// train, then test) and merges them; errors name the dataset.
func readMerged(name, train, test string, read func(string) (*fileRows, error)) (*Dataset, error) {
	trainRows, err := read(train)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", name, err)
	}
	testRows, err := read(test)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", name, err)
	}
	return merge(name, trainRows, testRows)
}

// merge joins the TRAIN and TEST rows into one Dataset, TRAIN first (see
// Load); its errors and warnings name rows by file and line.
func merge(name string, train, test *fileRows) (*Dataset, error) {
	if wTrain, wTest := len(train.series[0]), len(test.series[0]); wTrain != wTest && !anyNaN(train.series) && !anyNaN(test.series) {
		return nil, fmt.Errorf("load %s: series in %s have %d values but those in %s have %d (and neither is NaN-padded)", name, train.path, wTrain, test.path, wTest)
	}
	series := append(train.series, test.series...)
	labels := append(train.labels, test.labels...)
	place := func(i int) (string, int) {
		if i < len(train.lines) {
			return train.path, train.lines[i]
		}
		return test.path, test.lines[i-len(train.lines)]
	}
	d, err := newDataset(name, train.path+" + "+test.path, series, labels, place)
	if err != nil {
		return nil, fmt.Errorf("%s + %s: %w", train.path, test.path, err)
	}
	d.NumTrain = len(train.series)
	if w := testOnlyClasses(d, place); w != "" {
		d.Warnings = append(d.Warnings, fmt.Sprintf("dataset %s: %s", name, w))
	}
	return d, nil
}

// testOnlyClasses describes the classes of d that no TRAIN row has (the
// rows before d.NumTrain), each by its label and first TEST row: `label "7"
// (b.tsv:3)`; "" when every TEST label is in TRAIN. Such a class is
// accepted (the protocol draws its folds from TRAIN and TEST together), but
// it likely says that the two files do not belong together.
func testOnlyClasses(d *Dataset, place rowPlacer) string {
	inTrain := make([]bool, d.NumClasses())
	for _, c := range d.Labels[:d.NumTrain] {
		inTrain[c] = true
	}
	var parts []string
	for i := d.NumTrain; i < len(d.Labels); i++ {
		if c := d.Labels[i]; !inTrain[c] {
			inTrain[c] = true // name each class once
			parts = append(parts, fmt.Sprintf("label %q (%s)", d.ClassNames[c], place.at(i)))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("%s of TEST absent from TRAIN: a class the model never sees in the TRAIN file; check that the two files belong together",
		strings.Join(parts, ", "))
}

// anyNaN reports whether any value of rows is NaN.
func anyNaN(rows [][]float64) bool {
	for _, row := range rows {
		for _, v := range row {
			if math.IsNaN(v) {
				return true
			}
		}
	}
	return false
}
