package rocket

import (
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// DefaultMultiRocketKernels is aeon's default n_kernels for MultiRocket
// (6,250): 6,250/84 = 74 features per kernel on each representation, so
// 84 × 74 = 6,216 biases per representation and 4 × 2 × 6,216 = 49,728
// features.
const DefaultMultiRocketKernels = 6_250

// NumPooled is the number of statistics MultiRocket pools from each
// output and bias: PPV, LSPV, MPV, MIPV.
const NumPooled = 4

// MultiRocket is a fitted MultiRocket transform (Tan, Dempster, Bergmeir
// & Webb, "MultiRocket: multiple pooling operators and transformations
// for fast and effective time series classification", DMKD 2022): one
// MiniRocket transform fitted on the series (Base) and one on their first
// differences (Diff), each with the dilations and biases of its own
// representation.
type MultiRocket struct {
	Base, Diff *Transform
}

// FitMultiRocket fits MultiRocket to the training series x (one length,
// at least KernelLength+1 so that the first differences have a kernel's
// length): MiniRocket's dilations and biases (numFeatures and
// maxDilations as in Fit; aeon's defaults are DefaultMultiRocketKernels
// and DefaultMaxDilations) on x, then on the first differences of x, the
// training series of both drawn from one PCG generator seeded with seed.
func FitMultiRocket(x [][]float32, numFeatures, maxDilations int, seed uint64) (*MultiRocket, error) {
	if len(x) == 0 {
		return nil, fmt.Errorf("multirocket: no training series")
	}
	if len(x[0]) < KernelLength+1 {
		return nil, fmt.Errorf("multirocket: series length %d: need at least %d, so that the first differences are as long as a kernel", len(x[0]), KernelLength+1)
	}
	rng := rand.New(rand.NewPCG(seed, 0x6d756c7469726f63)) // "multiroc"
	base, err := fit(x, numFeatures, maxDilations, rng)
	if err != nil {
		return nil, fmt.Errorf("multirocket, series: %w", err)
	}
	diff, err := fit(Diff(x), numFeatures, maxDilations, rng)
	if err != nil {
		return nil, fmt.Errorf("multirocket, first differences: %w", err)
	}
	return &MultiRocket{Base: base, Diff: diff}, nil
}

// Diff returns the first differences of each series, x[t+1] − x[t]: one
// step shorter.
func Diff(x [][]float32) [][]float32 {
	out := make([][]float32, len(x))
	for i, s := range x {
		out[i] = diff(s, nil)
	}
	return out
}

// diff writes the first differences of s into dst (reused if long
// enough) and returns them.
func diff(s, dst []float32) []float32 {
	dst = dst[:0]
	for t := 1; t < len(s); t++ {
		dst = append(dst, s[t]-s[t-1])
	}
	return dst
}

// NumFeatures returns the number of features Apply makes per series:
// NumPooled per bias of each representation.
func (m *MultiRocket) NumFeatures() int {
	return NumPooled * (m.Base.NumFeatures() + m.Diff.NumFeatures())
}

// Apply returns the features of the series x, one row per series, in
// aeon's order: the series' PPV of every bias (in MiniRocket's feature
// order), then its LSPV, MPV and MIPV, then the same four blocks for the
// first differences. The outputs are MiniRocket's, with its alternation
// of padded and unpadded outputs, but for one quirk kept from aeon and
// the authors' code: on the first differences, the four taps left of the
// kernel's centre sit one step closer to it than the dilation says (their
// convolution indexes the differences as if they were as long as the
// series), while the biases were fitted with the taps where they belong.
// Rows are computed by up to workers goroutines; the result does not
// depend on their number.
func (m *MultiRocket) Apply(x [][]float32, workers int) (*mat.Dense, error) {
	if len(x) == 0 {
		return nil, fmt.Errorf("multirocket: no series to transform")
	}
	out := mat.NewDense(len(x), m.NumFeatures(), nil)
	if err := m.applyTo(x, out, workers); err != nil {
		return nil, err
	}
	return out, nil
}

// applyTo writes Apply's features into out (len(x) × NumFeatures, may be
// a view).
func (m *MultiRocket) applyTo(x [][]float32, out *mat.Dense, workers int) error {
	if err := checkLength(x, m.Base.Length); err != nil {
		return fmt.Errorf("multirocket: %w", err)
	}
	nb, nd := m.Base.NumFeatures(), m.Diff.NumFeatures()
	forEachRow(len(x), workers, func() func(int) {
		cb, cd := newConvolver(m.Base.Length), newConvolver(m.Diff.Length)
		var dx []float32
		return func(i int) {
			row := out.RawRowView(i)
			m.Base.outputs(x[i], cb, 0, func(f int, conv []float32) {
				Pool(conv, m.Base.Biases[f]).put(row, f, nb)
			})
			dx = diff(x[i], dx)
			row = row[NumPooled*nb:]
			m.Diff.outputs(dx, cd, 1, func(f int, conv []float32) {
				Pool(conv, m.Diff.Biases[f]).put(row, f, nd)
			})
		}
	})
	return nil
}

// Pooled are MultiRocket's four statistics of one output c against one
// bias b, as aeon and the authors' code compute them.
type Pooled struct {
	// PPV is the share of c above b.
	PPV float64
	// LSPV is the longest stretch of positive values as the reference
	// measures it: the largest step between successive positions where c
	// is below b, counting from position 0 and to the last position. A
	// run of r values above b between two below it measures r + 1, a
	// run at either end r; values equal to b neither count as positive
	// nor end a stretch. With every value above b it is len(c) − 1.
	LSPV float64
	// MPV is the mean of c + b over the positions where c is above b (0
	// if none). The paper defines the mean of c − b; the reference adds
	// the bias, and so does this.
	MPV float64
	// MIPV is the mean index of the positions where c is above b (−1 if
	// none).
	MIPV float64
}

// Pool returns the four statistics of c (not empty) against bias.
func Pool(c []float32, bias float32) Pooled {
	n, idx, sum := 0, 0, 0.0
	last, longest := 0, 0
	for j, v := range c {
		switch {
		case v > bias:
			n++
			idx += j
			sum += float64(v + bias)
		case v < bias:
			longest = max(longest, j-last)
			last = j
		}
	}
	longest = max(longest, len(c)-1-last)
	p := Pooled{PPV: float64(n) / float64(len(c)), LSPV: float64(longest), MIPV: -1}
	if n > 0 {
		p.MPV = sum / float64(n)
		p.MIPV = float64(idx) / float64(n)
	}
	return p
}

// put writes p into row at feature f of a representation of n biases:
// PPV at f, LSPV at n+f, MPV at 2n+f, MIPV at 3n+f.
func (p Pooled) put(row []float64, f, n int) {
	row[f] = p.PPV
	row[n+f] = p.LSPV
	row[2*n+f] = p.MPV
	row[3*n+f] = p.MIPV
}
