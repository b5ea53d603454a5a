package rocket

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// DefaultAlphas returns the reference's regularisation grid,
// logspace(−3, 3, 10): ten strengths from 10⁻³ to 10³, evenly spaced in
// log scale.
func DefaultAlphas() []float64 {
	a := make([]float64, 10)
	floats.LogSpan(a, 1e-3, 1e3)
	return a
}

// Ridge is a fitted one-vs-all ridge classifier, as scikit-learn's
// RidgeClassifierCV fits one (with or without normalize=True).
type Ridge struct {
	// Classes are the class ids seen in training, ascending: column j of
	// the model scores class Classes[j].
	Classes []int
	// Alpha is the regularisation strength chosen by leave-one-out.
	Alpha float64
	// LOOError is the mean squared leave-one-out error of each alpha of
	// the grid, over the training rows and the ±1 targets.
	LOOError []float64
	coef     *mat.Dense // p × classes, on the raw (unscaled) features
	icept    []float64  // per class
}

// RidgeOptions are FitRidge's settings.
type RidgeOptions struct {
	// Normalize divides each centred feature column by its L2 norm before
	// the fit, as scikit-learn's normalize=True (removed in 1.2) did:
	// MiniRocket's reference pairing. Without it the features are only
	// centred, as RidgeClassifierCV does today (aeon's
	// MultiRocketHydraClassifier, whose features are scaled beforehand).
	Normalize bool
}

// FitRidge fits a ridge classifier to the rows of x (n × p) and their
// class ids y, choosing alpha from alphas by leave-one-out error, as
// RidgeClassifierCV(alphas) (with normalize=opts.Normalize) with its
// default efficient leave-one-out does:
//
//   - each class present in y is a target column, +1 on its rows and −1
//     elsewhere (one column for two classes in scikit-learn: the same
//     errors and predictions);
//   - the features are centred (and with opts.Normalize each divided by
//     the L2 norm of its centred column, 1 where that is 0), the targets
//     centred, and the intercept left unpenalised;
//   - for each alpha the leave-one-out residuals come in closed form from
//     one decomposition, e_i = c_i / G⁻¹_ii with G = XXᵀ + αI and c = G⁻¹y
//     (the intercept's direction taken out): the eigendecomposition of the
//     n × n Gram matrix when p ≥ n, else the thin SVD of the n × p design;
//   - the alpha with the least mean squared residual wins, the smallest on
//     a tie.
//
// x is centred (and scaled) in place.
func FitRidge(x *mat.Dense, y []int, alphas []float64, opts RidgeOptions) (*Ridge, error) {
	n, p := x.Dims()
	if n != len(y) {
		return nil, fmt.Errorf("ridge: %d rows but %d labels", n, len(y))
	}
	if len(alphas) == 0 {
		return nil, fmt.Errorf("ridge: no alphas to choose from")
	}
	for _, a := range alphas {
		if !(a > 0) || math.IsInf(a, 0) {
			return nil, fmt.Errorf("ridge: alpha %v: need a finite alpha > 0", a)
		}
	}
	r := &Ridge{Classes: slices.Compact(slices.Sorted(slices.Values(y)))}
	if len(r.Classes) < 2 {
		return nil, fmt.Errorf("ridge: the training rows have %d class, need at least 2", len(r.Classes))
	}
	k := len(r.Classes)
	col := map[int]int{}
	for j, c := range r.Classes {
		col[c] = j
	}
	targets := mat.NewDense(n, k, nil)
	for i, c := range y {
		for j := range k {
			v := -1.0
			if j == col[c] {
				v = 1
			}
			targets.Set(i, j, v)
		}
	}
	xMean, xScale := standardise(x, opts.Normalize)
	yMean := centre(targets)

	dec, err := decompose(x)
	if err != nil {
		return nil, err
	}
	qtY := mat.NewDense(dec.rank(), k, nil)
	qtY.Mul(dec.q.T(), targets)
	var best *mat.Dense
	for _, alpha := range alphas {
		c, ginv := dec.solve(alpha, qtY, targets)
		sum := 0.0
		for i := range n {
			for j := range k {
				e := c.At(i, j) / ginv[i]
				sum += e * e
			}
		}
		loo := sum / float64(n*k)
		if best == nil || loo < slices.Min(r.LOOError) {
			r.Alpha, best = alpha, c
		}
		r.LOOError = append(r.LOOError, loo)
	}
	// Primal weights on the scaled features, Xᵀc, then on the raw ones.
	r.coef = mat.NewDense(p, k, nil)
	r.coef.Mul(x.T(), best)
	r.icept = yMean
	for f := range p {
		row := r.coef.RawRowView(f)
		floats.Scale(1/xScale[f], row)
		for j := range k {
			r.icept[j] -= xMean[f] * row[j]
		}
	}
	return r, nil
}

// standardise centres each column of x and, with normalize, divides it
// by its L2 norm after centring (1 where that norm is 0), in place,
// returning the means and the divisors (all 1 without normalize):
// scikit-learn's normalize=True, or its centring alone.
func standardise(x *mat.Dense, normalize bool) (mean, scale []float64) {
	n, p := x.Dims()
	mean, scale = make([]float64, p), make([]float64, p)
	for i := range n {
		floats.Add(mean, x.RawRowView(i))
	}
	floats.Scale(1/float64(n), mean)
	if !normalize {
		for i := range n {
			floats.Sub(x.RawRowView(i), mean)
		}
		for f := range scale {
			scale[f] = 1
		}
		return mean, scale
	}
	for i := range n {
		row := x.RawRowView(i)
		floats.Sub(row, mean)
		for f, v := range row {
			scale[f] += v * v
		}
	}
	for f, s := range scale {
		scale[f] = math.Sqrt(s)
		if scale[f] == 0 {
			scale[f] = 1
		}
	}
	for i := range n {
		floats.Div(x.RawRowView(i), scale)
	}
	return mean, scale
}

