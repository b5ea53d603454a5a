// Package tsne computes exact t-SNE embeddings (van der Maaten & Hinton,
// "Visualizing Data using t-SNE", JMLR 2008) into two dimensions, for the
// embedding visualisations of the softshape-go toolkit.
//
// The algorithm is the exact O(n²) one of the paper and of the reference
// implementation: Gaussian input affinities whose bandwidths are calibrated
// by binary search to the requested perplexity, symmetrised joint
// probabilities, Student-t output affinities, and gradient descent with
// early exaggeration (×12 for the first 250 iterations), momentum 0.5 then
// 0.8, per-coordinate adaptive gains and learning rate 200. It is meant for
// n up to about 2000 points; no Go t-SNE library was available among the
// project's pinned modules.
package tsne

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// Init chooses the initial layout.
type Init int

const (
	// InitPCA starts from the first two principal components, scaled to a
	// standard deviation of 1e-4 (deterministic; the default).
	InitPCA Init = iota
	// InitRandom starts from Gaussian noise with standard deviation 1e-4
	// drawn from Options.Seed.
	InitRandom
)

// Defaults used when the corresponding Options field is zero.
const (
	DefaultPerplexity   = 30
	DefaultIterations   = 1000
	DefaultLearningRate = 200
)

// Fixed schedule of the reference implementation.
const (
	exaggeration     = 12.0
	exaggerationIter = 250
	momentumSwitch   = 250
	initialMomentum  = 0.5
	finalMomentum    = 0.8
	minGain          = 0.01
	entropyTol       = 1e-5
	maxBetaSteps     = 100
)

// Options configures Embed. Zero fields take their defaults.
type Options struct {
	// Perplexity is the effective number of neighbours (default 30). It must
	// satisfy 3·Perplexity ≤ n−1; when left at zero for a small n it is
	// lowered to (n−1)/3.
	Perplexity float64
	// Iterations is the number of gradient steps (default 1000).
	Iterations int
	// Seed seeds the random initial layout (InitRandom) and the jitter used
	// when PCA cannot give two components.
	Seed int64
	// LearningRate is the gradient-descent step (default 200).
	LearningRate float64
	// Init chooses PCA (default) or random initialisation.
	Init Init
}

// ErrInput is returned (wrapped) for unusable input: empty, ragged, NaN or
// infinite values, too few points for the perplexity.
var ErrInput = errors.New("tsne: invalid input")

// Embed returns a 2-D t-SNE embedding of the rows of x. The result is
// deterministic for given x and opts. Errors (wrapping ErrInput) are returned
// for fewer than two points, rows of different lengths or of length zero,
// NaN or infinite values, a perplexity below 1 or too large for n
// (3·Perplexity > n−1), and negative iteration counts or learning rates.
func Embed(x [][]float64, opts Options) ([][2]float64, error) {
	n := len(x)
	if n < 2 {
		return nil, fmt.Errorf("%w: need at least 2 points, got %d", ErrInput, n)
	}
	d := len(x[0])
	if d == 0 {
		return nil, fmt.Errorf("%w: points have no dimensions", ErrInput)
	}
	for i, row := range x {
		if len(row) != d {
			return nil, fmt.Errorf("%w: ragged input: row %d has %d values, row 0 has %d", ErrInput, i, len(row), d)
		}
		for j, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%w: x[%d][%d] = %v", ErrInput, i, j, v)
			}
		}
	}
	perp := opts.Perplexity
	maxPerp := float64(n-1) / 3
	switch {
	case perp == 0:
		perp = math.Min(DefaultPerplexity, maxPerp)
		if perp < 1 {
			return nil, fmt.Errorf("%w: %d points are too few for t-SNE (need ≥ 4)", ErrInput, n)
		}
	case math.IsNaN(perp) || perp < 1:
		return nil, fmt.Errorf("%w: perplexity %v must be ≥ 1", ErrInput, perp)
	case perp > maxPerp:
		return nil, fmt.Errorf("%w: perplexity %v too large for %d points (need 3·perplexity ≤ n−1, i.e. ≤ %.4g)", ErrInput, perp, n, maxPerp)
	}
	iters := opts.Iterations
	if iters == 0 {
		iters = DefaultIterations
	}
	if iters < 0 {
		return nil, fmt.Errorf("%w: iterations %d must be ≥ 0", ErrInput, iters)
	}
	eta := opts.LearningRate
	if eta == 0 {
		eta = DefaultLearningRate
	}
	if !(eta > 0) || math.IsInf(eta, 0) {
		return nil, fmt.Errorf("%w: learning rate %v must be > 0", ErrInput, eta)
	}

	p := jointProbabilities(x, perp)
	y := initialLayout(x, opts)
	optimise(y, p, iters, eta)

	out := make([][2]float64, n)
	for i := range out {
		out[i] = [2]float64{y[2*i], y[2*i+1]}
	}
	return out, nil
}

