package data

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/softshape-go/softshape/internal/testfs"
)

// TestBundledDatasets: the three bundled datasets load, match the registry
// and, where the shared UCR copy is present, equal its files exactly.
func TestBundledDatasets(t *testing.T) {
	if got := BundledNames(); !reflect.DeepEqual(got, []string{"ArrowHead", "GunPoint", "ItalyPowerDemand"}) {
		t.Fatalf("BundledNames() = %v", got)
	}
	entries, err := fs.ReadDir(bundledFS, "bundled")
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(bundledNames) {
		t.Errorf("bundled/ holds %d entries, want only the %d bundled datasets", len(entries), len(bundledNames))
	}
	for _, name := range BundledNames() {
		d, err := LoadBundled(name)
		if err != nil {
			t.Fatalf("LoadBundled(%s): %v", name, err)
		}
		info, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := info.Verify(d); err != nil {
			t.Errorf("bundled %s: %v", name, err)
		}
		if !strings.HasPrefix(d.Source, BundledSource) {
			t.Errorf("bundled %s: source %q", name, d.Source)
		}
	}
	if IsBundled("Coffee") {
		t.Error("Coffee reported bundled")
	}
	if _, err := LoadBundled("Coffee"); err == nil || !strings.Contains(err.Error(), "not bundled") {
		t.Errorf("LoadBundled(Coffee): %v", err)
	}
}

// TestBundledEqualsShared: the bundled files are the archive's, unchanged.
func TestBundledEqualsShared(t *testing.T) {
	root := ucrRoot(t)
	for _, name := range BundledNames() {
		want, err := Load(root, name)
		if err != nil {
			t.Fatal(err)
		}
		got, err := LoadBundled(name)
		if err != nil {
			t.Fatal(err)
		}
		if !sameSeries(got.Series, want.Series) || !reflect.DeepEqual(got.Labels, want.Labels) || got.NumTrain != want.NumTrain {
			t.Errorf("bundled %s differs from %s", name, want.Source)
		}
	}
}

// TestLoadOrDownloadBundledFallback: the data folder comes first, then the
// bundled copy, and the bundled copy is used offline without a download.
func TestLoadOrDownloadBundledFallback(t *testing.T) {
	empty := t.TempDir()
	d, err := LoadOrDownload(empty, "GunPoint", LoadOptions{Offline: true, BaseURL: "http://127.0.0.1:1/never"})
	if err != nil {
		t.Fatalf("GunPoint from an empty data folder: %v", err)
	}
	if !strings.HasPrefix(d.Source, BundledSource) {
		t.Errorf("source %q, want the bundled copy", d.Source)
	}

	// A copy under the data folder takes precedence.
	root := t.TempDir()
	for _, split := range []string{"TRAIN", "TEST"} {
		b, err := fs.ReadFile(bundledFS, "bundled/ArrowHead/ArrowHead_"+split+".tsv")
		if err != nil {
			t.Fatal(err)
		}
		testfs.Write(t, filepath.Join(root, "ArrowHead"), "ArrowHead_"+split+".tsv", string(b))
	}
	d, err = LoadOrDownload(root, "ArrowHead", LoadOptions{Offline: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(d.Source, root) {
		t.Errorf("source %q, want the copy under %s", d.Source, root)
	}

	// Half a copy under the data folder is an error, not a silent switch.
	if err := os.Remove(filepath.Join(root, "ArrowHead", "ArrowHead_TEST.tsv")); err != nil {
		t.Fatal(err)
	}
	_, err = LoadOrDownload(root, "ArrowHead", LoadOptions{Offline: true})
	wantError(t, err, "missing TEST file", "ArrowHead_TEST.tsv")

	// A dataset that is not bundled stays missing offline.
	_, err = LoadOrDownload(empty, "Coffee", LoadOptions{Offline: true})
	wantError(t, err, "dataset Coffee not found", "offline")
	if !errors.Is(err, fs.ErrNotExist) {
		t.Error("not fs.ErrNotExist")
	}
}

// TestAllNaNSeriesRejected: a series with no finite value (all NaN, or a
// whole class of them) is an error naming the file and the line, in .tsv
// and .ts files and in NewDataset, since imputation has nothing to work
// from.
func TestAllNaNSeriesRejected(t *testing.T) {
	dir := t.TempDir()
	p := testfs.Write(t, dir, "X_TRAIN.tsv", "1\t1\t2\t3\n2\tNaN\tNaN\tNaN\n1\t2\t3\t4\n")
	_, _, err := ReadTSV(p)
	wantError(t, err, p+":2:", "no finite value")

	// Every series of class 2 missing.
	p = testfs.Write(t, dir, "Y_TRAIN.tsv", "1\t1\t2\n1\t2\t3\n2\t?\tNA\n2\tnan\tNaN\n")
	_, _, err = ReadTSV(p)
	wantError(t, err, p+":3:", "no finite value")

	p = testfs.Write(t, dir, "Z_TRAIN.ts", "@problemName Z\n@missing true\n@classLabel true 1 2\n@data\n1,2,3:1\n?,?,?:2\n")
	_, _, err = ReadTS(p)
	wantError(t, err, p+":6:", "no finite value")

	_, err = NewDataset("hand", "test", [][]float64{{1, 2}, {nan, nan}}, []string{"a", "b"})
	wantError(t, err, "dataset hand: row 1", "no finite value")

	// Through Load: the file and line of the TEST file.
	root := t.TempDir()
	testfs.Write(t, filepath.Join(root, "Q"), "Q_TRAIN.tsv", "1\t1\t2\n2\t3\t4\n")
	testFile := testfs.Write(t, filepath.Join(root, "Q"), "Q_TEST.tsv", "1\t1\t2\n\n2\tNaN\tNaN\n")
	_, err = Load(root, "Q")
	wantError(t, err, testFile+":3:", "no finite value")
}
