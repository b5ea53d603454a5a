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

// TestLoadAllShared loads every dataset of the shared UCR copy and checks
// it against the registry.
func TestLoadAllShared(t *testing.T) {
	for _, name := range sharedNames(t) {
		t.Run(name, func(t *testing.T) {
			d := loadShared(t, name)
			info, err := Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			if err := info.Verify(d); err != nil {
				t.Fatal(err)
			}
			fileTrain, fileTest := info.FileSizes()
			if d.NumTrain != fileTrain || d.NumTest() != fileTest {
				t.Errorf("%d/%d rows, want %d/%d", d.NumTrain, d.NumTest(), fileTrain, fileTest)
			}
			if d.NumClasses() != info.Classes {
				t.Errorf("%d classes, registry %d", d.NumClasses(), info.Classes)
			}
			if len(d.Series) != len(d.Labels) {
				t.Fatalf("%d rows, %d labels", len(d.Series), len(d.Labels))
			}
			for i, row := range d.Series {
				if len(row) != d.Length {
					t.Fatalf("row %d has %d values, Length %d", i, len(row), d.Length)
				}
			}
			for c, n := range d.ClassCounts() {
				if n == 0 {
					t.Errorf("class %d (%s) is empty", c, d.ClassNames[c])
				}
			}
			if lo, hi := d.LengthRange(); info.VariableLength && lo >= hi {
				t.Errorf("variable-length dataset with lengths %d..%d", lo, hi)
			}
			// Only MelbournePedestrian has constant series; no dataset
			// spells a label two ways.
			if name != "MelbournePedestrian" {
				wantNoWarnings(t, d)
			} else if want := "dataset MelbournePedestrian: 17 of 3650 series are constant (" + filepath.Join(ucrRoot(t), name, name+"_TRAIN.tsv") +
				" lines 894, 933, 947, 949, 958, …)"; len(d.Warnings) != 1 || !strings.HasPrefix(d.Warnings[0], want) {
				t.Errorf("warnings %q, want [%q...]", d.Warnings, want)
			}
		})
	}
}

// TestMelbournePedestrian checks the documented size discrepancy: all file
// rows are loaded, the registry keeps the paper's numbers and Verify accepts
// exactly the two documented pairs.
func TestMelbournePedestrian(t *testing.T) {
	d := loadShared(t, "MelbournePedestrian")
	if d.NumTrain != 1200 || d.NumTest() != 2450 {
		t.Fatalf("loaded %d/%d rows, want all 1200/2450 of the files", d.NumTrain, d.NumTest())
	}
	info, err := Lookup("MelbournePedestrian")
	if err != nil {
		t.Fatal(err)
	}
	if info.Train != 1194 || info.Test != 2439 {
		t.Errorf("registry %d/%d, want the paper's 1194/2439", info.Train, info.Test)
	}
	if err := info.Verify(d); err != nil {
		t.Errorf("file sizes rejected: %v", err)
	}
	// The paper's sizes are accepted too.
	paper := *d
	paper.Series, paper.Labels = d.Series[:1194+2439], d.Labels[:1194+2439]
	paper.NumTrain = 1194
	if err := info.Verify(&paper); err != nil {
		t.Errorf("paper sizes rejected: %v", err)
	}
	// Anything else is not.
	off := *d
	off.Series, off.Labels = d.Series[1:], d.Labels[1:]
	off.NumTrain = 1199
	wantError(t, info.Verify(&off), "MelbournePedestrian", "1199 TRAIN / 2450 TEST", "1194/2439", "1200/2450")
	// No other dataset gets an exception.
	gp, err := Lookup("GunPoint")
	if err != nil {
		t.Fatal(err)
	}
	if tr, te := gp.FileSizes(); tr != 50 || te != 150 {
		t.Errorf("GunPoint file sizes %d/%d, want 50/150", tr, te)
	}
}

