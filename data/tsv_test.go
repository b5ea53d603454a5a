package data

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/softshape-go/softshape/internal/testfs"
)

func TestReadTSVFixture(t *testing.T) {
	series, labels, err := ReadTSV(filepath.Join("testdata", "Tiny", "Tiny_TRAIN.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	want := [][]float64{
		{0.5, 1.5, 2.5, nan},
		{1, 2, 3, 4},
		{-1, 0, nan, nan},
		{4, 3, 2, 1},
	}
	if !sameSeries(series, want) {
		t.Errorf("series = %v, want %v", series, want)
	}
	if wantLabels := []string{"1", "2", "1", "2"}; !reflect.DeepEqual(labels, wantLabels) {
		t.Errorf("labels = %q, want %q", labels, wantLabels)
	}
}

func TestReadTSVTolerates(t *testing.T) {
	dir := t.TempDir()
	// CRLF line ends, blank lines, no final newline, "?" for missing.
	p := testfs.Write(t, dir, "ok.tsv", "1\t1\t2\r\n\r\n2\t?\t4.5e1\n\n1\tnan\t-0")
	series, labels, err := ReadTSV(p)
	if err != nil {
		t.Fatal(err)
	}
	if want := [][]float64{{1, 2}, {nan, 45}, {nan, 0}}; !sameSeries(series, want) {
		t.Errorf("series = %v, want %v", series, want)
	}
	if want := []string{"1", "2", "1"}; !reflect.DeepEqual(labels, want) {
		t.Errorf("labels = %q, want %q", labels, want)
	}
}

func TestReadTSVErrorFixtures(t *testing.T) {
	for _, tc := range []struct {
		file string
		want []string
	}{
		{"ragged.tsv", []string{"ragged.tsv:3", "ragged row", "3 columns, expected 4 as on line 1", "NaN"}},
		{"nonnumeric.tsv", []string{"nonnumeric.tsv:2", "column 3", `"abc"`, "expected a number"}},
		{"empty.tsv", []string{"empty.tsv", "empty file"}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			_, _, err := ReadTSV(filepath.Join("testdata", "bad", tc.file))
			wantError(t, err, tc.want...)
		})
	}
}

func TestReadTSVErrors(t *testing.T) {
	for _, tc := range []struct {
		name, content string
		want          []string
	}{
		{"blank only", "\n \n\t\n", []string{"empty file"}},
		{"one column", "1\n", []string{"x.tsv:1", "found 1 column", "separated by tabs"}},
		{"spaces not tabs", "1 2 3\n", []string{"x.tsv:1", "found 1 column"}},
		{"comma in value", "1\t2,5\t3\n", []string{"x.tsv:1", "column 2", `"2,5"`}},
		{"empty value", "1\t2\t\t3\n", []string{"x.tsv:1", "column 3", "empty value"}},
		{"empty label", "\t2\t3\n", []string{"x.tsv:1", "empty class label"}},
		{"infinite", "1\t2\n2\tInf\n", []string{"x.tsv:2", "column 2", "not finite"}},
		{"longer row", "1\t2\t3\n2\t4\t5\t6\n", []string{"x.tsv:2", "4 columns, expected 3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := testfs.Write(t, t.TempDir(), "x.tsv", tc.content)
			_, _, err := ReadTSV(p)
			wantError(t, err, tc.want...)
		})
	}
	_, _, err := ReadTSV(filepath.Join(t.TempDir(), "absent.tsv"))
	wantError(t, err, "absent.tsv", "no such file")
}
