package rocket

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"

	"gonum.org/v1/gonum/mat"
)

// KernelLength is the length of every MiniRocket kernel.
const KernelLength = 9

// NumKernels is the number of MiniRocket kernels: the 9-choose-3 ways to
// place the three weights 2 among nine weights −1.
const NumKernels = 84

// DefaultNumFeatures is the number of features the reference asks for by
// default; the transform makes the largest multiple of NumKernels not above
// it (9,996).
const DefaultNumFeatures = 10_000

// DefaultMaxDilations is the reference's default cap on the number of
// dilations per kernel.
const DefaultMaxDilations = 32

// kernels returns the 84 kernels as the positions (0..8) of their three
// weights 2, in lexicographic order: (0,1,2), (0,1,3), …, (6,7,8).
func kernels() [NumKernels][3]int {
	var ks [NumKernels][3]int
	k := 0
	for a := 0; a < KernelLength; a++ {
		for b := a + 1; b < KernelLength; b++ {
			for c := b + 1; c < KernelLength; c++ {
				ks[k] = [3]int{a, b, c}
				k++
			}
		}
	}
	return ks
}

// Weights returns kernel k's nine weights: 2 at its three chosen positions,
// −1 elsewhere (they sum to 0).
func Weights(k int) [KernelLength]float32 {
	var w [KernelLength]float32
	for j := range w {
		w[j] = -1
	}
	for _, j := range kernels()[k] {
		w[j] = 2
	}
	return w
}

// Transform is a fitted MiniRocket transform: its dilations, the number of
// features of each dilation (per kernel) and one bias per feature.
type Transform struct {
	// Length is the series length it was fitted on; Apply takes only that.
	Length int
	// Dilations are the kernels' dilations, ascending, and
	// FeaturesPerDilation the number of features (biases) each kernel has
	// at each of them.
	Dilations, FeaturesPerDilation []int
	// Biases holds one bias per feature, in feature order: dilation-major,
	// then kernel, then the dilation's features.
	Biases []float32
}

// NumFeatures returns the number of features Apply makes per series.
func (t *Transform) NumFeatures() int { return len(t.Biases) }

// Dilations returns the dilations of a series of the given length and how
// many features each kernel gets at each, as the reference chooses them:
// maxDilations exponents spaced evenly on [0, log2((length−1)/8)], 2 raised
// to them and truncated to integers, duplicates merged with their counts
// scaled by (features per kernel)/(dilations used) and truncated, the
// shortfall then dealt one by one from the smallest dilation up.
func Dilations(length, numFeatures, maxDilations int) (dilations, perDilation []int, err error) {
	if length < KernelLength {
		return nil, nil, fmt.Errorf("minirocket: series length %d is shorter than the kernel length %d", length, KernelLength)
	}
	perKernel := numFeatures / NumKernels
	if perKernel < 1 || maxDilations < 1 {
		return nil, nil, fmt.Errorf("minirocket: %d features and %d dilations per kernel: need at least %d features and 1 dilation", numFeatures, maxDilations, NumKernels)
	}
	n := min(perKernel, maxDilations)
	multiplier := float64(perKernel) / float64(n)
	maxExp := math.Log2(float64(length-1) / float64(KernelLength-1))
	step := 0.0
	if n > 1 {
		step = maxExp / float64(n-1)
	}
	for i := range n {
		e := float64(i) * step
		if i == n-1 {
			e = maxExp // linspace ends exactly on its stop
		}
		d := int(math.Pow(2, e))
		if len(dilations) > 0 && dilations[len(dilations)-1] == d {
			perDilation[len(perDilation)-1]++
			continue
		}
		dilations = append(dilations, d)
		perDilation = append(perDilation, 1)
	}
	total := 0
	for i, c := range perDilation {
		perDilation[i] = int(float64(c) * multiplier)
		total += perDilation[i]
	}
	for i := 0; total < perKernel; i = (i + 1) % len(perDilation) {
		perDilation[i]++
		total++
	}
	return dilations, perDilation, nil
}

// Quantiles returns the n quantiles the biases are drawn at: the
// low-discrepancy sequence frac(k·φ), k = 1..n, φ the golden ratio, in
// float32 as the reference stores them.
func Quantiles(n int) []float32 {
	phi := (math.Sqrt(5) + 1) / 2
	q := make([]float32, n)
	for k := range q {
		q[k] = float32(math.Mod(float64(k+1)*phi, 1))
	}
	return q
}

