package rocket

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// TestDefaultAlphas: logspace(−3, 3, 10).
func TestDefaultAlphas(t *testing.T) {
	a := DefaultAlphas()
	if len(a) != 10 || math.Abs(a[0]-1e-3) > 1e-15 || math.Abs(a[9]-1e3) > 1e-9 || math.Abs(a[1]-math.Pow(10, -3+6.0/9)) > 1e-12 {
		t.Errorf("DefaultAlphas() = %v", a)
	}
}

// TestRidgeSeparable: two classes split by the sign of the first feature
// (the second is noise), in both decompositions (p < n: SVD; p ≥ n: Gram):
// the training rows and new points on either side are classified right,
// whatever the class ids are.
func TestRidgeSeparable(t *testing.T) {
	for _, p := range []int{2, 12} {
		rng := rand.New(rand.NewPCG(1, 2))
		var rows []float64
		var y []int
		for i := range 10 {
			side := 1.0
			if i%2 == 1 {
				side = -1
			}
			row := []float64{side * (1 + rng.Float64())}
			for range p - 1 {
				row = append(row, 0.1*rng.NormFloat64())
			}
			rows = append(rows, row...)
			y = append(y, map[bool]int{true: 7, false: 3}[side > 0])
		}
		x := mat.NewDense(10, p, rows)
		train := mat.DenseCopyOf(x)
		r, err := FitRidge(train, y, DefaultAlphas(), RidgeOptions{Normalize: true})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(r.Classes, []int{3, 7}) {
			t.Errorf("classes %v", r.Classes)
		}
		pred, err := r.Predict(x)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(pred, y) {
			t.Errorf("p=%d: training predictions %v, want %v", p, pred, y)
		}
		probe := mat.NewDense(2, p, nil)
		probe.Set(0, 0, 3)
		probe.Set(1, 0, -3)
		if pred, _ := r.Predict(probe); !slices.Equal(pred, []int{7, 3}) {
			t.Errorf("p=%d: probes at ±3 → %v, want [7 3]", p, pred)
		}
	}
}

// TestRidgeLOOBruteForce: the closed-form leave-one-out errors equal
// those of refitting without each row in turn (the features scaled once on
// all rows, as scikit-learn does; the intercept refitted, unpenalised), for
// every alpha, in both decompositions and with three classes; the chosen
// alpha is the one with the least error.
func TestRidgeLOOBruteForce(t *testing.T) {
	for _, shape := range [][2]int{{9, 3}, {6, 11}} {
		n, p := shape[0], shape[1]
		rng := rand.New(rand.NewPCG(uint64(n), uint64(p)))
		x := mat.NewDense(n, p, nil)
		x.Apply(func(i, j int, _ float64) float64 { return rng.NormFloat64() + float64(j) }, x)
		y := make([]int, n)
		for i := range y {
			y[i] = i % 3
		}
		alphas := []float64{1e-2, 0.3, 1, 10}
		r, err := FitRidge(x, y, alphas, RidgeOptions{Normalize: true}) // x is now centred and scaled
		if err != nil {
			t.Fatal(err)
		}
		for ai, alpha := range alphas {
			want := bruteLOO(x, y, 3, alpha)
			if math.Abs(r.LOOError[ai]-want) > 1e-9*math.Max(1, want) {
				t.Errorf("n=%d p=%d alpha=%v: LOO error %v, brute force %v", n, p, alpha, r.LOOError[ai], want)
			}
		}
		if r.Alpha != alphas[floats.MinIdx(r.LOOError)] {
			t.Errorf("chose alpha %v, errors %v", r.Alpha, r.LOOError)
		}
	}
}

