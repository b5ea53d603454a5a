package data

import (
	"math"
	"testing"
)

// closeTo compares float32 results with hand-computed values.
func closeTo(t *testing.T, what string, got []float32, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		if math.Abs(float64(got[i])-want[i]) > 1e-6 {
			t.Errorf("%s[%d] = %v, want %v", what, i, got[i], want[i])
		}
	}
}

// TestPrepareByHand checks imputation and z-normalisation on a dataset
// small enough to compute by hand.
func TestPrepareByHand(t *testing.T) {
	series := [][]float64{
		{1, nan, 1, 3},     // train
		{nan, 3, 5, 3},     // train
		{7, 7, 7, 7},       // val: constant
		{nan, nan, nan, 4}, // test: mostly missing
	}
	d, err := NewDataset("hand", "test", series, []string{"a", "b", "a", "b"})
	if err != nil {
		t.Fatal(err)
	}
	// Train means per time step: t0 = 1 (only row 0), t1 = 3 (only row 1),
	// t2 = (1+5)/2 = 3, t3 = (3+3)/2 = 3.
	fd, err := Prepare(d, Split{Train: []int{0, 1}, Val: []int{2}, Test: []int{3}})
	if err != nil {
		t.Fatal(err)
	}
	// Row 0 → [1 3 1 3]: mean 2, std 1.
	closeTo(t, "train[0]", fd.TrainX[0], []float64{-1, 1, -1, 1})
	// Row 1 → [1 3 5 3]: mean 3, var (4+0+4+0)/4 = 2.
	r2 := math.Sqrt2
	closeTo(t, "train[1]", fd.TrainX[1], []float64{-r2, 0, r2, 0})
	// Constant row: divided by 1 after subtracting the mean.
	closeTo(t, "val[0]", fd.ValX[0], []float64{0, 0, 0, 0})
	// Row 3 → [1 3 3 4]: mean 2.75, var (3.0625+0.0625+0.0625+1.5625)/4 = 1.1875.
	sd := math.Sqrt(1.1875)
	closeTo(t, "test[0]", fd.TestX[0], []float64{-1.75 / sd, 0.25 / sd, 0.25 / sd, 1.25 / sd})
	if fd.Length != 4 || fd.NumClasses != 2 {
		t.Errorf("length %d classes %d", fd.Length, fd.NumClasses)
	}
	if fd.TrainY[0] != 0 || fd.TrainY[1] != 1 || fd.ValY[0] != 0 || fd.TestY[0] != 1 {
		t.Errorf("labels %v %v %v", fd.TrainY, fd.ValY, fd.TestY)
	}
	// The dataset itself is not modified.
	if !math.IsNaN(d.Series[0][1]) {
		t.Error("Prepare changed the dataset")
	}
}

// TestPrepareEmptyTimeStep: a time step without any observed train value
// is filled with 1e-6, as in the reference.
func TestPrepareEmptyTimeStep(t *testing.T) {
	series := [][]float64{
		{1, 3, nan},
		{3, 1, nan},
		{1e-6, 0, nan}, // test → [1e-6 0 1e-6]
		{2, 2, 9},
	}
	d, err := NewDataset("empty-step", "test", series, []string{"x", "y", "x", "y"})
	if err != nil {
		t.Fatal(err)
	}
	if m := TrainFill(d, []int{0, 1}); m[0] != 2 || m[1] != 2 || m[2] != 1e-6 {
		t.Errorf("train step means %v, want [2 2 1e-6]", m)
	}
	fd, err := Prepare(d, Split{Train: []int{0, 1}, Test: []int{2}, Val: []int{3}})
	if err != nil {
		t.Fatal(err)
	}
	// [c 0 c]: mean 2c/3, deviations c/3, −2c/3, c/3, std c·√2/3.
	closeTo(t, "test[0]", fd.TestX[0], []float64{1 / math.Sqrt2, -math.Sqrt2, 1 / math.Sqrt2})
	// [1 3 1e-6]: mean ≈ 4/3, computed directly.
	x := []float64{1, 3, 1e-6}
	m := (x[0] + x[1] + x[2]) / 3
	s := math.Sqrt(((x[0]-m)*(x[0]-m) + (x[1]-m)*(x[1]-m) + (x[2]-m)*(x[2]-m)) / 3)
	closeTo(t, "train[0]", fd.TrainX[0], []float64{(x[0] - m) / s, (x[1] - m) / s, (x[2] - m) / s})
	// An observed value at the empty step is kept.
	closeTo(t, "val[0]", fd.ValX[0], []float64{-1 / math.Sqrt2, -1 / math.Sqrt2, math.Sqrt2})
}

func TestPrepareErrors(t *testing.T) {
	d := CBF(5, 16, 1)
	_, err := Prepare(d, Split{Fold: 2, Val: []int{0}})
	wantError(t, err, "fold 2", "empty train split")
	_, err = Prepare(d, Split{Fold: 1, Train: []int{0, 15}})
	wantError(t, err, "fold 1", "row index 15 out of range [0, 15)")
}

// TestPrepareSharedNaNFree runs Folds and Prepare on every shared dataset
// with NaN (the variable-length ones and those with missing values) and
// checks that the output is finite and z-normalised.
func TestPrepareSharedNaNFree(t *testing.T) {
	withNaN := 0
	for _, name := range sharedNames(t) {
		d := loadShared(t, name)
		if !d.HasMissing() {
			continue
		}
		withNaN++
		splits, err := Folds(d, 5, 42)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, s := range splits {
			fd, err := Prepare(d, s)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			for _, xs := range [][][]float32{fd.TrainX, fd.ValX, fd.TestX} {
				for i, x := range xs {
					var sum, sq float64
					for _, v := range x {
						f := float64(v)
						if math.IsNaN(f) || math.IsInf(f, 0) {
							t.Fatalf("%s fold %d row %d: %v after Prepare", name, s.Fold, i, v)
						}
						sum += f
						sq += f * f
					}
					mean := sum / float64(len(x))
					std := math.Sqrt(sq/float64(len(x)) - mean*mean)
					if math.Abs(mean) > 1e-4 || (math.Abs(std-1) > 1e-3 && std > 1e-6) {
						t.Fatalf("%s fold %d row %d: mean %v std %v", name, s.Fold, i, mean, std)
					}
				}
			}
		}
	}
	for _, name := range []string{"GesturePebbleZ1", "PickupGestureWiimoteZ"} {
		if !loadShared(t, name).HasMissing() {
			t.Errorf("%s has no NaN padding", name)
		}
	}
	if withNaN < 10 {
		t.Errorf("only %d shared datasets with NaN", withNaN)
	}
}