// Quantile returns the q-quantile of sorted (ascending, not empty) by
// linear interpolation between order statistics, NumPy's default
// ("linear", Hyndman & Fan type 7): position q·(n−1). gonum's
// stat.Quantile offers the empirical CDF and type 4, not this one.
func Quantile(sorted []float32, q float64) float64 {
	h := q * float64(len(sorted)-1)
	lo := int(math.Floor(h))
	if lo >= len(sorted)-1 {
		return float64(sorted[len(sorted)-1])
	}
	a, b := float64(sorted[lo]), float64(sorted[lo+1])
	return a + (h-float64(lo))*(b-a)
}

// PPV returns the proportion of positive values of c − bias: the share of
// c strictly above bias.
func PPV(c []float32, bias float32) float64 {
	n := 0
	for _, v := range c {
		if v > bias {
			n++
		}
	}
	return float64(n) / float64(len(c))
}

// convolver holds one series' per-dilation terms: −Σ of the nine shifted
// copies, and 3× each shifted copy; a kernel's output is the first plus
// the three copies at its weights 2 (weights −1 + 3 = 2).
type convolver struct {
	alpha []float32
	gamma [KernelLength][]float32
	out   []float32
}

func newConvolver(length int) *convolver {
	c := &convolver{alpha: make([]float32, length), out: make([]float32, length)}
	for j := range c.gamma {
		c.gamma[j] = make([]float32, length)
	}
	return c
}

// setDilation computes x's terms at dilation d, with zero padding:
// gamma[j][t] = 3·x[t+o_j] and alpha[t] = −Σ_j x[t+o_j], where the offset
// o_j is (j−4)·d, plus lag for the four taps left of the centre (j < 4).
// lag is 0 but for the quirk of MultiRocket's first-difference
// representation (see MultiRocket.Apply), where it is 1.
func (c *convolver) setDilation(x []float32, d, lag int) {
	n := len(x)
	for t, v := range x {
		c.alpha[t] = -v
	}
	// The eight off-centre shifts, in the reference's order.
	for _, j := range [...]int{0, 1, 2, 3, 5, 6, 7, 8} {
		off := (j - KernelLength/2) * d
		if j < KernelLength/2 {
			off += lag
		}
		g := c.gamma[j]
		for t := range n {
			s := t + off
			if s < 0 || s >= n {
				g[t] = 0
				continue
			}
			c.alpha[t] += -x[s]
			g[t] = 3 * x[s]
		}
	}
	for t, v := range x {
		c.gamma[KernelLength/2][t] = 3 * v
	}
}

// kernel returns the output of kernel k (of kernels()) at the dilation
// set last, over the whole series (zero padded): a slice of c.out.
func (c *convolver) kernel(idx [3]int) []float32 {
	a, g0, g1, g2 := c.alpha, c.gamma[idx[0]], c.gamma[idx[1]], c.gamma[idx[2]]
	for t := range c.out {
		c.out[t] = a[t] + g0[t] + g1[t] + g2[t]
	}
	return c.out
}

// Convolve returns kernel k's output on x at dilation d: the length-9
// kernel of Weights(k), its taps d apart and centred, x padded with zeros
// (output t is Σ_j w_j·x[t+(j−4)d]).
func Convolve(x []float32, k, d int) []float32 {
	c := newConvolver(len(x))
	c.setDilation(x, d, 0)
	return slices.Clone(c.kernel(kernels()[k]))
}

// Fit fits the transform to the training series x (all of one length):
// the dilations of their length, and each feature's bias, the feature's
// quantile of the output of its kernel and dilation on one training series
// drawn at random (uniformly, one draw per kernel and dilation in feature
// order, from a PCG generator seeded with seed). numFeatures and
// maxDilations are the reference's num_features and
// max_dilations_per_kernel (DefaultNumFeatures, DefaultMaxDilations).
func Fit(x [][]float32, numFeatures, maxDilations int, seed uint64) (*Transform, error) {
	rng := rand.New(rand.NewPCG(seed, 0x6d696e69726f636b)) // "minirock"
	return fit(x, numFeatures, maxDilations, rng)
}

