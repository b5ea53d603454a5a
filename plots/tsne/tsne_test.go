package tsne

import (
	"errors"
	"math"
	"math/rand/v2"
	"sort"
	"testing"
	"time"
)

// blobs returns k Gaussian clusters of per points in d dimensions, centres
// spread by sep, unit noise, and the label of each point.
func blobs(k, per, d int, sep float64, seed uint64) ([][]float64, []int) {
	rng := rand.New(rand.NewPCG(seed, 7))
	var x [][]float64
	var lab []int
	for c := 0; c < k; c++ {
		centre := make([]float64, d)
		for j := range centre {
			centre[j] = sep * rng.NormFloat64()
		}
		for i := 0; i < per; i++ {
			row := make([]float64, d)
			for j := range row {
				row[j] = centre[j] + rng.NormFloat64()
			}
			x = append(x, row)
			lab = append(lab, c)
		}
	}
	return x, lab
}

// knnAccuracy is the leave-one-out k-nearest-neighbour accuracy in the
// embedding.
func knnAccuracy(y [][2]float64, lab []int, k int) float64 {
	correct := 0
	for i := range y {
		type nd struct {
			d float64
			l int
		}
		var ds []nd
		for j := range y {
			if i != j {
				d0, d1 := y[i][0]-y[j][0], y[i][1]-y[j][1]
				ds = append(ds, nd{d0*d0 + d1*d1, lab[j]})
			}
		}
		sort.Slice(ds, func(a, b int) bool { return ds[a].d < ds[b].d })
		votes := map[int]int{}
		for _, v := range ds[:k] {
			votes[v.l]++
		}
		best, bestN := -1, -1
		for l, c := range votes {
			if c > bestN || (c == bestN && l < best) {
				best, bestN = l, c
			}
		}
		if best == lab[i] {
			correct++
		}
	}
	return float64(correct) / float64(len(y))
}

// distanceRatio is mean intra-class distance over mean inter-class distance.
func distanceRatio(y [][2]float64, lab []int) float64 {
	var intra, inter float64
	var ni, ne int
	for i := range y {
		for j := i + 1; j < len(y); j++ {
			d := math.Hypot(y[i][0]-y[j][0], y[i][1]-y[j][1])
			if lab[i] == lab[j] {
				intra += d
				ni++
			} else {
				inter += d
				ne++
			}
		}
	}
	return (intra / float64(ni)) / (inter / float64(ne))
}

func TestEmbedSeparatesBlobs(t *testing.T) {
	x, lab := blobs(3, 50, 10, 4, 1)
	for _, init := range []Init{InitPCA, InitRandom} {
		start := time.Now()
		y, err := Embed(x, Options{Perplexity: 20, Seed: 3, Init: init})
		el := time.Since(start)
		if err != nil {
			t.Fatal(err)
		}
		if len(y) != len(x) {
			t.Fatalf("got %d points, want %d", len(y), len(x))
		}
		for i, p := range y {
			if math.IsNaN(p[0]) || math.IsNaN(p[1]) {
				t.Fatalf("NaN at %d", i)
			}
		}
		acc := knnAccuracy(y, lab, 5)
		ratio := distanceRatio(y, lab)
		t.Logf("init %d: n=150 in %v, 5-NN accuracy %.3f, intra/inter distance %.3f", init, el, acc, ratio)
		if acc < 0.95 {
			t.Errorf("init %d: 5-NN accuracy %.3f < 0.95", init, acc)
		}
		if ratio > 0.35 {
			t.Errorf("init %d: intra/inter distance ratio %.3f > 0.35", init, ratio)
		}
		if el > 6*time.Second { // target ≈ well under 2 s; slack for shared CPUs
			t.Errorf("n=150 took %v", el)
		}
	}
}