// sqDistances returns the n×n matrix of squared Euclidean distances, row
// major.
func sqDistances(x [][]float64) []float64 {
	n := len(x)
	dist := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			var s float64
			for k, v := range x[i] {
				t := v - x[j][k]
				s += t * t
			}
			dist[i*n+j] = s
			dist[j*n+i] = s
		}
	}
	return dist
}

// conditionalRow fills row with p_{j|i} for one point given its squared
// distances (dist[i] is ignored) and precision beta, and returns the
// entropy H (in nats). Distances are shifted by their minimum for numerical
// stability, which leaves both p and H unchanged.
func conditionalRow(dist []float64, i int, beta float64, row []float64) float64 {
	minD := math.Inf(1)
	for j, v := range dist {
		if j != i && v < minD {
			minD = v
		}
	}
	var sum, dot float64
	for j, v := range dist {
		if j == i {
			row[j] = 0
			continue
		}
		e := math.Exp(-(v - minD) * beta)
		row[j] = e
		sum += e
		dot += (v - minD) * e
	}
	if sum == 0 || math.IsNaN(sum) {
		// All other points are infinitely far at this beta: uniform row.
		for j := range row {
			row[j] = 0
			if j != i {
				row[j] = 1 / float64(len(row)-1)
			}
		}
		return math.Log(float64(len(row) - 1))
	}
	h := math.Log(sum) + beta*dot/sum
	floats.Scale(1/sum, row)
	return h
}

// jointProbabilities returns the symmetrised affinities
// p_ij = (p_{j|i} + p_{i|j}) / 2n, with each p_{·|i} calibrated by binary
// search on beta = 1/(2σ²) so that its entropy equals log(perplexity).
func jointProbabilities(x [][]float64, perp float64) []float64 {
	n := len(x)
	dist := sqDistances(x)
	target := math.Log(perp)
	cond := make([]float64, n*n)
	for i := 0; i < n; i++ {
		di := dist[i*n : (i+1)*n]
		row := cond[i*n : (i+1)*n]
		beta, lo, hi := 1.0, math.Inf(-1), math.Inf(1)
		// Start from a scale matched to the typical distance, so that the
		// search converges in few steps whatever the units of x.
		if mean := floats.Sum(di) / float64(n-1); mean > 0 {
			beta = 1 / mean
		}
		for step := 0; step < maxBetaSteps; step++ {
			h := conditionalRow(di, i, beta, row)
			diff := h - target
			if math.Abs(diff) < entropyTol {
				break
			}
			if diff > 0 { // too flat: increase precision
				lo = beta
				if math.IsInf(hi, 1) {
					beta *= 2
				} else {
					beta = (beta + hi) / 2
				}
			} else {
				hi = beta
				if math.IsInf(lo, -1) {
					beta /= 2
				} else {
					beta = (beta + lo) / 2
				}
			}
		}
	}
	p := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			v := (cond[i*n+j] + cond[j*n+i]) / (2 * float64(n))
			p[i*n+j] = math.Max(v, 1e-12)
		}
		p[i*n+i] = 0
	}
	return p
}

// initialLayout returns the starting positions as a flat slice
// [y0x, y0y, y1x, …].
func initialLayout(x [][]float64, opts Options) []float64 {
	n, d := len(x), len(x[0])
	y := make([]float64, 2*n)
	rng := rand.New(rand.NewPCG(uint64(opts.Seed), 0x9E3779B97F4A7C15))
	if opts.Init == InitPCA && d >= 2 && n >= 3 {
		data := mat.NewDense(n, d, nil)
		for i, row := range x {
			data.SetRow(i, row)
		}
		var pc stat.PC
		if pc.PrincipalComponents(data, nil) {
			var vecs mat.Dense
			pc.VectorsTo(&vecs)
			var proj mat.Dense
			proj.Mul(data, vecs.Slice(0, d, 0, 2))
			// Fix the sign of each component so that the result does not
			// depend on the SVD's sign convention.
			for k := 0; k < 2; k++ {
				col := mat.Col(nil, k, &proj)
				mean := stat.Mean(col, nil)
				var skew float64
				for _, v := range col {
					skew += (v - mean) * (v - mean) * (v - mean)
				}
				sign := 1.0
				if skew < 0 {
					sign = -1
				}
				for i := range col {
					y[2*i+k] = sign * (col[i] - mean)
				}
			}
			sd := stat.StdDev(column(y, 0), nil)
			if sd > 0 && !math.IsNaN(sd) {
				floats.Scale(1e-4/sd, y)
				// Tiny seeded jitter separates duplicate points.
				for i := range y {
					y[i] += 1e-8 * rng.NormFloat64()
				}
				return y
			}
		}
	}
	for i := range y {
		y[i] = 1e-4 * rng.NormFloat64()
	}
	return y
}

