package rocket

import (
	"math"
	"slices"
	"testing"
)

// TestKernels: 84 distinct kernels of nine weights, three 2s and six −1s,
// the first (0,1,2) and the last (6,7,8).
func TestKernels(t *testing.T) {
	seen := map[[KernelLength]float32]bool{}
	for k := range NumKernels {
		w := Weights(k)
		twos, sum := 0, float32(0)
		for _, v := range w {
			if v == 2 {
				twos++
			} else if v != -1 {
				t.Fatalf("kernel %d has weight %v", k, v)
			}
			sum += v
		}
		if twos != 3 || sum != 0 {
			t.Errorf("kernel %d: %d weights 2, sum %v; want 3 and 0", k, twos, sum)
		}
		seen[w] = true
	}
	if len(seen) != NumKernels {
		t.Errorf("%d distinct kernels, want %d", len(seen), NumKernels)
	}
	if w := Weights(0); w != [KernelLength]float32{2, 2, 2, -1, -1, -1, -1, -1, -1} {
		t.Errorf("kernel 0 = %v", w)
	}
	if w := Weights(83); w != [KernelLength]float32{-1, -1, -1, -1, -1, -1, 2, 2, 2} {
		t.Errorf("kernel 83 = %v", w)
	}
}

// TestConvolveByHand: kernel 0 (weights 2,2,2,−1,…,−1) on 1..10, zero
// padded, worked out by hand at a few positions and two dilations.
func TestConvolveByHand(t *testing.T) {
	x := []float32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	c1 := Convolve(x, 0, 1)
	for _, c := range []struct {
		t    int
		want float32
	}{
		{0, -(1 + 2 + 3 + 4 + 5)},                // taps −4..4: only x[0..4], weights −1
		{4, 2*(1+2+3) - (4 + 5 + 6 + 7 + 8 + 9)}, // −27
		{9, 2*(6+7+8) - (9 + 10)},                // taps 5..13: x[5..9]
	} {
		if c1[c.t] != c.want {
			t.Errorf("dilation 1, t=%d: %v, want %v", c.t, c1[c.t], c.want)
		}
	}
	// Dilation 2 at t=5: taps at −3,−1,1,3,5,7,9,11,13; x[1]=2 has weight 2
	// (tap 2), x[3],x[5],x[7],x[9] weight −1.
	if got, want := Convolve(x, 0, 2)[5], float32(2*2-(4+6+8+10)); got != want {
		t.Errorf("dilation 2, t=5: %v, want %v", got, want)
	}
	// A constant series gives 0 wherever the kernel lies inside it (the
	// weights sum to 0).
	ones := slices.Repeat([]float32{1}, 20)
	for k := range NumKernels {
		c := Convolve(ones, k, 2)
		for i := 8; i < 12; i++ {
			if c[i] != 0 {
				t.Fatalf("kernel %d on a constant series: %v at %d", k, c[i], i)
			}
		}
	}
}

// TestPPV: the share of values strictly above the bias.
func TestPPV(t *testing.T) {
	c := []float32{-1, 0, 2, 3, 0.5}
	for _, tc := range []struct {
		bias float32
		want float64
	}{{0.5, 0.4}, {0, 0.6}, {-2, 1}, {3, 0}} {
		if got := PPV(c, tc.bias); got != tc.want {
			t.Errorf("PPV(%v, %v) = %v, want %v", c, tc.bias, got, tc.want)
		}
	}
}

// TestQuantile: NumPy's linear interpolation at position q·(n−1).
func TestQuantile(t *testing.T) {
	s := []float32{1, 2, 3, 4}
	for _, tc := range []struct{ q, want float64 }{{0, 1}, {1, 4}, {0.5, 2.5}, {1.0 / 3, 2}, {0.25, 1.75}} {
		if got := Quantile(s, tc.q); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("Quantile(%v, %v) = %v, want %v", s, tc.q, got, tc.want)
		}
	}
	q := Quantiles(3)
	for i, want := range []float64{0.6180340, 0.2360680, 0.8541020} {
		if math.Abs(float64(q[i])-want) > 1e-6 {
			t.Errorf("Quantiles(3)[%d] = %v, want %v", i, q[i], want)
		}
	}
}

