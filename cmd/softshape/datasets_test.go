package main

import (
	"archive/zip"
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/softshape-go/softshape/data"
	"github.com/softshape-go/softshape/internal/shareddata"
)

// ucrRoot returns the shared UCR copy, skipping the test without it (see
// internal/shareddata).
func ucrRoot(t *testing.T) string {
	t.Helper()
	return shareddata.UCR(t)
}

// noDatasets is a data folder that holds no dataset (only a README).
const noDatasets = "testdata/bundled-only"

// bundledOnly returns a data folder without datasets: only those bundled in
// the data package (GunPoint, ItalyPowerDemand, ArrowHead) and the
// generated CBF load from it, as on a fresh clone. It is the same path on
// every call, so that commands that write it into a record or a script
// compare equal.
func bundledOnly(t *testing.T) string {
	t.Helper()
	entries, err := os.ReadDir(noDatasets)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() {
			t.Fatalf("%s holds %s; the tests need it without datasets", noDatasets, e.Name())
		}
	}
	return noDatasets
}

// runOK runs "softshape datasets args..." and returns its output.
func runOK(t *testing.T, args ...string) string {
	t.Helper()
	var out bytes.Buffer
	if err := runDatasets(args, &out); err != nil {
		t.Fatalf("datasets %q: %v\n%s", args, err, out.String())
	}
	return out.String()
}

// runErr runs "softshape datasets args..." and checks its error text.
func runErr(t *testing.T, want []string, args ...string) {
	t.Helper()
	var out bytes.Buffer
	err := runDatasets(args, &out)
	if err == nil {
		t.Fatalf("datasets %q: no error, want %q", args, want)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("datasets %q: error %q does not contain %q", args, err, w)
		}
	}
}

// contains fails unless out holds every part.
func contains(t *testing.T, out string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(out, p) {
			t.Errorf("output does not contain %q:\n%s", p, out)
		}
	}
}

func TestDatasetsList(t *testing.T) {
	root := ucrRoot(t)
	out := runOK(t, "-data", root)
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) < 129 {
		t.Fatalf("%d lines", len(lines))
	}
	header := lines[0]
	for _, col := range []string{"NAME", "TRAIN", "TEST", "CLASSES", "LENGTH", "M", "LOCAL"} {
		contains(t, header, col)
	}
	// Aligned: every numeric column ends where its header ends.
	ends := []int{}
	for _, col := range []string{"TRAIN", "TEST", "CLASSES", "LENGTH"} {
		ends = append(ends, strings.Index(header, col)+len(col))
	}
	present := 0
	for i, info := range data.Registry() {
		line := lines[i+1]
		if !strings.HasPrefix(line, info.Name+" ") {
			t.Fatalf("line %d = %q, want %s first", i+1, line, info.Name)
		}
		for _, e := range ends {
			if line[e-1] == ' ' || line[e] != ' ' {
				t.Errorf("line %q is not aligned with the header at column %d", line, e)
			}
		}
		if _, err := os.Stat(filepath.Join(root, info.Name)); err == nil {
			present++
			if !strings.HasSuffix(line, " yes") {
				t.Errorf("%s is present but not marked: %q", info.Name, line)
			}
		} else if strings.HasSuffix(line, "yes") {
			t.Errorf("%s is marked present: %q", info.Name, line)
		}
	}
	if present != 62 {
		t.Errorf("%d registry datasets in the shared copy, want 62", present)
	}
	contains(t, out, fmt.Sprintf("%d of 128 datasets present under %s", present, root))
	contains(t, lines[1+indexOf(t, "GunPoint")], "   50    150        2     150    32  yes")
	contains(t, lines[1+indexOf(t, "GesturePebbleZ1")], "vary")
	// "list" is accepted as an explicit sub-command.
	if again := runOK(t, "list", "-data", root); again != out {
		t.Error("datasets list differs from datasets")
	}
	empty := runOK(t, "-data", t.TempDir())
	contains(t, empty, "0 of 128 datasets present", "Bundled in softshape, used when not under -data: ArrowHead, GunPoint, ItalyPowerDemand")
}

// TestDatasetsListBundled: with an empty data folder the bundled datasets
// are marked "bundled" and no other is marked.
func TestDatasetsListBundled(t *testing.T) {
	out := runOK(t, "-data", bundledOnly(t))
	lines := strings.Split(out, "\n")
	marked := 0
	for i, info := range data.Registry() {
		bundled := strings.HasSuffix(lines[i+1], "  bundled")
		if bundled {
			marked++
		}
		if bundled != data.IsBundled(info.Name) {
			t.Errorf("%s: %q", info.Name, lines[i+1])
		}
	}
	if marked != 3 {
		t.Errorf("%d datasets marked bundled, want 3", marked)
	}
	contains(t, lines[1+indexOf(t, "GunPoint")], "   50    150        2     150    32  bundled")
}

// indexOf returns the registry position of name.
func indexOf(t *testing.T, name string) int {
	t.Helper()
	for i, info := range data.Registry() {
		if info.Name == name {
			return i
		}
	}
	t.Fatalf("%s not in the registry", name)
	return -1
}