// fit is Fit drawing the training series from rng, so that MultiRocket's
// two representations can share one generator.
func fit(x [][]float32, numFeatures, maxDilations int, rng *rand.Rand) (*Transform, error) {
	if len(x) == 0 {
		return nil, fmt.Errorf("minirocket: no training series")
	}
	length := len(x[0])
	if err := checkLength(x, length); err != nil {
		return nil, err
	}
	dil, per, err := Dilations(length, numFeatures, maxDilations)
	if err != nil {
		return nil, err
	}
	t := &Transform{Length: length, Dilations: dil, FeaturesPerDilation: per}
	perKernel := 0
	for _, p := range per {
		perKernel += p
	}
	quantiles := Quantiles(NumKernels * perKernel)
	t.Biases = make([]float32, len(quantiles))
	ks := kernels()
	c := newConvolver(length)
	sorted := make([]float32, length)
	f := 0
	for di, d := range dil {
		for k := range NumKernels {
			ex := rng.IntN(len(x))
			c.setDilation(x[ex], d, 0)
			copy(sorted, c.kernel(ks[k]))
			slices.Sort(sorted)
			for range per[di] {
				t.Biases[f] = float32(Quantile(sorted, float64(quantiles[f])))
				f++
			}
		}
	}
	return t, nil
}

// checkLength reports a series of x whose length is not length.
func checkLength(x [][]float32, length int) error {
	for i, s := range x {
		if len(s) != length {
			return fmt.Errorf("minirocket: series %d has length %d, the transform's is %d (MiniRocket needs series of one length)", i, len(s), length)
		}
		for j, v := range s {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return fmt.Errorf("minirocket: series %d has %v at step %d: impute missing values first", i, v, j)
			}
		}
	}
	return nil
}

// Apply returns the features of the series x, one row per series, in
// NumFeatures columns: the PPV of each kernel's output at each dilation
// against each of its biases. As in the reference, the output is taken
// over the whole zero-padded series or over its unpadded middle only (the
// positions where the kernel lies wholly inside the series), alternating
// by kernel and dilation: the middle only where dilation index + kernel
// index is odd. Rows are computed by up to workers goroutines (at least
// one); the result does not depend on their number.
func (t *Transform) Apply(x [][]float32, workers int) (*mat.Dense, error) {
	if len(x) == 0 {
		return nil, fmt.Errorf("minirocket: no series to transform")
	}
	if err := checkLength(x, t.Length); err != nil {
		return nil, err
	}
	out := mat.NewDense(len(x), t.NumFeatures(), nil)
	forEachRow(len(x), workers, func() func(int) {
		c := newConvolver(t.Length)
		return func(i int) {
			row := out.RawRowView(i)
			t.outputs(x[i], c, 0, func(f int, conv []float32) {
				row[f] = PPV(conv, t.Biases[f])
			})
		}
	})
	return out, nil
}

// outputs calls pool once per feature f, in feature order, with the output
// of f's kernel at f's dilation on x (the convolver c's length), taken
// over the whole zero-padded series or its unpadded middle as Apply says;
// lag is setDilation's. conv is reused: pool must not keep it.
func (t *Transform) outputs(x []float32, c *convolver, lag int, pool func(f int, conv []float32)) {
	ks := kernels()
	f := 0
	for di, d := range t.Dilations {
		c.setDilation(x, d, lag)
		pad := (KernelLength - 1) * d / 2
		for k := range NumKernels {
			conv := c.kernel(ks[k])
			if (di+k)%2 == 1 {
				conv = conv[pad : len(conv)-pad]
			}
			for range t.FeaturesPerDilation[di] {
				pool(f, conv)
				f++
			}
		}
	}
}

// forEachRow calls, for each row i in [0, n), a function that newWorker
// returned, on up to workers goroutines (at least one): each goroutine
// calls newWorker once (for its own scratch space) and then its result
// for the rows it takes.
func forEachRow(n, workers int, newWorker func() func(i int)) {
	rows := make(chan int)
	var wg sync.WaitGroup
	for range max(1, min(workers, n)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			work := newWorker()
			for i := range rows {
				work(i)
			}
		}()
	}
	for i := range n {
		rows <- i
	}
	close(rows)
	wg.Wait()
}
