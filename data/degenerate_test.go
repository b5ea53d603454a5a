package data

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/softshape-go/softshape/internal/testfs"
)

// The tests of this file cover data that parses but cannot train, or trains
// on something other than what the file says (issue 34, item 3): a
// byte-order mark, labels spelt two ways, constant series, values beyond the
// float32 range.

// writeDataset writes root/name/name_TRAIN.tsv and _TEST.tsv and returns
// root and the two paths.
func writeDataset(t *testing.T, name, train, test string) (root, trainPath, testPath string) {
	t.Helper()
	root = t.TempDir()
	dir := filepath.Join(root, name)
	return root, testfs.Write(t, dir, name+"_TRAIN.tsv", train), testfs.Write(t, dir, name+"_TEST.tsv", test)
}

// wantNoWarnings fails when d has warnings.
func wantNoWarnings(t *testing.T, d *Dataset) {
	t.Helper()
	if len(d.Warnings) > 0 {
		t.Errorf("unexpected warnings %q", d.Warnings)
	}
}

// TestBOMAtStartIgnored: a UTF-8 byte-order mark at the start of a file is
// dropped, so the first label is "1", not a class "\ufeff1" of its own; line
// numbers are those of the file.
func TestBOMAtStartIgnored(t *testing.T) {
	root, _, testPath := writeDataset(t, "Bom", "\ufeff1\t1\t2\n2\t3\t5\n", "\ufeff1\t1\t3\n2\tx\t2\n")
	_, err := Load(root, "Bom")
	wantError(t, err, testPath+":2:", "column 2", `"x"`)

	root, _, _ = writeDataset(t, "Bom", "\ufeff1\t1\t2\n2\t3\t5\n", "\ufeff1\t1\t3\n2\t4\t2\n")
	d, err := Load(root, "Bom")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(d.ClassNames, []string{"1", "2"}) || !reflect.DeepEqual(d.Labels, []int{0, 1, 0, 1}) {
		t.Errorf("classes %q labels %v, want [1 2] [0 1 0 1]", d.ClassNames, d.Labels)
	}
	wantNoWarnings(t, d)

	p := testfs.Write(t, t.TempDir(), "B_TRAIN.ts", "\ufeff@problemName B\n@classLabel true 1 2\n@data\n1,2,3:1\n3,2,1:2\n")
	series, labels, err := ReadTS(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(series) != 2 || !reflect.DeepEqual(labels, []string{"1", "2"}) {
		t.Errorf("%d series, labels %q", len(series), labels)
	}
}

// TestBOMElsewhereNamed: a byte-order mark anywhere but at the start of the
// file (a file pasted after another, say) is an error that names it, with
// the file, line and column.
func TestBOMElsewhereNamed(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, content string
		read          func(string) ([][]float64, []string, error)
		want          []string
	}{
		{"label.tsv", "1\t1\t2\n\ufeff2\t3\t4\n", ReadTSV, []string{"label.tsv:2: column 1", `class label "\ufeff2"`, "byte-order mark (U+FEFF)", "first character of a file"}},
		{"second.tsv", "\ufeff\ufeff1\t1\t2\n", ReadTSV, []string{"second.tsv:1: column 1", "byte-order mark"}},
		{"value.tsv", "1\t1\t2\n2\t3\t\ufeff4\n", ReadTSV, []string{"value.tsv:2: column 3", `value "\ufeff4"`, "byte-order mark (U+FEFF)"}},
		{"label.ts", "@data\n1,2:1\n3,4:\ufeff2\n", ReadTS, []string{"label.ts:3:", `class label "\ufeff2"`, "byte-order mark"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := tc.read(testfs.Write(t, dir, tc.name, tc.content))
			wantError(t, err, tc.want...)
		})
	}
}

