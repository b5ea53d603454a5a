package data

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// TestPrepareSeriesByHand: new series are filled from the fill values and
// z-normalised; a shorter one is padded first; a longer one is refused.
func TestPrepareSeriesByHand(t *testing.T) {
	fill := []float64{1, 3, 3, 3} // TestPrepareByHand's train means
	got, err := PrepareSeries([][]float64{{nan, nan, nan, 4}, {1, 3}}, fill)
	if err != nil {
		t.Fatal(err)
	}
	// As TestPrepareByHand's test row: [1 3 3 4].
	sd := math.Sqrt(1.1875)
	closeTo(t, "series 0", got[0], []float64{-1.75 / sd, 0.25 / sd, 0.25 / sd, 1.25 / sd})
	// [1 3] padded → [1 3 3 3]: mean 2.5, var (2.25+0.25·3)/4 = 0.75.
	sd = math.Sqrt(0.75)
	closeTo(t, "series 1", got[1], []float64{-1.5 / sd, 0.5 / sd, 0.5 / sd, 0.5 / sd})
	if _, err := PrepareSeries([][]float64{{1, 2, 3, 4, 5}}, fill); err == nil || !strings.Contains(err.Error(), "series 0 has length 5") {
		t.Errorf("a series longer than the model's: error %v", err)
	}
	if _, err := PrepareSeries([][]float64{{1, math.Inf(1)}}, fill); err == nil || !strings.Contains(err.Error(), "series 0, time step 1") {
		t.Errorf("an infinite value: error %v", err)
	}
}

// TestCombinePreparesAsTheFold: a fold's train and val rows, taken out as
// sets of their own (Subset) and combined again, prepare to the fold's
// training and validation data exactly, with the same imputation values; the
// test rows prepared by PrepareSeries with them are the fold's test data.
func TestCombinePreparesAsTheFold(t *testing.T) {
	d := CBF(12, 40, 5)
	for i := range d.Series { // missing values for the imputation to fill
		d.Series[i][(3*i)%40] = nan
	}
	splits, err := Folds(d, 5, 5)
	if err != nil {
		t.Fatal(err)
	}
	s := splits[2]
	want, err := Prepare(d, s)
	if err != nil {
		t.Fatal(err)
	}
	train, _ := d.Subset(s.Train)
	val, _ := d.Subset(s.Val)
	test, _ := d.Subset(s.Test)
	all, split, err := Combine(train, val)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Prepare(all, split)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Fill, want.Fill) || !slices.Equal(got.TrainY, want.TrainY) || !slices.Equal(got.ValY, want.ValY) {
		t.Fatal("combined sets: fill or labels differ from the fold's")
	}
	for i := range want.TrainX {
		if !slices.Equal(got.TrainX[i], want.TrainX[i]) {
			t.Fatalf("train row %d differs", i)
		}
	}
	for i := range want.ValX {
		if !slices.Equal(got.ValX[i], want.ValX[i]) {
			t.Fatalf("val row %d differs", i)
		}
	}
	tx, err := PrepareSeries(test.Series, got.Fill)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want.TestX {
		if !slices.Equal(tx[i], want.TestX[i]) {
			t.Fatalf("test row %d differs", i)
		}
	}
	if names := test.LabelNames(); names[0] != d.ClassNames[d.Labels[s.Test[0]]] {
		t.Errorf("LabelNames()[0] = %q", names[0])
	}
}

// TestCombineMatchesClassesByName: the validation set's labels are its
// class names found among the training set's; an unknown one is an error
// naming it, and shorter series are padded.
func TestCombineMatchesClassesByName(t *testing.T) {
	train, err := NewDataset("tr", "test", [][]float64{{1, 2, 3}, {3, 2, 1}, {1, 1, 2}}, []string{"up", "down", "up"})
	if err != nil {
		t.Fatal(err)
	}
	val, err := NewDataset("va", "test", [][]float64{{3, 1}, {0, 1}}, []string{"up", "zigzag"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := Combine(train, val); err == nil || !strings.Contains(err.Error(), `class "zigzag"`) {
		t.Errorf("unknown validation class: error %v", err)
	}
	val, err = NewDataset("va", "test", [][]float64{{3, 1}, {0, 1}}, []string{"up", "down"})
	if err != nil {
		t.Fatal(err)
	}
	all, s, err := Combine(train, val)
	if err != nil {
		t.Fatal(err)
	}
	// train: "down" 0, "up" 1 (sorted); val's "up" is 1, "down" 0.
	if !slices.Equal(all.Labels, []int{1, 0, 1, 1, 0}) || !slices.Equal(s.Train, []int{0, 1, 2}) || !slices.Equal(s.Val, []int{3, 4}) {
		t.Errorf("labels %v split %+v", all.Labels, s)
	}
	if len(all.Series[3]) != 3 || !math.IsNaN(all.Series[3][2]) {
		t.Errorf("short validation row not padded: %v", all.Series[3])
	}
	if _, _, err := CBF(5, 20, 1).TrainTest(); err == nil {
		t.Error("TrainTest of a generated dataset: no error")
	}
}
