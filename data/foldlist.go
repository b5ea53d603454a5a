package data

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// ParseFolds reads a list of 1-based fold numbers of a numFolds-fold
// protocol: a range "1-5", a list "1,3", a single fold "2", or a
// comma-separated mix ("1-2,4"). Folds are returned 1-based, in the order
// first given, each once. It fails on a fold outside 1..numFolds, a reversed
// range, a part that is not a number, or a list naming no fold ("").
func ParseFolds(s string, numFolds int) ([]int, error) {
	var out []int
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(strings.TrimSpace(lo))
		if err != nil {
			return nil, fmt.Errorf("folds %q: %q is not a number", s, lo)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(strings.TrimSpace(hi)); err != nil {
				return nil, fmt.Errorf("folds %q: %q is not a number", s, hi)
			}
		}
		if a > b {
			return nil, fmt.Errorf("folds %q: bad range %q, its first fold after its last (want 1..%d, lowest first)", s, part, numFolds)
		}
		for _, f := range []int{a, b} {
			if f < 1 || f > numFolds {
				return nil, fmt.Errorf("folds %q: fold %d does not exist (want 1..%d)", s, f, numFolds)
			}
		}
		for f := a; f <= b; f++ {
			if !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("folds %q: none given", s)
	}
	return out, nil
}
