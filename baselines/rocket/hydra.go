package rocket

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// Hydra's defaults in aeon's MultiRocketHydraClassifier: 8 kernels per
// group, 64 groups per dilation.
const (
	DefaultHydraKernels = 8
	DefaultHydraGroups  = 64
)

// Hydra is a fitted Hydra transform (Dempster, Schmidt & Webb, "Hydra:
// competing convolutional kernels for fast and accurate time series
// classification", DMKD 2023) for univariate series, as aeon's
// HydraTransformer runs it: at each dilation, G groups of K random
// kernels of length 9, half the groups on the series and half on its
// first differences (all on the series when G is 1); at each time step
// each group's kernels compete, and each kernel's features are the sum of
// its output where it is the group's largest (count-max) and the number
// of steps where it is the smallest (count-min).
type Hydra struct {
	// Length is the series length it was made for.
	Length int
	// K is the number of kernels per group, G the number of groups.
	K, G int
	// Dilations are 2⁰, 2¹, …, 2^⌊log2((Length−1)/8)⌋.
	Dilations []int
	// Weights holds the kernels: Weights[di][r] are the Groups()·K
	// kernels (group-major) of dilation index di on representation r (0:
	// the series, 1: its first differences).
	Weights [][][][KernelLength]float32
}

// HydraDilations returns Hydra's dilations for series of the given
// length: 2⁰ … 2^e with e = log2((length−1)/8) truncated towards zero, as
// aeon computes them; so lengths 6 to 16 get dilation 1 alone, and a
// length under 6 none (an error, as aeon fails there too).
func HydraDilations(length int) ([]int, error) {
	e := math.Log2(float64(length-1) / float64(KernelLength-1))
	if length < 2 || int(e) < 0 {
		return nil, fmt.Errorf("hydra: series length %d has no dilation (need at least 6)", length)
	}
	var d []int
	for i := 0; i <= int(e); i++ {
		d = append(d, 1<<i)
	}
	return d, nil
}

// FitHydra draws Hydra's kernels for series of the given length: k
// kernels per group and g groups per dilation (DefaultHydraKernels,
// DefaultHydraGroups), each weight from a standard normal, each kernel
// then centred and divided by the sum of its absolute weights. The draws
// come from a PCG generator seeded with seed, in the order dilation,
// representation, kernel, weight: aeon draws the same shapes from torch's
// generator, which no seed here reproduces, so the kernels (not their
// distribution) differ from aeon's for any seed.
func FitHydra(length, k, g int, seed uint64) (*Hydra, error) {
	if k < 1 || g < 1 {
		return nil, fmt.Errorf("hydra: %d kernels per group and %d groups: need at least 1 of each", k, g)
	}
	dil, err := HydraDilations(length)
	if err != nil {
		return nil, err
	}
	h := &Hydra{Length: length, K: k, G: g, Dilations: dil}
	rng := rand.New(rand.NewPCG(seed, 0x6879647261000000)) // "hydra"
	for range dil {
		var reps [][][KernelLength]float32
		for range h.representations() {
			ws := make([][KernelLength]float32, h.Groups()*k)
			for i := range ws {
				ws[i] = hydraKernel(rng)
			}
			reps = append(reps, ws)
		}
		h.Weights = append(h.Weights, reps)
	}
	return h, nil
}

// hydraKernel draws nine standard normal weights, centres them and
// divides them by the sum of their absolute values.
func hydraKernel(rng *rand.Rand) [KernelLength]float32 {
	var w [KernelLength]float64
	mean := 0.0
	for j := range w {
		w[j] = rng.NormFloat64()
		mean += w[j] / KernelLength
	}
	abs := 0.0
	for j := range w {
		w[j] -= mean
		abs += math.Abs(w[j])
	}
	var out [KernelLength]float32
	for j := range w {
		out[j] = float32(w[j] / abs)
	}
	return out
}

