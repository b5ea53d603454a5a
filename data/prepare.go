package data

import (
	"fmt"
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
	// Fill holds, for each time step, the value that replaced a missing one
	// in every split: the train split's mean there (TrainFill). New series
	// are prepared with it (PrepareSeries) as the test split was.
	Fill []float64
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
	fill := TrainFill(d, s.Train)
	prep := func(rows []int) ([][]float32, []int) {
		series := make([][]float64, len(rows))
		ys := make([]int, len(rows))
		for k, r := range rows {
			series[k] = d.Series[r]
			ys[k] = d.Labels[r]
		}
		return normaliseAll(series, fill), ys
	}
	fd := &FoldData{Length: d.Length, NumClasses: d.NumClasses(), Fill: fill}
	fd.TrainX, fd.TrainY = prep(s.Train)
	fd.ValX, fd.ValY = prep(s.Val)
	fd.TestX, fd.TestY = prep(s.Test)
	return fd, nil
}

// PrepareSeries prepares series that a model trained on a split with the
// imputation values fill (FoldData.Fill) is to classify, as Prepare prepares
// that split's test series: each NaN is replaced by fill at its time step,
// then each series is z-normalised on its own. A series shorter than fill is
// first padded with NaN, as NewDataset pads the shorter series of a dataset;
// a longer one, or one holding an infinite value, is an error naming it.
func PrepareSeries(series [][]float64, fill []float64) ([][]float32, error) {
	rows := make([][]float64, len(series))
	for i, row := range series {
		if len(row) == 0 || len(row) > len(fill) {
			return nil, fmt.Errorf("series %d has length %d: the model takes series of 1 to %d values", i, len(row), len(fill))
		}
		for j, v := range row {
			if err := checkValue(v); err != nil {
				return nil, fmt.Errorf("series %d, time step %d: value %v %w", i, j, v, err)
			}
		}
		rows[i] = row
		if len(row) < len(fill) {
			rows[i] = padNaN(row, len(fill))
		}
	}
	return normaliseAll(rows, fill), nil
}

// normaliseAll returns the series, each len(fill) long, filled from fill and
// z-normalised (normalise).
func normaliseAll(series [][]float64, fill []float64) [][]float32 {
	buf := make([]float64, len(fill))
	out := make([][]float32, len(series))
	for i, row := range series {
		out[i] = normalise(row, fill, buf)
	}
	return out
}

// TrainFill returns, for each time step, the mean of the observed (non-NaN)
// values of d's rows train, or EmptyStepFill where there are none: the
// values that replace the missing ones (Prepare).
func TrainFill(d *Dataset, train []int) []float64 {
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
