package data

import (
	"errors"
	"fmt"
)

// Subset returns the dataset of d's rows rows, in that order, with d's
// classes (the same class ids and names, even for a class none of the rows
// has) and length. The rows are shared with d, not copied. The subset is not
// split into TRAIN and TEST rows (NumTrain 0).
func (d *Dataset) Subset(rows []int) (*Dataset, error) {
	s := &Dataset{Name: d.Name, Source: d.Source, ClassNames: d.ClassNames, Length: d.Length,
		Series: make([][]float64, len(rows)), Labels: make([]int, len(rows))}
	for k, r := range rows {
		if r < 0 || r >= len(d.Series) {
			return nil, fmt.Errorf("dataset %s: row index %d out of range [0, %d)", d.Name, r, len(d.Series))
		}
		s.Series[k], s.Labels[k] = d.Series[r], d.Labels[r]
	}
	return s, nil
}

// TrainTest returns the rows of d that came from its TRAIN file and those
// that came from its TEST file (Subset), for a dataset read from the UCR
// files: an error for a generated one (NumTrain 0), which has no such split.
func (d *Dataset) TrainTest() (train, test *Dataset, err error) {
	if d.NumTrain == 0 || d.NumTrain >= len(d.Series) {
		return nil, nil, fmt.Errorf("dataset %s has no TRAIN/TEST split (%d TRAIN rows of %d): split it with Subset, or Folds", d.Name, d.NumTrain, len(d.Series))
	}
	if train, err = d.Subset(span(0, d.NumTrain)); err != nil {
		return nil, nil, err
	}
	test, err = d.Subset(span(d.NumTrain, len(d.Series)-d.NumTrain))
	return train, test, err
}

// LabelNames returns each row's label as its class name (ClassNames).
func (d *Dataset) LabelNames() []string {
	names := make([]string, len(d.Labels))
	for i, y := range d.Labels {
		names[i] = d.ClassNames[y]
	}
	return names
}

// Combine returns the rows of train followed by those of val as one dataset
// with train's name and classes, and the split of it into those train and
// val rows (no test rows): what Prepare takes to prepare a training set and
// a validation set of a caller's own. Val may be nil (no val rows). Each
// class of val is found in train's by name: a class train lacks is an error
// naming it. Rows shorter than the longest are padded with NaN (NewDataset).
func Combine(train, val *Dataset) (*Dataset, Split, error) {
	if train == nil {
		return nil, Split{}, errors.New("no training set")
	}
	if err := train.validate(); err != nil {
		return nil, Split{}, err
	}
	all := &Dataset{Name: train.Name, Source: train.Source, ClassNames: train.ClassNames, Length: train.Length,
		Series: append([][]float64(nil), train.Series...), Labels: append([]int(nil), train.Labels...)}
	s := Split{Train: span(0, len(train.Series))}
	if val != nil {
		if err := val.validate(); err != nil {
			return nil, Split{}, err
		}
		ids := make(map[string]int, len(train.ClassNames))
		for id, name := range train.ClassNames {
			ids[name] = id
		}
		for _, y := range val.Labels {
			id, ok := ids[val.ClassNames[y]]
			if !ok {
				return nil, Split{}, fmt.Errorf("validation set %s: class %q is not one of the training set's classes %q", val.Name, val.ClassNames[y], train.ClassNames)
			}
			all.Labels = append(all.Labels, id)
		}
		all.Series = append(all.Series, val.Series...)
		all.Length = max(train.Length, val.Length)
		s.Val = span(len(train.Series), len(val.Series))
	}
	for i, row := range all.Series {
		if len(row) < all.Length {
			all.Series[i] = padNaN(row, all.Length)
		}
	}
	return all, s, nil
}

// span returns lo, lo+1, …, lo+n−1.
func span(lo, n int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = lo + i
	}
	return idx
}
