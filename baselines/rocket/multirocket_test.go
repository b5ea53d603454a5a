package rocket

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestPoolByHand: the four statistics of 1, 3, −1, 2, 2, 0, 5 against
// 0.5, worked out by hand: five values above (PPV 5/7) at positions
// 0, 1, 3, 4, 6 (MIPV 14/5); MPV the mean of value + bias, (1.5 + 3.5 +
// 2.5 + 2.5 + 5.5)/5 = 3.1; values below at positions 2 and 5, so the
// steps 0→2, 2→5 and 5→6 (the end), LSPV 3.
func TestPoolByHand(t *testing.T) {
	got := Pool([]float32{1, 3, -1, 2, 2, 0, 5}, 0.5)
	want := Pooled{PPV: 5.0 / 7, LSPV: 3, MPV: 3.1, MIPV: 2.8}
	if got != want {
		t.Errorf("Pool = %+v, want %+v", got, want)
	}
}

// TestPoolEdges: no value above the bias (MPV 0, MIPV −1; all below:
// LSPV 1, the steps between them; all equal: nothing ends a stretch, LSPV
// len − 1), every value above (LSPV len − 1), one value.
func TestPoolEdges(t *testing.T) {
	for _, c := range []struct {
		c    []float32
		bias float32
		want Pooled
	}{
		{[]float32{-1, -2, -3}, 0, Pooled{PPV: 0, LSPV: 1, MPV: 0, MIPV: -1}},
		{[]float32{0, 0, 0}, 0, Pooled{PPV: 0, LSPV: 2, MPV: 0, MIPV: -1}},
		{[]float32{1, 1, 1, 1}, 0, Pooled{PPV: 1, LSPV: 3, MPV: 1, MIPV: 1.5}},
		{[]float32{-4, 2, 2, -4}, 1, Pooled{PPV: 0.5, LSPV: 3, MPV: 3, MIPV: 1.5}},
		{[]float32{5}, 0, Pooled{PPV: 1, LSPV: 0, MPV: 5, MIPV: 0}},
	} {
		if got := Pool(c.c, c.bias); got != c.want {
			t.Errorf("Pool(%v, %v) = %+v, want %+v", c.c, c.bias, got, c.want)
		}
	}
}

// TestDiffLag: with lag 1 the four left taps move one step towards the
// centre. Kernel 0 (weights 2 on taps 0–2) on 1..10 at t = 5, dilation 1:
// taps at offsets −3, −2, −1, 0 | 0 | 1…4 read 3, 4, 5, 6 | 6 | 7…10, so
// 2·(3+4+5) − (6+6+7+8+9+10) = −22; without the lag −27.
func TestDiffLag(t *testing.T) {
	x := []float32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	c := newConvolver(len(x))
	for _, tc := range []struct {
		lag  int
		want float32
	}{{0, -27}, {1, -22}} {
		c.setDilation(x, 1, tc.lag)
		if got := c.kernel(kernels()[0])[5]; got != tc.want {
			t.Errorf("lag %d: %v, want %v", tc.lag, got, tc.want)
		}
	}
}

// intSeries returns n series of the given length with small integer
// values, so that every convolution is exact in float32.
func intSeries(n, length int, seed uint64) [][]float32 {
	rng := rand.New(rand.NewPCG(seed, 1))
	x := make([][]float32, n)
	for i := range x {
		x[i] = make([]float32, length)
		for j := range x[i] {
			x[i][j] = float32(rng.IntN(11) - 5)
		}
	}
	return x
}

// TestMultiRocketShape: the first-difference representation is one step
// shorter and gets the dilations and feature counts of its own length;
// aeon's defaults make 74 biases per kernel on each (6,216) and 49,728
// features; a series of length 9 (differences of length 8) is refused.
func TestMultiRocketShape(t *testing.T) {
	x := intSeries(6, 40, 1)
	m, err := FitMultiRocket(x, DefaultMultiRocketKernels, DefaultMaxDilations, 3)
	if err != nil {
		t.Fatal(err)
	}
	if m.Base.Length != 40 || m.Diff.Length != 39 {
		t.Errorf("lengths %d, %d; want 40, 39", m.Base.Length, m.Diff.Length)
	}
	for _, c := range []struct {
		tr     *Transform
		length int
	}{{m.Base, 40}, {m.Diff, 39}} {
		dil, per, err := Dilations(c.length, DefaultMultiRocketKernels, DefaultMaxDilations)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(c.tr.Dilations, dil) || !slices.Equal(c.tr.FeaturesPerDilation, per) || c.tr.NumFeatures() != 6216 {
			t.Errorf("length %d: dilations %v × %v (%d biases), want %v × %v (6216)", c.length, c.tr.Dilations, c.tr.FeaturesPerDilation, c.tr.NumFeatures(), dil, per)
		}
	}
	// The differences' 32 exponents spread over [0, log2(38/8) = 2.25]:
	// 2 to them, truncated, gives 1, 2, 3, 4.
	if !slices.Equal(m.Diff.Dilations, []int{1, 2, 3, 4}) {
		t.Errorf("difference dilations %v, want [1 2 3 4]", m.Diff.Dilations)
	}
	if m.NumFeatures() != 49_728 {
		t.Errorf("%d features, want 49728", m.NumFeatures())
	}
	if _, err := FitMultiRocket(intSeries(3, 9, 1), 1000, 32, 1); err == nil || !strings.Contains(err.Error(), "length 9") {
		t.Errorf("length 9: %v, want a refusal", err)
	}
}

