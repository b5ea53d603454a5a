package sweep

import (
	"fmt"
	"strconv"
	"strings"
)

// Shard is the i-th of n parts of a grid (1-based i).
type Shard struct {
	// Index is 1-based; Count is the number of shards.
	Index, Count int
}

// ParseShard reads "i/n" with 1 ≤ i ≤ n; "" means the whole grid (1/1).
func ParseShard(s string) (Shard, error) {
	if strings.TrimSpace(s) == "" {
		return Shard{1, 1}, nil
	}
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return Shard{}, fmt.Errorf("-shard %q: want i/n with 1 ≤ i ≤ n, e.g. 2/4", s)
	}
	return Shard{i, n}, nil
}

// String returns "i/n".
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Select returns the cells of the shard in key order: those whose index in the sorted key
// list is congruent to Index−1 modulo Count. The shards of one grid are
// disjoint and their union is the grid.
func (s Shard) Select(cells []Cell) []Cell {
	sorted := append([]Cell(nil), cells...)
	sortCells(sorted)
	var out []Cell
	for i, c := range sorted {
		if s.Count <= 1 || i%s.Count == s.Index-1 {
			out = append(out, c)
		}
	}
	return out
}
