package data

import (
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/softshape-go/softshape/internal/testfs"
)

func TestReadTSFixture(t *testing.T) {
	series, labels, err := ReadTS(filepath.Join("testdata", "tiny.ts"))
	if err != nil {
		t.Fatal(err)
	}
	want := [][]float64{
		{0.5, 1.5, 2.5, nan}, // padded to the longest series
		{1, 2, 3, 4},
		{-1, nan, nan, 0}, // "?" and "NaN" are missing
	}
	if !sameSeries(series, want) {
		t.Errorf("series = %v, want %v", series, want)
	}
	if wantLabels := []string{"up", "down", "up"}; !reflect.DeepEqual(labels, wantLabels) {
		t.Errorf("labels = %q, want %q", labels, wantLabels)
	}
	// String labels sort lexically: down = 0, up = 1.
	d, err := NewDataset("tiny", "test", series, labels)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(d.Labels, []int{1, 0, 1}) || !reflect.DeepEqual(d.ClassNames, []string{"down", "up"}) {
		t.Errorf("labels %v names %q, want [1 0 1] [down up]", d.Labels, d.ClassNames)
	}
}

func TestReadTSErrors(t *testing.T) {
	const head = "@problemName X\n@univariate true\n@classLabel true a b\n@data\n"
	for _, tc := range []struct {
		name, content string
		want          []string
	}{
		{"no data tag", "@problemName X\n", []string{"x.ts", "no @data"}},
		{"empty", "", []string{"x.ts", "no @data"}},
		{"no rows", head, []string{"x.ts", "empty file"}},
		{"data before header", "1,2:a\n", []string{"x.ts:1", "before @data"}},
		{"multivariate rows", head + "1,2:3,4:a\n", []string{"x.ts:5", "2 ':'-separated dimensions", "multivariate"}},
		{"no label", head + "1,2,3\n", []string{"x.ts:5", "no ':'"}},
		{"undeclared label", head + "1,2:a\n1,2:c\n", []string{"x.ts:6", `"c"`, "@classLabel"}},
		{"bad value", head + "1,x2,3:a\n", []string{"x.ts:5", "value 2", `"x2"`}},
		{"empty values", head + ":a\n", []string{"x.ts:5", "no values"}},
		{"timestamps", "@timeStamps true\n@data\n", []string{"x.ts:1", "time-stamped"}},
		{"regression", "@targetLabel true\n@data\n", []string{"x.ts:1", "regression"}},
		{"no class labels", "@classLabel false\n@data\n", []string{"x.ts:1", "no class labels"}},
		{"dimensions", "@dimensions 3\n@data\n", []string{"x.ts:1", "multivariate", "@dimensions 3"}},
		{"equal length", "@equalLength true\n@seriesLength 3\n@classLabel true a\n@data\n1,2,3:a\n1,2:a\n", []string{"x.ts:6", "2 values, expected 3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := testfs.Write(t, t.TempDir(), "x.ts", tc.content)
			_, _, err := ReadTS(p)
			wantError(t, err, tc.want...)
		})
	}
	_, _, err := ReadTS(filepath.Join("testdata", "bad", "multivariate.ts"))
	wantError(t, err, "multivariate.ts:2", "multivariate", "@univariate false")
}

// tsText writes rows and labels in the .ts format, each row without its
// trailing NaN padding and with "?" for missing values.
func tsText(name string, series [][]float64, labels []string) string {
	distinct := map[string]bool{}
	for _, l := range labels {
		distinct[l] = true
	}
	var classes []string
	for l := range distinct {
		classes = append(classes, l)
	}
	sort.Strings(classes)
	var b strings.Builder
	fmt.Fprintf(&b, "# %s written by the test from the UCR .tsv files\n", name)
	fmt.Fprintf(&b, "@problemName %s\n@timeStamps false\n@missing true\n@univariate true\n@equalLength false\n@classLabel true %s\n@data\n",
		name, strings.Join(classes, " "))
	for i, row := range series {
		n := len(row)
		for n > 0 && math.IsNaN(row[n-1]) {
			n--
		}
		for j, v := range row[:n] {
			if j > 0 {
				b.WriteByte(',')
			}
			if math.IsNaN(v) {
				b.WriteByte('?')
			} else {
				b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
			}
		}
		fmt.Fprintf(&b, ":%s\n", labels[i])
	}
	return b.String()
}

// writeTSDataset writes d as root/<name>/<name>_TRAIN.ts and _TEST.ts,
// mapping each class name through rename.
func writeTSDataset(t *testing.T, root, name string, d *Dataset, rename func(string) string) {
	t.Helper()
	labels := make([]string, len(d.Labels))
	for i, y := range d.Labels {
		labels[i] = rename(d.ClassNames[y])
	}
	dir := filepath.Join(root, name)
	testfs.Write(t, dir, name+"_TRAIN.ts", tsText(name, d.Series[:d.NumTrain], labels[:d.NumTrain]))
	testfs.Write(t, dir, name+"_TEST.ts", tsText(name, d.Series[d.NumTrain:], labels[d.NumTrain:]))
}

// TestTSMatchesTSV writes .ts copies of shared .tsv datasets (fixed length,
// variable length, missing values) and checks that both load to the same
// arrays.
func TestTSMatchesTSV(t *testing.T) {
	for _, name := range []string{"GunPoint", "GesturePebbleZ1", "DodgerLoopDay"} {
		t.Run(name, func(t *testing.T) {
			want := loadShared(t, name)
			root := t.TempDir()
			writeTSDataset(t, root, name, want, func(s string) string { return s })
			got, err := Load(root, name)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(got.Source, ".ts") {
				t.Errorf("source %q, want the .ts files", got.Source)
			}
			if !sameSeries(got.Series, want.Series) {
				t.Error(".ts and .tsv series differ")
			}
			if !reflect.DeepEqual(got.Labels, want.Labels) || !reflect.DeepEqual(got.ClassNames, want.ClassNames) {
				t.Errorf(".ts labels/classes differ: %q vs %q", got.ClassNames, want.ClassNames)
			}
			if got.Length != want.Length || got.NumTrain != want.NumTrain {
				t.Errorf(".ts length %d, train %d; .tsv %d, %d", got.Length, got.NumTrain, want.Length, want.NumTrain)
			}
		})
	}
	t.Run("GunPoint string labels", func(t *testing.T) {
		want := loadShared(t, "GunPoint")
		root := t.TempDir()
		names := map[string]string{"1": "gun", "2": "point"}
		writeTSDataset(t, root, "GunPoint", want, func(s string) string { return names[s] })
		got, err := Load(root, "GunPoint")
		if err != nil {
			t.Fatal(err)
		}
		if !sameSeries(got.Series, want.Series) || !reflect.DeepEqual(got.Labels, want.Labels) {
			t.Error(".ts with string labels gives different arrays")
		}
		if !reflect.DeepEqual(got.ClassNames, []string{"gun", "point"}) {
			t.Errorf("class names %q, want [gun point]", got.ClassNames)
		}
	})
}