// TestLabelSpellingsMerged: when every label of both files is a number,
// labels are compared as numbers, so "1" in TRAIN and "1.0" in TEST are one
// class, named by the first spelling, and a warning says which spellings
// were merged and where each first occurs. Labels that are not all numbers
// are compared as text.
func TestLabelSpellingsMerged(t *testing.T) {
	root, trainPath, testPath := writeDataset(t, "Mixed", "1\t1\t2\n2\t3\t5\n1\t0\t2\n", "2.0\t1\t3\n1.0\t4\t2\n+2\t1\t0\n")
	d, err := Load(root, "Mixed")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(d.ClassNames, []string{"1", "2"}) || !reflect.DeepEqual(d.Labels, []int{0, 1, 0, 1, 0, 1}) {
		t.Errorf("classes %q labels %v, want [1 2] [0 1 0 1 0 1]", d.ClassNames, d.Labels)
	}
	want := []string{fmt.Sprintf(`dataset Mixed: labels compared as numbers, so differently spelt labels are one class: "1" (%[1]s:1) = "1.0" (%[2]s:2); "2" (%[1]s:2) = "2.0" (%[2]s:1) = "+2" (%[2]s:3)`, trainPath, testPath)}
	if !reflect.DeepEqual(d.Warnings, want) {
		t.Errorf("warnings\n%q\nwant\n%q", d.Warnings, want)
	}

	// One label is not a number: text comparison, three classes; "1.0",
	// then, is a class of TEST only, which the warning names.
	root, _, testPath = writeDataset(t, "Text", "1\t1\t2\na\t3\t5\n", "1.0\t1\t3\na\t4\t2\n")
	d, err = Load(root, "Text")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(d.ClassNames, []string{"1", "1.0", "a"}) {
		t.Errorf("classes %q, want [1 1.0 a]", d.ClassNames)
	}
	if want := fmt.Sprintf(`dataset Text: label "1.0" (%s:1) of TEST absent from TRAIN`, testPath); len(d.Warnings) != 1 || !strings.HasPrefix(d.Warnings[0], want) {
		t.Errorf("warnings %q, want one starting %q", d.Warnings, want)
	}

	// NewDataset names rows by index.
	d, err = NewDataset("hand", "test", [][]float64{{1, 2}, {2, 1}, {1, 3}}, []string{"1", "2", "01"})
	if err != nil {
		t.Fatal(err)
	}
	if want := `dataset hand: labels compared as numbers, so differently spelt labels are one class: "1" (row 0) = "01" (row 2)`; !reflect.DeepEqual(d.Warnings, []string{want}) {
		t.Errorf("warnings %q, want [%q]", d.Warnings, want)
	}
}