func TestDatasetsHelp(t *testing.T) {
	out := runOK(t, "-h")
	contains(t, out, "Usage: softshape datasets [-data DIR]", "datasets info", "-data")
	out = runOK(t, "info", "-h")
	contains(t, out, "Usage: softshape datasets info [flags] NAME", "-seed", "-folds", "-offline", "-url", data.CBFName)
}

func TestDatasetsInfo(t *testing.T) {
	root := bundledOnly(t)
	out := runOK(t, "info", "-data", root, "GunPoint")
	contains(t, out,
		"GunPoint\n",
		"source    bundled:GunPoint/GunPoint_TRAIN.tsv + bundled:GunPoint/GunPoint_TEST.tsv",
		"rows      200 (TRAIN 50 + TEST 150)",
		"registry  TRAIN 50, TEST 150, 2 classes, length 150, shape length m 32",
		"length    150\n",
		"missing   none",
		"classes   2",
		"5 stratified folds (numbered from 1), seed 42",
		"       1    120     40     40           12          120",
		"       5    120     40     40           12          120",
		"batch     paper: 12, large: 120",
	)
	// The class table: ids, original labels and counts.
	contains(t, out, "       0  1        100", "       1  2        100")

	// Flags after the name, another k and seed.
	out = runOK(t, "info", "ItalyPowerDemand", "-data", root, "-folds", "3", "-seed", "7")
	contains(t, out, "3 stratified folds (numbered from 1), seed 7", "rows      1096 (TRAIN 67 + TEST 1029)")
	if strings.Contains(out, "\n       4 ") {
		t.Error("more than 3 folds printed")
	}
}

func TestDatasetsInfoVariableLength(t *testing.T) {
	out := runOK(t, "info", "-data", ucrRoot(t), "PickupGestureWiimoteZ")
	contains(t, out, "registry  TRAIN 50, TEST 50, 10 classes, length variable",
		"observed, padded to 361", "padding after shorter series", "classes   10")
	out = runOK(t, "info", "-data", ucrRoot(t), "DodgerLoopDay")
	contains(t, out, "inside series")
	out = runOK(t, "info", "-data", ucrRoot(t), "MelbournePedestrian")
	contains(t, out, "rows      3650 (TRAIN 1200 + TEST 2450)", "TRAIN 1194, TEST 2439", "files hold 1200/2450")
}

func TestDatasetsInfoGenerated(t *testing.T) {
	out := runOK(t, "info", "-offline", "-data", t.TempDir(), data.CBFName)
	contains(t, out, data.CBFName, "generated: CBF", "rows      300", "cylinder", "bell", "funnel",
		"       1    180     60     60           16          180")
}

func TestDatasetsErrors(t *testing.T) {
	root := bundledOnly(t)
	runErr(t, []string{`unknown dataset "GunPiont"`, "did you mean GunPoint"}, "info", "-offline", "-data", root, "GunPiont")
	empty := t.TempDir()
	runErr(t, []string{"dataset Coffee not found", filepath.Join(empty, "Coffee", "Coffee_TRAIN.tsv"), "-data", "$SOFTSHAPE_DATA"},
		"info", "-offline", "-data", empty, "Coffee")
	runErr(t, []string{"exactly one dataset name, got 0"}, "info", "-data", root)
	runErr(t, []string{"exactly one dataset name, got 2"}, "info", "-data", root, "GunPoint", "Trace")
	runErr(t, []string{"flag provided but not defined: -bogus"}, "info", "-bogus", "GunPoint")
	runErr(t, []string{`invalid value "x"`}, "info", "-folds", "x", "GunPoint")
	runErr(t, []string{`unexpected argument "GunPoint"`, "datasets info GunPoint"}, "-data", root, "GunPoint")
}

// TestDatasetsInfoDownload fetches a dataset from a local archive.
func TestDatasetsInfoDownload(t *testing.T) {
	var zipped bytes.Buffer
	zw := zip.NewWriter(&zipped)
	for _, split := range []string{"TRAIN", "TEST"} {
		w, err := zw.Create("Coffee/Coffee_" + split + ".tsv")
		if err != nil {
			t.Fatal(err)
		}
		for i := range 28 {
			fmt.Fprintf(w, "%d", i%2)
			for j := range 286 {
				fmt.Fprintf(w, "\t%d", (i*j)%7)
			}
			fmt.Fprintln(w)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/Coffee.zip" {
			http.NotFound(w, r)
			return
		}
		w.Write(zipped.Bytes())
	}))
	defer srv.Close()
	root := t.TempDir()
	out := runOK(t, "info", "-data", root, "-url", srv.URL, "Coffee")
	contains(t, out, "downloading "+srv.URL+"/Coffee.zip", "rows      56 (TRAIN 28 + TEST 28)", "length    286")
	if _, err := os.Stat(filepath.Join(root, "Coffee", "Coffee_TEST.tsv")); err != nil {
		t.Error(err)
	}
	// A failed download names the archive and where the files belong.
	runErr(t, []string{"dataset Beef not found", "downloading it failed", "404"}, "info", "-data", root, "-url", srv.URL, "Beef")
}