func TestEmbedLowersKL(t *testing.T) {
	x, _ := blobs(3, 30, 5, 3, 2)
	short, err := Embed(x, Options{Perplexity: 10, Iterations: 1, Init: InitRandom, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	long, err := Embed(x, Options{Perplexity: 10, Iterations: 500, Init: InitRandom, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	k0, err := KL(x, short, 10)
	if err != nil {
		t.Fatal(err)
	}
	k1, err := KL(x, long, 10)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("KL after 1 iteration %.3f, after 500 %.3f", k0, k1)
	if !(k1 < k0/2) {
		t.Errorf("KL did not drop enough: %.3f → %.3f", k0, k1)
	}
}

func TestEmbedDeterministic(t *testing.T) {
	x, _ := blobs(2, 20, 4, 3, 5)
	for _, init := range []Init{InitPCA, InitRandom} {
		a, err := Embed(x, Options{Perplexity: 5, Iterations: 300, Seed: 42, Init: init})
		if err != nil {
			t.Fatal(err)
		}
		b, err := Embed(x, Options{Perplexity: 5, Iterations: 300, Seed: 42, Init: init})
		if err != nil {
			t.Fatal(err)
		}
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("init %d: run differs at %d: %v vs %v", init, i, a[i], b[i])
			}
		}
	}
	a, _ := Embed(x, Options{Perplexity: 5, Iterations: 300, Seed: 1, Init: InitRandom})
	b, _ := Embed(x, Options{Perplexity: 5, Iterations: 300, Seed: 2, Init: InitRandom})
	same := true
	for i := range a {
		if a[i] != b[i] {
			same = false
		}
	}
	if same {
		t.Error("different seeds gave identical random-init embeddings")
	}
}

func TestPerplexityCalibration(t *testing.T) {
	x, _ := blobs(2, 25, 3, 2, 9)
	n := len(x)
	dist := sqDistances(x)
	for _, perp := range []float64{2, 5, 15} {
		p := jointProbabilities(x, perp)
		// Rows of the joint matrix sum to 1/n on average and the matrix is
		// symmetric with zero diagonal.
		var total float64
		for i := 0; i < n; i++ {
			if p[i*n+i] != 0 {
				t.Fatalf("diagonal %d = %v", i, p[i*n+i])
			}
			for j := 0; j < n; j++ {
				if math.Abs(p[i*n+j]-p[j*n+i]) > 1e-15 {
					t.Fatalf("P not symmetric at %d,%d", i, j)
				}
				total += p[i*n+j]
			}
		}
		if math.Abs(total-1) > 1e-6 {
			t.Errorf("perplexity %v: P sums to %v", perp, total)
		}
		// Re-derive one conditional row's perplexity by the same search.
		row := make([]float64, n)
		beta := findBeta(dist[:n], 0, perp, row)
		h := conditionalRow(dist[:n], 0, beta, row)
		if got := math.Exp(h); math.Abs(got-perp) > 1e-3*perp {
			t.Errorf("row perplexity %v, want %v", got, perp)
		}
	}
}

// findBeta repeats the binary search of jointProbabilities for one row.
func findBeta(di []float64, i int, perp float64, row []float64) float64 {
	target := math.Log(perp)
	lo, hi, beta := 0.0, math.Inf(1), 1.0
	for step := 0; step < 200; step++ {
		h := conditionalRow(di, i, beta, row)
		if math.Abs(h-target) < 1e-9 {
			break
		}
		if h > target {
			lo = beta
			if math.IsInf(hi, 1) {
				beta *= 2
			} else {
				beta = (beta + hi) / 2
			}
		} else {
			hi = beta
			beta = (beta + lo) / 2
		}
	}
	return beta
}

func TestEmbedErrors(t *testing.T) {
	good, _ := blobs(2, 10, 3, 2, 1)
	cases := map[string]struct {
		x    [][]float64
		opts Options
	}{
		"empty":          {nil, Options{}},
		"one point":      {[][]float64{{1, 2}}, Options{}},
		"zero dims":      {[][]float64{{}, {}}, Options{}},
		"ragged":         {[][]float64{{1, 2}, {1}, {3, 4}, {5, 6}, {7, 8}}, Options{Perplexity: 1}},
		"NaN":            {[][]float64{{1, 2}, {math.NaN(), 1}, {3, 4}, {5, 6}}, Options{Perplexity: 1}},
		"Inf":            {[][]float64{{1, 2}, {math.Inf(1), 1}, {3, 4}, {5, 6}}, Options{Perplexity: 1}},
		"perp too large": {good, Options{Perplexity: 10}},
		"perp below 1":   {good, Options{Perplexity: 0.5}},
		"too few points": {[][]float64{{1}, {2}, {3}}, Options{}},
		"negative iters": {good, Options{Iterations: -1}},
		"negative eta":   {good, Options{LearningRate: -5}},
	}
	for name, c := range cases {
		if _, err := Embed(c.x, c.opts); !errors.Is(err, ErrInput) {
			t.Errorf("%s: got %v, want ErrInput", name, err)
		}
	}
	// A default perplexity shrinks to fit small n.
	if _, err := Embed(good, Options{Iterations: 50}); err != nil {
		t.Errorf("default perplexity on n=20: %v", err)
	}
}

func TestEmbedDuplicatesAndOneDim(t *testing.T) {
	x := [][]float64{{0}, {0}, {0}, {5}, {5}, {5}, {10}, {10}, {10}, {10}}
	y, err := Embed(x, Options{Perplexity: 2, Iterations: 300})
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range y {
		if math.IsNaN(p[0]) || math.IsNaN(p[1]) || math.IsInf(p[0], 0) {
			t.Fatalf("bad point %d: %v", i, p)
		}
	}
}