func TestLoadTinyFixture(t *testing.T) {
	d, err := Load("testdata", "Tiny")
	if err != nil {
		t.Fatal(err)
	}
	if d.Name != "Tiny" || d.Length != 4 || d.NumTrain != 4 || d.NumTest() != 2 {
		t.Errorf("name %s length %d train %d test %d", d.Name, d.Length, d.NumTrain, d.NumTest())
	}
	if want := []int{0, 1, 0, 1, 1, 0}; !reflect.DeepEqual(d.Labels, want) {
		t.Errorf("labels %v, want %v", d.Labels, want)
	}
	if !d.HasMissing() {
		t.Error("HasMissing false")
	}
	missing, padding := d.MissingCount()
	if missing != 1 || padding != 4 {
		t.Errorf("missing %d padding %d, want 1 and 4", missing, padding)
	}
	if lo, hi := d.LengthRange(); lo != 2 || hi != 4 {
		t.Errorf("length range %d..%d, want 2..4", lo, hi)
	}
	if n := d.ObservedLength(2); n != 2 {
		t.Errorf("observed length of row 2 = %d, want 2", n)
	}
	if !reflect.DeepEqual(d.ClassCounts(), []int{3, 3}) {
		t.Errorf("class counts %v", d.ClassCounts())
	}
	if !strings.Contains(d.Source, "Tiny_TRAIN.tsv") || !strings.Contains(d.Source, "Tiny_TEST.tsv") {
		t.Errorf("source %q", d.Source)
	}
}

func TestLoadErrors(t *testing.T) {
	t.Run("missing TEST file", func(t *testing.T) {
		_, err := Load("testdata", "NoTest")
		wantError(t, err, "missing TEST file", filepath.Join("testdata", "NoTest", "NoTest_TEST.tsv"), "NoTest_TRAIN.tsv")
		if !errors.Is(err, fs.ErrNotExist) {
			t.Error("not fs.ErrNotExist")
		}
	})
	t.Run("unknown name", func(t *testing.T) {
		_, err := Load(t.TempDir(), "GunPiont")
		wantError(t, err, `unknown dataset "GunPiont"`, "did you mean GunPoint")
	})
	t.Run("registry name without files", func(t *testing.T) {
		root := t.TempDir()
		_, err := Load(root, "Coffee")
		wantError(t, err, "dataset Coffee not found", filepath.Join(root, "Coffee", "Coffee_TRAIN.tsv"),
			filepath.Join(root, "Coffee", "Coffee_TEST.tsv"), "-data", "$SOFTSHAPE_DATA")
		var me *MissingError
		if !errors.As(err, &me) || len(me.Missing) != 2 || me.Unknown {
			t.Errorf("error %#v, want a *MissingError with two missing files", err)
		}
	})
	t.Run("single class", func(t *testing.T) {
		_, err := Load("testdata", "OneClass")
		wantError(t, err, "OneClass_TRAIN.tsv", "OneClass_TEST.tsv", `all 3 rows have the label "a"`, "at least 2 classes")
	})
	t.Run("ragged", func(t *testing.T) {
		root := t.TempDir()
		raw, err := os.ReadFile(filepath.Join("testdata", "bad", "ragged.tsv"))
		if err != nil {
			t.Fatal(err)
		}
		testfs.Write(t, filepath.Join(root, "R"), "R_TRAIN.tsv", string(raw))
		testfs.Write(t, filepath.Join(root, "R"), "R_TEST.tsv", "1\t1\t2\t3\n")
		_, err = Load(root, "R")
		wantError(t, err, "load R", "R_TRAIN.tsv:3", "3 columns, expected 4")
	})
	t.Run("non-numeric in TEST", func(t *testing.T) {
		root := t.TempDir()
		testfs.Write(t, filepath.Join(root, "N"), "N_TRAIN.tsv", "1\t1\t2\n2\t3\t4\n")
		testfs.Write(t, filepath.Join(root, "N"), "N_TEST.tsv", "1\t1\t2\n2\t3\tx\n")
		_, err := Load(root, "N")
		wantError(t, err, "N_TEST.tsv:2", "column 3", `"x"`)
	})
	t.Run("different widths", func(t *testing.T) {
		root := t.TempDir()
		testfs.Write(t, filepath.Join(root, "W"), "W_TRAIN.tsv", "1\t1\t2\n2\t3\t4\n")
		testfs.Write(t, filepath.Join(root, "W"), "W_TEST.tsv", "1\t1\t2\t5\n")
		_, err := Load(root, "W")
		wantError(t, err, "W_TRAIN.tsv have 2 values", "W_TEST.tsv have 3", "NaN-padded")
	})
	for _, bad := range []string{"", "..", "a/b", " GunPoint"} {
		_, err := Load("testdata", bad)
		wantError(t, err, "invalid dataset name")
	}
}

