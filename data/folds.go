package data

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// Split holds row indices into Dataset.Series for one fold, each list in
// ascending order.
type Split struct {
	// Fold is the 0-based fold number: Test is the fold's part of the data.
	Fold int
	// Train, Val and Test are the rows of the three sets, disjoint.
	Train, Val, Test []int
}

// innerFolds is the number of parts the non-test rows are cut into; one
// part is the validation set (the reference's StratifiedKFold(4)).
const innerFolds = 4

// Folds returns the k folds of a stratified k-fold protocol, as the
// reference code does with StratifiedKFold(k, shuffle=True): every row is
// in the test set of exactly one fold, and each class is spread over the
// folds as evenly as possible (its per-fold counts differ by at most one).
// In each fold the remaining rows are split 3:1, again stratified, into
// train and validation (60/20/20 of the whole for k = 5).
//
// The result depends only on (d.Labels, k, seed): the same arguments give
// the same folds, another seed gives others. It is not the same permutation
// as scikit-learn's. It fails when k < 2 or when a class has fewer rows
// than k, naming the class and its count.
func Folds(d *Dataset, k int, seed int64) ([]Split, error) {
	if k < 2 {
		return nil, fmt.Errorf("folds: k = %d, need at least 2 folds", k)
	}
	if err := d.validate(); err != nil {
		return nil, fmt.Errorf("folds: %w", err)
	}
	counts := d.ClassCounts()
	for c, n := range counts {
		if n < k {
			return nil, fmt.Errorf("folds: dataset %s: class %q (id %d) has %d rows, fewer than the %d folds", d.Name, d.ClassNames[c], c, n, k)
		}
	}
	rng := rand.New(rand.NewPCG(uint64(seed), 0x736f667473686170)) // "softshap"
	all := make([]int, len(d.Labels))
	for i := range all {
		all[i] = i
	}
	outer := stratifiedParts(all, d.Labels, len(counts), k, rng)
	splits := make([]Split, k)
	for f := range k {
		var rest []int
		s := Split{Fold: f}
		for i, part := range outer {
			if part == f {
				s.Test = append(s.Test, i)
			} else {
				rest = append(rest, i)
			}
		}
		inner := stratifiedParts(rest, d.Labels, len(counts), innerFolds, rng)
		for j, row := range rest {
			if inner[j] == 0 {
				s.Val = append(s.Val, row)
			} else {
				s.Train = append(s.Train, row)
			}
		}
		splits[f] = s
	}
	return splits, nil
}

// stratifiedParts assigns each of rows (indices into labels) to one of k
// parts, returning the part of rows[j] at index j. As in scikit-learn's
// StratifiedKFold, the rows are ordered by class and dealt to the parts in
// turn, so every part gets ⌊n_c/k⌋ or ⌈n_c/k⌉ rows of class c and the part
// sizes differ by at most one; the part numbers are then shuffled within
// each class.
func stratifiedParts(rows, labels []int, numClasses, k int, rng *rand.Rand) []int {
	byClass := make([][]int, numClasses)
	for j, row := range rows {
		c := labels[row]
		byClass[c] = append(byClass[c], j)
	}
	parts := make([]int, len(rows))
	pos := 0
	for _, members := range byClass {
		assign := make([]int, len(members))
		for m := range assign {
			assign[m] = pos % k
			pos++
		}
		rng.Shuffle(len(assign), func(a, b int) { assign[a], assign[b] = assign[b], assign[a] })
		for m, j := range members {
			parts[j] = assign[m]
		}
	}
	return parts
}

// checkSplit verifies that a split's indices are valid rows of d and that
// its train set is not empty.
func checkSplit(d *Dataset, s Split) error {
	if err := d.validate(); err != nil {
		return err
	}
	if len(s.Train) == 0 {
		return fmt.Errorf("fold %d: empty train split", s.Fold)
	}
	for _, part := range [][]int{s.Train, s.Val, s.Test} {
		if i := slices.IndexFunc(part, func(r int) bool { return r < 0 || r >= len(d.Series) }); i >= 0 {
			return fmt.Errorf("fold %d: row index %d out of range [0, %d)", s.Fold, part[i], len(d.Series))
		}
	}
	return nil
}