// TestMultiRocketFeatures: Apply's features are Pool of the right output
// at the right columns. Feature 0 (kernel 0, dilation index 0: the whole
// padded output) and feature per[0] (kernel 1: the unpadded middle) of
// the series, and the same two of the differences, whose left taps carry
// the lag; each output recomputed here from the definition.
func TestMultiRocketFeatures(t *testing.T) {
	x := intSeries(5, 30, 2)
	m, err := FitMultiRocket(x, 1000, 8, 4)
	if err != nil {
		t.Fatal(err)
	}
	feats, err := m.Apply(x, 2)
	if err != nil {
		t.Fatal(err)
	}
	nb, nd := m.Base.NumFeatures(), m.Diff.NumFeatures()
	if _, cols := feats.Dims(); cols != 4*(nb+nd) {
		t.Fatalf("%d columns, want %d", cols, 4*(nb+nd))
	}
	for i, s := range x {
		row := feats.RawRowView(i)
		for _, rep := range []struct {
			tr     *Transform
			series []float32
			lag    int
			cols   []float64
		}{{m.Base, s, 0, row[:4*nb]}, {m.Diff, Diff(x)[i], 1, row[4*nb:]}} {
			n := rep.tr.NumFeatures()
			d := rep.tr.Dilations[0]
			for k, f := range []int{0, rep.tr.FeaturesPerDilation[0]} {
				conv := convolveByDefinition(rep.series, Weights(k), d, rep.lag)
				if k == 1 {
					pad := 4 * d
					conv = conv[pad : len(conv)-pad]
				}
				want := Pool(conv, rep.tr.Biases[f])
				got := Pooled{PPV: rep.cols[f], LSPV: rep.cols[n+f], MPV: rep.cols[2*n+f], MIPV: rep.cols[3*n+f]}
				if got != want {
					t.Errorf("series %d, lag %d, kernel %d: %+v, want %+v", i, rep.lag, k, got, want)
				}
			}
		}
	}
}

// convolveByDefinition returns Σ_j w_j·s[t+o_j] with o_j = (j−4)·d, plus
// lag for j < 4, s zero outside.
func convolveByDefinition(s []float32, w [KernelLength]float32, d, lag int) []float32 {
	out := make([]float32, len(s))
	for t := range s {
		for j, wj := range w {
			o := (j - 4) * d
			if j < 4 {
				o += lag
			}
			if u := t + o; u >= 0 && u < len(s) {
				out[t] += wj * s[u]
			}
		}
	}
	return out
}

// TestHydraDilations: 2⁰ … 2^⌊log2((L−1)/8)⌋, the exponent truncated
// towards zero as aeon does, so lengths 6–16 get dilation 1 and 5 none.
func TestHydraDilations(t *testing.T) {
	for _, c := range []struct {
		length int
		want   []int
	}{{6, []int{1}}, {9, []int{1}}, {16, []int{1}}, {17, []int{1, 2}}, {24, []int{1, 2}}, {150, []int{1, 2, 4, 8, 16}}} {
		got, err := HydraDilations(c.length)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("HydraDilations(%d) = %v, %v; want %v", c.length, got, err, c.want)
		}
	}
	if _, err := HydraDilations(5); err == nil {
		t.Error("length 5: no error")
	}
}

// TestFitHydra: aeon's shapes (8 kernels × 32 groups per dilation and
// representation, 1,024 features per dilation) and every kernel centred
// with absolute weights summing to 1.
func TestFitHydra(t *testing.T) {
	h, err := FitHydra(150, DefaultHydraKernels, DefaultHydraGroups, 7)
	if err != nil {
		t.Fatal(err)
	}
	if h.NumFeatures() != 5*1024 || len(h.Weights) != 5 || len(h.Weights[0]) != 2 || len(h.Weights[0][1]) != 256 {
		t.Fatalf("%d features, weights %d × %d × %d", h.NumFeatures(), len(h.Weights), len(h.Weights[0]), len(h.Weights[0][1]))
	}
	for _, reps := range h.Weights {
		for _, ws := range reps {
			for _, w := range ws {
				sum, abs := 0.0, 0.0
				for _, v := range w {
					sum += float64(v)
					abs += math.Abs(float64(v))
				}
				if math.Abs(sum) > 1e-6 || math.Abs(abs-1) > 1e-6 {
					t.Fatalf("kernel %v: sum %v, absolute sum %v", w, sum, abs)
				}
			}
		}
	}
}

// TestHydraCountsByHand: k = 2, g = 2 (one group on the series, one on
// its differences), dilation 1. Series 1, −2, 0, 3 with kernels "x[t]"
// and "−x[t]": the first wins where x > 0 and on the tie at x = 0 (the
// first kernel takes ties), the second where x < 0: count-max 1+0+3 = 4
// and 2, count-min 2 (t = 1, 2) and 2. Differences −3, 2, 3 with kernels
// "dx[t+1]" and "dx[t−1]" (zero outside): outputs (2, 0), (3, −3), (0,
// 2): count-max 5 and 2, count-min 1 and 2.
func TestHydraCountsByHand(t *testing.T) {
	var self, neg, next, prev [KernelLength]float32
	self[4], neg[4], next[5], prev[3] = 1, -1, 1, 1
	h := &Hydra{Length: 4, K: 2, G: 2, Dilations: []int{1},
		Weights: [][][][KernelLength]float32{{{self, neg}, {next, prev}}}}
	feats, err := h.Apply([][]float32{{1, -2, 0, 3}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := feats.RawRowView(0), []float64{4, 2, 2, 2, 5, 2, 1, 2}; !slices.Equal(got, want) {
		t.Errorf("features %v, want %v", got, want)
	}
}