// TestLoadPadsVariableLength merges a TRAIN and a TEST file of different
// widths when the data is NaN-padded.
func TestLoadPadsVariableLength(t *testing.T) {
	root := t.TempDir()
	testfs.Write(t, filepath.Join(root, "V"), "V_TRAIN.tsv", "1\t1\t2\tNaN\n2\t3\t4\t5\n")
	testfs.Write(t, filepath.Join(root, "V"), "V_TEST.tsv", "1\t1\n2\t6\n")
	d, err := Load(root, "V")
	if err != nil {
		t.Fatal(err)
	}
	want := [][]float64{{1, 2, nan}, {3, 4, 5}, {1, nan, nan}, {6, nan, nan}}
	if !sameSeries(d.Series, want) || d.Length != 3 {
		t.Errorf("series %v length %d, want %v", d.Series, d.Length, want)
	}
}

func TestLabelRemap(t *testing.T) {
	for _, tc := range []struct {
		labels []string
		ids    []int
		names  []string
	}{
		{[]string{"10", "-1", "2", "1", "2"}, []int{3, 0, 2, 1, 2}, []string{"-1", "1", "2", "10"}},
		{[]string{"1", "1.0", "2"}, []int{0, 0, 1}, []string{"1", "2"}},
		{[]string{"b", "a", "10", "c"}, []int{2, 1, 0, 3}, []string{"10", "a", "b", "c"}},
	} {
		ids, names := remapLabels(tc.labels)
		if !reflect.DeepEqual(ids, tc.ids) || !reflect.DeepEqual(names, tc.names) {
			t.Errorf("remap %q = %v %q, want %v %q", tc.labels, ids, names, tc.ids, tc.names)
		}
	}
}

func TestNewDatasetErrors(t *testing.T) {
	_, err := NewDataset("x", "test", nil, nil)
	wantError(t, err, "dataset x", "no rows")
	_, err = NewDataset("x", "test", [][]float64{{1}}, []string{"a", "b"})
	wantError(t, err, "1 rows but 2 labels")
	_, err = NewDataset("x", "test", [][]float64{{1}, {}}, []string{"a", "b"})
	wantError(t, err, "row 1 has no values")
	_, err = NewDataset("x", "test", [][]float64{{1}, {2}}, []string{"a", ""})
	wantError(t, err, "row 1 has an empty label")
}

func TestDefaultRoot(t *testing.T) {
	t.Setenv(DataEnv, "/some/where")
	if got := DefaultRoot(); got != "/some/where" {
		t.Errorf("DefaultRoot() = %q with $%s set", got, DataEnv)
	}
	t.Setenv(DataEnv, "")
	if got := DefaultRoot(); !strings.HasSuffix(got, filepath.Join("softshape", "ucr")) {
		t.Errorf("DefaultRoot() = %q, want .../softshape/ucr", got)
	}
}

func TestPresent(t *testing.T) {
	if !Present("testdata", "Tiny") {
		t.Error("Tiny not present")
	}
	if Present("testdata", "NoTest") || Present("testdata", "Absent") {
		t.Error("incomplete or absent dataset reported present")
	}
}