// bruteLOO refits ridge with an unpenalised intercept n times, each
// without one row, and returns the mean squared error of the left-out
// rows' ±1 targets.
func bruteLOO(x *mat.Dense, y []int, k int, alpha float64) float64 {
	n, p := x.Dims()
	sum := 0.0
	for out := range n {
		var xs, ys []float64
		for i := range n {
			if i == out {
				continue
			}
			xs = append(xs, x.RawRowView(i)...)
			for c := range k {
				ys = append(ys, map[bool]float64{true: 1, false: -1}[y[i] == c])
			}
		}
		xr, yr := mat.NewDense(n-1, p, xs), mat.NewDense(n-1, k, ys)
		xm, ym := centre(xr), centre(yr)
		var a mat.Dense
		a.Mul(xr.T(), xr)
		for j := range p {
			a.Set(j, j, a.At(j, j)+alpha)
		}
		var b, beta mat.Dense
		b.Mul(xr.T(), yr)
		if err := beta.Solve(&a, &b); err != nil {
			panic(err)
		}
		for c := range k {
			pred := ym[c]
			for j := range p {
				pred += (x.At(out, j) - xm[j]) * beta.At(j, c)
			}
			e := map[bool]float64{true: 1, false: -1}[y[out] == c] - pred
			sum += e * e
		}
	}
	return sum / float64(n*k)
}

// TestRidgeBadInput: mismatched rows and labels, one class, a bad alpha.
func TestRidgeBadInput(t *testing.T) {
	x := mat.NewDense(3, 2, []float64{1, 2, 3, 4, 5, 6})
	for _, tc := range []struct {
		y      []int
		alphas []float64
	}{
		{[]int{0, 1}, DefaultAlphas()},
		{[]int{1, 1, 1}, DefaultAlphas()},
		{[]int{0, 1, 0}, []float64{0}},
		{[]int{0, 1, 0}, nil},
	} {
		if _, err := FitRidge(mat.DenseCopyOf(x), tc.y, tc.alphas, RidgeOptions{Normalize: true}); err == nil {
			t.Errorf("y=%v alphas=%v: no error", tc.y, tc.alphas)
		}
	}
}

// TestRidgeUnscaled: without Normalize the features are only centred:
// the leave-one-out errors are those of refitting on the raw features
// (bruteLOO), and the fit equals the normalised one on features divided
// beforehand by their centred norms (same alpha, same scores), which is
// all normalize does.
func TestRidgeUnscaled(t *testing.T) {
	for _, shape := range [][2]int{{9, 3}, {6, 11}} {
		n, p := shape[0], shape[1]
		rng := rand.New(rand.NewPCG(uint64(n), 5))
		x := mat.NewDense(n, p, nil)
		x.Apply(func(i, j int, _ float64) float64 { return rng.NormFloat64()*float64(j+1) + float64(j) }, x)
		y := make([]int, n)
		for i := range y {
			y[i] = i % 3
		}
		alphas := []float64{1e-2, 0.3, 1, 10}
		raw := mat.DenseCopyOf(x)
		r, err := FitRidge(mat.DenseCopyOf(x), y, alphas, RidgeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for ai, alpha := range alphas {
			if want := bruteLOO(raw, y, 3, alpha); math.Abs(r.LOOError[ai]-want) > 1e-9*math.Max(1, want) {
				t.Errorf("n=%d p=%d alpha=%v: LOO error %v, brute force %v", n, p, alpha, r.LOOError[ai], want)
			}
		}
		// Divide each column by its centred norm, then fit with Normalize
		// on x itself: the same model.
		pre := mat.DenseCopyOf(x)
		centred := mat.DenseCopyOf(x)
		centre(centred)
		for j := range p {
			norm := floats.Norm(mat.Col(nil, j, centred), 2)
			for i := range n {
				pre.Set(i, j, x.At(i, j)/norm)
			}
		}
		rn, err := FitRidge(mat.DenseCopyOf(x), y, alphas, RidgeOptions{Normalize: true})
		if err != nil {
			t.Fatal(err)
		}
		ru, err := FitRidge(mat.DenseCopyOf(pre), y, alphas, RidgeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		sn, _ := rn.Scores(raw)
		su, _ := ru.Scores(pre)
		if rn.Alpha != ru.Alpha || !mat.EqualApprox(sn, su, 1e-9) {
			t.Errorf("n=%d p=%d: normalised alpha %v scores %v; prescaled alpha %v scores %v", n, p, rn.Alpha, mat.Formatted(sn), ru.Alpha, mat.Formatted(su))
		}
	}
}
