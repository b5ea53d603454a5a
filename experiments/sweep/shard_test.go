package sweep

import (
	"fmt"
	"testing"
)

// TestShardsPartitionTheGrid: for n = 1..7 the shards of a grid are disjoint,
// their union is the grid, sizes differ by at most one, and the selection does
// not depend on the order cells are given in.
func TestShardsPartitionTheGrid(t *testing.T) {
	g := mustGrid(t, GridSpec{Table: "sparse_ratio", Datasets: []string{"GunPoint", "ArrowHead", "ItalyPowerDemand"},
		Folds: []int{1, 2, 3, 4, 5}, Seeds: []int64{1, 42}, Settings: tinySettings})
	if len(g.Cells) != 3*5*6*2 {
		t.Fatalf("%d cells", len(g.Cells))
	}
	reversed := make([]Cell, len(g.Cells))
	for i, c := range g.Cells {
		reversed[len(g.Cells)-1-i] = c
	}
	for n := 1; n <= 7; n++ {
		seen := map[Key]int{}
		for i := 1; i <= n; i++ {
			sh, err := ParseShard(fmt.Sprintf("%d/%d", i, n))
			if err != nil {
				t.Fatal(err)
			}
			part := sh.Select(g.Cells)
			if d := len(part) - len(g.Cells)/n; d < 0 || d > 1 {
				t.Errorf("shard %s has %d of %d cells", sh, len(part), len(g.Cells))
			}
			if fmt.Sprint(part) != fmt.Sprint(sh.Select(reversed)) {
				t.Errorf("shard %s depends on the input order", sh)
			}
			for _, c := range part {
				seen[c.Key]++
			}
		}
		if len(seen) != len(g.Cells) {
			t.Errorf("n=%d: the shards cover %d of %d cells", n, len(seen), len(g.Cells))
		}
		for k, c := range seen {
			if c != 1 {
				t.Errorf("n=%d: %s in %d shards", n, k, c)
			}
		}
	}
	for _, bad := range []string{"0/3", "4/3", "1/0", "a/b", "2", "1/2/3"} {
		if _, err := ParseShard(bad); err == nil {
			t.Errorf("ParseShard(%q) accepted", bad)
		}
	}
	if sh, err := ParseShard(""); err != nil || sh != (Shard{1, 1}) {
		t.Errorf("empty shard: %v %v", sh, err)
	}
}
