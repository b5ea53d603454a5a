package data

import (
	"math"

	"gonum.org/v1/gonum/stat"
)

// FoldData is one fold, imputed and z-normalised, ready for a model.
type FoldData struct {
	// TrainX, ValX and TestX hold the prepared series of the split's rows,
	// in the split's order, each Length long and free of NaN.
	TrainX, ValX, TestX [][]float32
	// TrainY, ValY and TestY hold their class ids.
	TrainY, ValY, TestY []int
	// Length is the series length and NumClasses the dataset's number of
	// classes (some may be absent from a split).
	Length, NumClasses int
}

// EmptyStepFill is the value the reference gives to a missing value at a
// time step where no train series has an observed value.
const EmptyStepFill = 1e-6

// Prepare builds the model input of one fold as the reference code does:
//
//  1. every NaN, in train, val and test alike, is replaced by the mean of
//     the observed values of the train split at that time step, or by
//     EmptyStepFill where the train split has none;
//  2. every filled series is z-normalised on its own: (x − mean)/std with
//     the population std (ddof 0); a constant series (std 0) is divided by
//     1, i.e. becomes all zeros.
//
// The arithmetic is float64; the result is converted to float32.
func Prepare(d *Dataset, s Split) (*FoldData, error) {
	if err := checkSplit(d, s); err != nil {
		return nil, err
	}
	fill := trainStepMeans(d, s.Train)
	buf := make([]float64, d.Length)
	prep := func(rows []int) ([][]float32, []int) {
		xs := make([][]float32, len(rows))
		ys := make([]int, len(rows))
		for k, r := range rows {
			xs[k] = normalise(d.Series[r], fill, buf)
			ys[k] = d.Labels[r]
		}
		return xs, ys
	}
	fd := &FoldData{Length: d.Length, NumClasses: d.NumClasses()}
	fd.TrainX, fd.TrainY = prep(s.Train)
	fd.ValX, fd.ValY = prep(s.Val)
	fd.TestX, fd.TestY = prep(s.Test)
	return fd, nil
}

// trainStepMeans returns, for each time step, the mean of the observed
// (non-NaN) values of the train rows, or EmptyStepFill where there are none.
func trainStepMeans(d *Dataset, train []int) []float64 {
	sum := make([]float64, d.Length)
	count := make([]int, d.Length)
	for _, r := range train {
		for t, v := range d.Series[r] {
			if !math.IsNaN(v) {
				sum[t] += v
				count[t]++
			}
		}
	}
	for t := range sum {
		if count[t] == 0 {
			sum[t] = EmptyStepFill
		} else {
			sum[t] /= float64(count[t])
		}
	}
	return sum
}

// normalise fills the NaN of row from fill (using buf as scratch) and
// returns the z-normalised series as float32.
func normalise(row, fill, buf []float64) []float32 {
	constant := true
	for t, v := range row {
		if math.IsNaN(v) {
			v = fill[t]
		}
		buf[t] = v
		if v != buf[0] {
			constant = false
		}
	}
	x := buf[:len(row)]
	out := make([]float32, len(row))
	if constant {
		// std is 0 in exact arithmetic: x − mean is 0 everywhere. (Testing
		// this directly avoids dividing by a rounding-error std.)
		return out
	}
	mean, std := stat.PopMeanStdDev(x, nil)
	if std == 0 || math.IsNaN(std) {
		std = 1
	}
	for t, v := range x {
		out[t] = float32((v - mean) / std)
	}
	return out
}