// centre subtracts each column's mean from it, in place, returning the
// means.
func centre(y *mat.Dense) []float64 {
	n, k := y.Dims()
	mean := make([]float64, k)
	for i := range n {
		floats.Add(mean, y.RawRowView(i))
	}
	floats.Scale(1/float64(n), mean)
	for i := range n {
		floats.Sub(y.RawRowView(i), mean)
	}
	return mean
}

// decomposition is Q (n × r, orthonormal columns) and the squared
// singular values s² of the centred design augmented with a column of
// ones (the intercept), the intercept's column of Q marked. With p ≥ n, Q
// spans everything (r = n); with p < n, G⁻¹ adds (I − QQᵀ)/α.
type decomposition struct {
	q         *mat.Dense
	s2        []float64
	intercept int
	full      bool
}

func (d *decomposition) rank() int { _, r := d.q.Dims(); return r }

// decompose factors the centred, scaled x (n × p) with the intercept's
// column of ones added: the eigendecomposition of XXᵀ + 11ᵀ when p ≥ n
// (cheaper: n × n), else the thin SVD of [X 1].
func decompose(x *mat.Dense) (*decomposition, error) {
	n, p := x.Dims()
	d := &decomposition{q: &mat.Dense{}}
	if p >= n {
		gram := mat.NewSymDense(n, nil)
		gram.SymOuterK(1, x)
		for i := range n {
			for j := i; j < n; j++ {
				gram.SetSym(i, j, gram.At(i, j)+1)
			}
		}
		var eig mat.EigenSym
		if !eig.Factorize(gram, true) {
			return nil, fmt.Errorf("ridge: the eigendecomposition of the %d × %d Gram matrix did not converge", n, n)
		}
		d.s2 = eig.Values(nil)
		eig.VectorsTo(d.q)
		d.full = true
	} else {
		aug := mat.NewDense(n, p+1, nil)
		aug.Slice(0, n, 0, p).(*mat.Dense).Copy(x)
		for i := range n {
			aug.Set(i, p, 1)
		}
		var svd mat.SVD
		if !svd.Factorize(aug, mat.SVDThin) {
			return nil, fmt.Errorf("ridge: the SVD of the %d × %d design did not converge", n, p+1)
		}
		s := svd.Values(nil)
		d.s2 = make([]float64, len(s))
		for i, v := range s {
			d.s2[i] = v * v
		}
		svd.UTo(d.q)
	}
	// The intercept's direction is the column of Q closest to 1/√n.
	bestDot := -1.0
	_, r := d.q.Dims()
	for j := range r {
		dot := math.Abs(floats.Sum(mat.Col(nil, j, d.q))) / math.Sqrt(float64(n))
		if dot > bestDot {
			bestDot, d.intercept = dot, j
		}
	}
	return d, nil
}

// solve returns c = G⁻¹y and the diagonal of G⁻¹ for one alpha, with
// G⁻¹ = Σ_j q_j q_jᵀ/(s²_j + α) over all but the intercept's direction,
// plus (I − QQᵀ)/α when Q does not span everything.
func (d *decomposition) solve(alpha float64, qtY, y *mat.Dense) (*mat.Dense, []float64) {
	n, r := d.q.Dims()
	w := make([]float64, r)
	for j, s2 := range d.s2 {
		w[j] = 1 / (s2 + alpha)
		if !d.full {
			w[j] -= 1 / alpha
		}
	}
	w[d.intercept] = 0
	if !d.full {
		w[d.intercept] = -1 / alpha
	}
	scaled := mat.DenseCopyOf(qtY)
	for j := range r {
		floats.Scale(w[j], scaled.RawRowView(j))
	}
	c := mat.NewDense(n, y.RawMatrix().Cols, nil)
	c.Mul(d.q, scaled)
	diag := make([]float64, n)
	for i := range n {
		row := d.q.RawRowView(i)
		for j, v := range row {
			diag[i] += w[j] * v * v
		}
	}
	if !d.full {
		c.Apply(func(i, j int, v float64) float64 { return v + y.At(i, j)/alpha }, c)
		for i := range diag {
			diag[i] += 1 / alpha
		}
	}
	return c, diag
}

// Scores returns the decision values of the rows of x (n × p, raw
// features): one column per class of r.Classes.
func (r *Ridge) Scores(x *mat.Dense) (*mat.Dense, error) {
	_, p := x.Dims()
	if rows, _ := r.coef.Dims(); p != rows {
		return nil, fmt.Errorf("ridge: %d features, the model has %d", p, rows)
	}
	n, _ := x.Dims()
	s := mat.NewDense(n, len(r.Classes), nil)
	s.Mul(x, r.coef)
	for i := range n {
		floats.Add(s.RawRowView(i), r.icept)
	}
	return s, nil
}

// Predict returns the class id of each row of x: the class of the largest
// score (the first on a tie).
func (r *Ridge) Predict(x *mat.Dense) ([]int, error) {
	s, err := r.Scores(x)
	if err != nil {
		return nil, err
	}
	n, _ := s.Dims()
	out := make([]int, n)
	for i := range n {
		out[i] = r.Classes[floats.MaxIdx(s.RawRowView(i))]
	}
	return out, nil
}
