package data

import (
	"os"
	"reflect"
	"testing"

	"github.com/softshape-go/softshape/internal/shareddata"
)

// checkFolds verifies the invariants of Folds on d.
func checkFolds(t *testing.T, d *Dataset, k int, splits []Split) {
	t.Helper()
	n := len(d.Series)
	if len(splits) != k {
		t.Fatalf("%d folds, want %d", len(splits), k)
	}
	testCount := make([]int, n)
	counts := d.ClassCounts()
	for f, s := range splits {
		if s.Fold != f {
			t.Errorf("fold %d has Fold %d", f, s.Fold)
		}
		// Disjoint and covering within the fold.
		seen := make([]int, n)
		for _, part := range [][]int{s.Train, s.Val, s.Test} {
			for i, r := range part {
				seen[r]++
				if i > 0 && part[i-1] >= r {
					t.Fatalf("fold %d: indices not ascending", f)
				}
			}
		}
		for r, c := range seen {
			if c != 1 {
				t.Fatalf("fold %d: row %d is in %d of train/val/test", f, r, c)
			}
		}
		for _, r := range s.Test {
			testCount[r]++
		}
		// Stratified within one sample per class.
		per := func(rows []int) []int {
			c := make([]int, len(counts))
			for _, r := range rows {
				c[d.Labels[r]]++
			}
			return c
		}
		testC, valC, trainC := per(s.Test), per(s.Val), per(s.Train)
		for c, nc := range counts {
			if lo, hi := nc/k, (nc+k-1)/k; testC[c] < lo || testC[c] > hi {
				t.Errorf("fold %d class %d: %d test rows of %d, want %d..%d", f, c, testC[c], nc, lo, hi)
			}
			rest := nc - testC[c]
			if lo, hi := rest/4, (rest+3)/4; valC[c] < lo || valC[c] > hi {
				t.Errorf("fold %d class %d: %d val rows of %d, want %d..%d", f, c, valC[c], rest, lo, hi)
			}
			if trainC[c] != rest-valC[c] {
				t.Errorf("fold %d class %d: train %d", f, c, trainC[c])
			}
		}
		// Sizes: test n/k and val a quarter of the rest, within rounding.
		if x := float64(len(s.Test)) - float64(n)/float64(k); x <= -1 || x >= 1 {
			t.Errorf("fold %d: %d test rows, want %.1f", f, len(s.Test), float64(n)/float64(k))
		}
		if x := float64(len(s.Val)) - float64(n-len(s.Test))/4; x <= -1 || x >= 1 {
			t.Errorf("fold %d: %d val rows of %d", f, len(s.Val), n-len(s.Test))
		}
		if k == 5 {
			for _, p := range []struct {
				name string
				size int
				frac float64
			}{{"train", len(s.Train), 0.6}, {"val", len(s.Val), 0.2}, {"test", len(s.Test), 0.2}} {
				if x := float64(p.size) - p.frac*float64(n); x <= -2 || x >= 2 {
					t.Errorf("fold %d: %s has %d of %d rows, want %.0f%%", f, p.name, p.size, n, 100*p.frac)
				}
			}
		}
	}
	for r, c := range testCount {
		if c != 1 {
			t.Fatalf("row %d is a test row in %d folds, want 1", r, c)
		}
	}
}

func TestFolds(t *testing.T) {
	sets := []*Dataset{CBF(20, 32, 1)}
	for _, name := range BundledNames() {
		sets = append(sets, loadShared(t, name))
	}
	if _, ok := shareddata.UCRDir(); ok || os.Getenv(shareddata.RequireEnv) == "1" {
		for _, name := range []string{"FiftyWords", "Fungi", "MelbournePedestrian"} {
			sets = append(sets, loadShared(t, name))
		}
	} else {
		t.Log("FiftyWords, Fungi and MelbournePedestrian left out: no shared UCR copy")
	}
	for _, d := range sets {
		for _, k := range []int{5, 3} {
			splits, err := Folds(d, k, 42)
			if err != nil {
				t.Fatalf("%s k=%d: %v", d.Name, k, err)
			}
			checkFolds(t, d, k, splits)
		}
	}
}

func TestFoldsDeterministic(t *testing.T) {
	d := loadShared(t, "GunPoint")
	a, err := Folds(d, 5, 42)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Folds(d, 5, 42)
	if !reflect.DeepEqual(a, b) {
		t.Error("same seed gives different folds")
	}
	c, _ := Folds(d, 5, 43)
	if reflect.DeepEqual(a[0].Test, c[0].Test) {
		t.Error("seeds 42 and 43 give the same test fold")
	}
	if reflect.DeepEqual(a[0].Val, a[1].Val) {
		t.Error("folds 0 and 1 share their validation set")
	}
}

func TestFoldsErrors(t *testing.T) {
	series := make([][]float64, 13)
	labels := make([]string, 13)
	for i := range series {
		series[i] = []float64{float64(i), 1}
		labels[i] = "common"
	}
	labels[0], labels[5], labels[9] = "rare", "rare", "rare"
	d, err := NewDataset("few", "test", series, labels)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Folds(d, 5, 1)
	wantError(t, err, "dataset few", `class "rare"`, "has 3 rows", "fewer than the 5 folds")
	if _, err := Folds(d, 3, 1); err != nil {
		t.Errorf("3 folds of a class of 3: %v", err)
	}
	_, err = Folds(d, 1, 1)
	wantError(t, err, "k = 1", "at least 2")
}