// TestDilations: the reference's dilations and per-dilation counts, worked
// out by hand for short series, and their invariants for longer ones.
func TestDilations(t *testing.T) {
	for _, tc := range []struct {
		length   int
		dil, per []int
	}{
		{9, []int{1}, []int{119}},
		{15, []int{1}, []int{119}},
		// log2(16/8) = 1: 2^(i/31) < 2 for i < 31, so 31 × 1 and 1 × 2;
		// 31·119/32 = 115.3 → 115, 119/32 → 3, the one left over to the first.
		{17, []int{1, 2}, []int{116, 3}},
	} {
		dil, per, err := Dilations(tc.length, DefaultNumFeatures, DefaultMaxDilations)
		if err != nil || !slices.Equal(dil, tc.dil) || !slices.Equal(per, tc.per) {
			t.Errorf("Dilations(%d) = %v, %v, %v; want %v, %v", tc.length, dil, per, err, tc.dil, tc.per)
		}
	}
	for _, length := range []int{24, 150, 1250} {
		dil, per, err := Dilations(length, DefaultNumFeatures, DefaultMaxDilations)
		if err != nil {
			t.Fatal(err)
		}
		sum := 0
		for _, p := range per {
			sum += p
		}
		if sum != 119 || !slices.IsSorted(dil) || dil[0] != 1 || 8*dil[len(dil)-1] > length-1 {
			t.Errorf("length %d: dilations %v, counts %v (sum %d)", length, dil, per, sum)
		}
	}
	if _, _, err := Dilations(8, DefaultNumFeatures, DefaultMaxDilations); err == nil {
		t.Error("length 8: no error")
	}
}

// TestFitBiases: fitted on one series, every bias is its feature's
// quantile of that series' own output, so where the feature uses the whole
// output the series' PPV is 1 − q, within the ties a sample of L values
// allows (1/L either way, plus repeated values). The padding rule: a PPV
// over the whole output is a count over L, one over the unpadded middle a
// count over L − 8d.
func TestFitBiases(t *testing.T) {
	const L = 64
	x := make([]float32, L)
	for i := range x {
		x[i] = float32(math.Sin(float64(i)*0.37) + 0.01*float64(i*i%7))
	}
	tr, err := Fit([][]float32{x}, DefaultNumFeatures, DefaultMaxDilations, 1)
	if err != nil {
		t.Fatal(err)
	}
	if tr.NumFeatures() != 9996 {
		t.Fatalf("%d features, want 9996", tr.NumFeatures())
	}
	feats, err := tr.Apply([][]float32{x}, 2)
	if err != nil {
		t.Fatal(err)
	}
	q := Quantiles(tr.NumFeatures())
	f, checked := 0, 0
	for di := range tr.Dilations {
		for k := range NumKernels {
			for range tr.FeaturesPerDilation[di] {
				over := float64(L)
				if (di+k)%2 == 1 {
					over -= float64(8 * tr.Dilations[di])
				}
				if n := feats.At(0, f) * over; math.Abs(n-math.Round(n)) > 1e-9 {
					t.Fatalf("feature %d (dilation %d, kernel %d): PPV %v is no count over %v positions", f, tr.Dilations[di], k, feats.At(0, f), over)
				}
				if (di+k)%2 == 0 {
					if got, want := feats.At(0, f), 1-float64(q[f]); math.Abs(got-want) > 2.0/L {
						t.Fatalf("feature %d (dilation %d, kernel %d): PPV %v, want 1 − q = %v", f, tr.Dilations[di], k, got, want)
					}
					checked++
				}
				f++
			}
		}
	}
	if checked < 4000 {
		t.Fatalf("checked %d features", checked)
	}
}

// TestApplyDeterministic: the same seed gives the same biases and
// features for any number of workers; another seed gives other biases.
func TestApplyDeterministic(t *testing.T) {
	var x [][]float32
	for i := range 12 {
		s := make([]float32, 40)
		for j := range s {
			s[j] = float32(math.Cos(float64(i*j)*0.1) + float64(i%3))
		}
		x = append(x, s)
	}
	a, _ := Fit(x, DefaultNumFeatures, DefaultMaxDilations, 7)
	b, _ := Fit(x, DefaultNumFeatures, DefaultMaxDilations, 7)
	c, _ := Fit(x, DefaultNumFeatures, DefaultMaxDilations, 8)
	if !slices.Equal(a.Biases, b.Biases) || slices.Equal(a.Biases, c.Biases) {
		t.Fatal("biases: same seed differ, or another seed equal")
	}
	f1, _ := a.Apply(x, 1)
	f3, _ := a.Apply(x, 3)
	if !slices.Equal(f1.RawMatrix().Data, f3.RawMatrix().Data) {
		t.Error("features differ between 1 and 3 workers")
	}
	if _, err := a.Apply([][]float32{make([]float32, 39)}, 1); err == nil {
		t.Error("a series of another length: no error")
	}
	bad := [][]float32{slices.Repeat([]float32{float32(math.NaN())}, 40)}
	if _, err := Fit(bad, DefaultNumFeatures, DefaultMaxDilations, 1); err == nil {
		t.Error("NaN input: no error")
	}
}