// representations returns how many representations the groups are split
// over: 2 (series and first differences), 1 when there is one group.
func (h *Hydra) representations() int { return min(2, h.G) }

// Groups returns the number of groups per dilation and representation:
// G/2 (G when G is 1), as aeon splits them.
func (h *Hydra) Groups() int { return h.G / h.representations() }

// NumFeatures returns the number of features Apply makes per series:
// per dilation and representation, count-max and count-min of each
// kernel.
func (h *Hydra) NumFeatures() int {
	return len(h.Dilations) * h.representations() * 2 * h.Groups() * h.K
}

// Apply returns the features of the series x, one row per series, in
// aeon's order: for each dilation, for the series then its first
// differences, the count-max of each kernel (group-major) then the
// count-min of each. Each kernel's output at step t is Σ_j w_j·s[t+(j−4)d]
// with s zero padded (as long as s: the series or its differences); ties
// go to the first kernel of the group. Rows are computed by up to workers
// goroutines; the result does not depend on their number.
func (h *Hydra) Apply(x [][]float32, workers int) (*mat.Dense, error) {
	if len(x) == 0 {
		return nil, fmt.Errorf("hydra: no series to transform")
	}
	out := mat.NewDense(len(x), h.NumFeatures(), nil)
	if err := h.applyTo(x, out, workers); err != nil {
		return nil, err
	}
	return out, nil
}

// applyTo writes Apply's features into out (len(x) × NumFeatures, may be
// a view).
func (h *Hydra) applyTo(x [][]float32, out *mat.Dense, workers int) error {
	if err := checkLength(x, h.Length); err != nil {
		return fmt.Errorf("hydra: %w", err)
	}
	block := h.Groups() * h.K
	forEachRow(len(x), workers, func() func(int) {
		var shifted [KernelLength][]float32
		for j := range shifted {
			shifted[j] = make([]float32, h.Length)
		}
		outs := make([][]float32, h.K)
		for k := range outs {
			outs[k] = make([]float32, h.Length)
		}
		var dx []float32
		return func(i int) {
			row := out.RawRowView(i)
			clear(row)
			dx = diff(x[i], dx)
			f := 0
			for di, d := range h.Dilations {
				for r, ws := range h.Weights[di] {
					s := x[i]
					if r == 1 {
						s = dx
					}
					shift(s, d, shifted)
					h.count(ws, shifted, len(s), outs, row[f:f+block], row[f+block:f+2*block])
					f += 2 * block
				}
			}
		}
	})
	return nil
}

// shift fills shifted[j][t] with s[t+(j−4)d], 0 outside s (its first
// len(s) entries).
func shift(s []float32, d int, shifted [KernelLength][]float32) {
	for j := range shifted {
		off := (j - KernelLength/2) * d
		for t := range s {
			v := float32(0)
			if u := t + off; u >= 0 && u < len(s) {
				v = s[u]
			}
			shifted[j][t] = v
		}
	}
}

// count adds, over the first n steps, each group's winner's output to
// countMax and one to its loser's countMin (kernel i of group g at
// g·K+i). outs is scratch: K slices of at least n.
func (h *Hydra) count(ws [][KernelLength]float32, shifted [KernelLength][]float32, n int, outs [][]float32, countMax, countMin []float64) {
	for g := range h.Groups() {
		// Each kernel's output over the steps, summed tap by tap in order.
		for k, o := range outs {
			w, o := ws[g*h.K+k], o[:n]
			clear(o)
			for j, tap := range shifted {
				wj := w[j]
				for t, v := range tap[:n] {
					o[t] += wj * v
				}
			}
		}
		for t := range n {
			best, worst := 0, 0
			hi, lo := outs[0][t], outs[0][t]
			for k := 1; k < h.K; k++ {
				v := outs[k][t]
				if v > hi {
					best, hi = k, v
				}
				if v < lo {
					worst, lo = k, v
				}
			}
			countMax[g*h.K+best] += float64(hi)
			countMin[g*h.K+worst]++
		}
	}
}