// TestConstantSeries: a series whose values are all equal becomes all
// zeros under per-series z-normalisation. A dataset made only of such
// series (every dataset of length 1) is an error; some of them give a
// warning naming the files and lines; Prepare still turns them into zeros.
func TestConstantSeries(t *testing.T) {
	root, trainPath, testPath := writeDataset(t, "Len1", "1\t1\n2\t3\n", "1\t1\n2\t4\n")
	_, err := Load(root, "Len1")
	wantError(t, err, trainPath+" + "+testPath, "dataset Len1: every series has a single value", "all zeros", "nothing is left to learn")

	root, trainPath, testPath = writeDataset(t, "Flat", "1\t1\t1\n2\t3\t3\n", "1\t-2\t-2\n2\t4\t4\n")
	_, err = Load(root, "Flat")
	wantError(t, err, trainPath+" + "+testPath, "dataset Flat: every series is constant (all its values are equal)", "nothing is left to learn")

	_, err = NewDataset("hand", "test", [][]float64{{5}, {6}}, []string{"a", "b"})
	wantError(t, err, "dataset hand: every series has a single value")

	// Some constant rows: TRAIN line 3 (line 2 is blank) and TEST lines 1
	// and 3, rows 1, 3 and 5. The row with a missing value is not counted:
	// imputation fills it from the other rows.
	root, trainPath, testPath = writeDataset(t, "Some",
		"1\t1\t2\t3\n\n2\t7\t7\t7\n1\t2\tNaN\t2\n",
		"1\t0\t0\t0\n2\t3\t2\t1\n2\t-1\t-1\t-1\n1\t1\t5\t1\n")
	d, err := Load(root, "Some")
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("dataset Some: 3 of 7 series are constant (%s line 3; %s lines 1, 3): z-normalised on its own, as for training, each becomes all zeros and carries no information", trainPath, testPath)
	if !reflect.DeepEqual(d.Warnings, []string{want}) {
		t.Errorf("warnings\n%q\nwant\n%q", d.Warnings, []string{want})
	}
	fd, err := Prepare(d, Split{Train: []int{0, 1, 2, 3, 4, 5, 6}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []int{1, 3, 5} {
		closeTo(t, fmt.Sprintf("row %d", r), fd.TrainX[r], []float64{0, 0, 0})
	}

	// One constant row, and more than maxPlaces of them.
	d, err = NewDataset("hand", "test", [][]float64{{1, 2}, {3, 3}}, []string{"a", "b"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "dataset hand: 1 of 2 series is constant (row 1): z-normalised on its own, as for training, each becomes all zeros and carries no information"; !reflect.DeepEqual(d.Warnings, []string{want}) {
		t.Errorf("warnings %q, want [%q]", d.Warnings, want)
	}
	series := [][]float64{{1, 2}}
	labels := []string{"a"}
	for i := range 7 {
		series = append(series, []float64{float64(i), float64(i)})
		labels = append(labels, "b")
	}
	d, err = NewDataset("hand", "test", series, labels)
	if err != nil {
		t.Fatal(err)
	}
	if want := "dataset hand: 7 of 8 series are constant (rows 1, 2, 3, 4, 5, …)"; len(d.Warnings) != 1 || !strings.HasPrefix(d.Warnings[0], want) {
		t.Errorf("warnings %q, want [%q...]", d.Warnings, want)
	}
}

// TestHugeValuesRejected: a value beyond the float32 range (|x| > 3.4e38)
// would overflow the normalisation and end training in a NaN loss: it is an
// error naming the file, line, column and value, in .tsv and .ts files and
// in NewDataset. The float32 limit itself is accepted.
func TestHugeValuesRejected(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, content string
		read          func(string) ([][]float64, []string, error)
		want          []string
	}{
		{"huge.tsv", "1\t1\t2\n2\t1e300\t4\n", ReadTSV, []string{"huge.tsv:2: column 2", `value "1e300"`, "beyond ±3.4e+38", "float32", "rescale"}},
		{"negative.tsv", "1\t1\t-3.5e38\n", ReadTSV, []string{"negative.tsv:1: column 3", `value "-3.5e38"`, "beyond ±3.4e+38"}},
		{"float64.tsv", "1\t1\t1e400\n", ReadTSV, []string{"float64.tsv:1: column 3", `value "1e400"`, "beyond ±3.4e+38"}},
		{"huge.ts", "@data\n1,2:1\n3,-1e300:2\n", ReadTS, []string{"huge.ts:3:", "value 2", `"-1e300"`, "beyond ±3.4e+38"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := tc.read(testfs.Write(t, dir, tc.name, tc.content))
			wantError(t, err, tc.want...)
		})
	}
	_, err := NewDataset("hand", "test", [][]float64{{1, 2}, {3, 1e300}}, []string{"a", "b"})
	wantError(t, err, "dataset hand: row 1, time step 1", "value 1e+300", "beyond ±3.4e+38")

	series, _, err := ReadTSV(testfs.Write(t, dir, "limit.tsv", "1\t3.4e38\t-3.4e38\n"))
	if err != nil || series[0][0] != 3.4e38 {
		t.Errorf("float32-range values: %v, %v", series, err)
	}
}

// TestLoadOrDownloadLogsWarnings: LoadOrDownload writes each warning of the
// loaded dataset to its Log, as a "warning: " line.
func TestLoadOrDownloadLogsWarnings(t *testing.T) {
	root, trainPath, _ := writeDataset(t, "Some", "1\t1\t2\n2\t7\t7\n", "1\t0\t1\n2\t3\t2\n")
	var log bytes.Buffer
	d, err := LoadOrDownload(root, "Some", LoadOptions{Offline: true, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("warning: dataset Some: 1 of 4 series is constant (%s line 2): z-normalised on its own, as for training, each becomes all zeros and carries no information\n", trainPath)
	if log.String() != want || len(d.Warnings) != 1 {
		t.Errorf("log %q, want %q", log.String(), want)
	}
}

// TestClassOrderUnchanged pins the class ids of real datasets: the names in
// id order, the count of each id and a hash of the id sequence, recorded
// before the loader learnt to strip byte-order marks and to warn about
// merged label spellings and constant series, so that committed results
// keep their meaning. The bundled datasets always run; the others need the
// shared UCR copy.
func TestClassOrderUnchanged(t *testing.T) {
	for _, tc := range []struct {
		name    string
		classes []string
		counts  []int
		hash    uint64
	}{
		{"ArrowHead", []string{"0", "1", "2"}, []int{81, 65, 65}, 0xaca60f5a3b2935c2},
		{"GunPoint", []string{"1", "2"}, []int{100, 100}, 0xc735bdc1abd90b35},
		{"ItalyPowerDemand", []string{"1", "2"}, []int{547, 549}, 0x45d84d4199998134},
		{"Beef", []string{"1", "2", "3", "4", "5"}, []int{12, 12, 12, 12, 12}, 0x2a9da08697c317f5},
		{"DistalPhalanxTW", []string{"3", "4", "5", "6", "7", "8"}, []int{47, 47, 121, 43, 26, 255}, 0x10bc6e4713f25de4},
		{"MelbournePedestrian", []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10"}, []int{365, 365, 365, 365, 365, 365, 365, 365, 365, 365}, 0x3d78ce13f9605f3c},
		{"WordSynonyms", []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15", "16", "17", "18", "19", "20", "21", "22", "23", "24", "25"},
			[]int{20, 200, 19, 115, 18, 72, 18, 56, 16, 46, 16, 44, 16, 39, 16, 30, 14, 27, 14, 26, 14, 23, 14, 20, 12}, 0xfdf6c0fa166992ed},
		{"AllGestureWiimoteY", []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10"}, []int{100, 100, 100, 100, 100, 100, 100, 100, 100, 100}, 0x26fa666677b0d2b5},
		{"Rock", []string{"1", "2", "3", "4"}, []int{26, 14, 11, 19}, 0x2a7cbfc54df5e204},
		{"Lightning7", []string{"0", "1", "2", "3", "4", "5", "6"}, []int{18, 17, 14, 19, 15, 38, 22}, 0x1bb5eee09a05333f},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := loadShared(t, tc.name)
			h := fnv.New64a()
			for _, y := range d.Labels {
				fmt.Fprintf(h, "%d,", y)
			}
			if !reflect.DeepEqual(d.ClassNames, tc.classes) || !reflect.DeepEqual(d.ClassCounts(), tc.counts) || h.Sum64() != tc.hash {
				t.Errorf("classes %q counts %v hash %#x, want %q %v %#x", d.ClassNames, d.ClassCounts(), h.Sum64(), tc.classes, tc.counts, tc.hash)
			}
		})
	}
}