// column returns coordinate k of the flat layout y.
func column(y []float64, k int) []float64 {
	out := make([]float64, len(y)/2)
	for i := range out {
		out[i] = y[2*i+k]
	}
	return out
}

// optimise runs gradient descent on the KL divergence KL(P‖Q), updating y
// in place.
func optimise(y, p []float64, iters int, eta float64) {
	n := len(y) / 2
	grad := make([]float64, 2*n)
	update := make([]float64, 2*n)
	gains := make([]float64, 2*n)
	for i := range gains {
		gains[i] = 1
	}
	num := make([]float64, n*n)
	for it := 0; it < iters; it++ {
		exag := 1.0
		if it < exaggerationIter {
			exag = exaggeration
		}
		momentum := finalMomentum
		if it < momentumSwitch {
			momentum = initialMomentum
		}
		// Student-t kernel and its normaliser.
		var sumQ float64
		for i := 0; i < n; i++ {
			yi0, yi1 := y[2*i], y[2*i+1]
			for j := i + 1; j < n; j++ {
				d0, d1 := yi0-y[2*j], yi1-y[2*j+1]
				v := 1 / (1 + d0*d0 + d1*d1)
				num[i*n+j] = v
				num[j*n+i] = v
				sumQ += 2 * v
			}
		}
		if sumQ == 0 {
			sumQ = math.SmallestNonzeroFloat64
		}
		// dC/dy_i = 4 Σ_j (p_ij − q_ij) (1+|y_i−y_j|²)⁻¹ (y_i − y_j).
		for i := 0; i < n; i++ {
			var g0, g1 float64
			yi0, yi1 := y[2*i], y[2*i+1]
			for j := 0; j < n; j++ {
				if i == j {
					continue
				}
				nij := num[i*n+j]
				m := (exag*p[i*n+j] - nij/sumQ) * nij
				g0 += m * (yi0 - y[2*j])
				g1 += m * (yi1 - y[2*j+1])
			}
			grad[2*i], grad[2*i+1] = 4*g0, 4*g1
		}
		for k := range y {
			if (grad[k] > 0) != (update[k] > 0) {
				gains[k] += 0.2
			} else {
				gains[k] *= 0.8
			}
			gains[k] = math.Max(gains[k], minGain)
			update[k] = momentum*update[k] - eta*gains[k]*grad[k]
			y[k] += update[k]
		}
		// Keep the embedding centred.
		var m0, m1 float64
		for i := 0; i < n; i++ {
			m0 += y[2*i]
			m1 += y[2*i+1]
		}
		m0 /= float64(n)
		m1 /= float64(n)
		for i := 0; i < n; i++ {
			y[2*i] -= m0
			y[2*i+1] -= m1
		}
	}
}

// KL returns the Kullback–Leibler divergence KL(P‖Q) between the input
// affinities of x at the given perplexity and the Student-t affinities of
// the embedding y: the cost t-SNE minimises, useful to compare runs.
func KL(x [][]float64, y [][2]float64, perplexity float64) (float64, error) {
	if len(x) != len(y) {
		return 0, fmt.Errorf("%w: %d points and %d embedded points", ErrInput, len(x), len(y))
	}
	if len(x) < 2 {
		return 0, fmt.Errorf("%w: need at least 2 points", ErrInput)
	}
	if perplexity < 1 || perplexity > float64(len(x)-1)/3 {
		return 0, fmt.Errorf("%w: perplexity %v out of range for %d points", ErrInput, perplexity, len(x))
	}
	for i, row := range x {
		if len(row) != len(x[0]) || len(row) == 0 {
			return 0, fmt.Errorf("%w: ragged input at row %d", ErrInput, i)
		}
	}
	n := len(x)
	p := jointProbabilities(x, perplexity)
	var sumQ float64
	q := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if i == j {
				continue
			}
			d0, d1 := y[i][0]-y[j][0], y[i][1]-y[j][1]
			q[i*n+j] = 1 / (1 + d0*d0 + d1*d1)
			sumQ += q[i*n+j]
		}
	}
	var kl float64
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if i == j {
				continue
			}
			pij := p[i*n+j]
			kl += pij * math.Log(pij/math.Max(q[i*n+j]/sumQ, 1e-300))
		}
	}
	return kl, nil
}
