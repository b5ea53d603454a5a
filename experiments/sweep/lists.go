package sweep

import (
	"fmt"
	"strconv"
	"strings"
)

// SplitList splits a comma-separated list of grid values (datasets,
// variants, seeds, folders), each trimmed of spaces; empty items are
// dropped, and "" gives nil.
func SplitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// ParseSeeds reads a comma-separated list of run seeds (SplitList); an item
// that is not an integer is an error naming it. "" gives nil.
func ParseSeeds(s string) ([]int64, error) {
	var out []int64
	for _, p := range SplitList(s) {
		v, err := strconv.ParseInt(p, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not an integer", p)
		}
		out = append(out, v)
	}
	return out, nil
}
