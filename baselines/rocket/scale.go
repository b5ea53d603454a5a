package rocket

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// DefaultSparseExponent is the exponent of aeon's _SparseScaler.
const DefaultSparseExponent = 4

// SparseScaler is Hydra's feature scaling, as aeon's _SparseScaler
// (mask=True) does it: each value is clamped at 0 and square-rooted; a
// column's mean Mu and divisor Sigma are its mean and sample standard
// deviation (n − 1) after that, plus ε = (share of its zeros)^exponent +
// 10⁻⁸; Transform maps v to (v − Mu)/Sigma where v is not 0 and leaves the
// zeros at 0.
type SparseScaler struct {
	Mu, Sigma []float64
}

// FitSparseScaler fits the scaler to the rows of x (at least two).
func FitSparseScaler(x *mat.Dense, exponent float64) (*SparseScaler, error) {
	n, p := x.Dims()
	if n < 2 {
		return nil, fmt.Errorf("sparse scaler: %d rows, need at least 2", n)
	}
	s := &SparseScaler{Mu: make([]float64, p), Sigma: make([]float64, p)}
	zeros := make([]float64, p)
	for i := range n {
		for f, v := range x.RawRowView(i) {
			v = sqrtPos(v)
			s.Mu[f] += v / float64(n)
			if v == 0 {
				zeros[f]++
			}
		}
	}
	for i := range n {
		for f, v := range x.RawRowView(i) {
			e := sqrtPos(v) - s.Mu[f]
			s.Sigma[f] += e * e
		}
	}
	for f := range s.Sigma {
		eps := math.Pow(zeros[f]/float64(n), exponent) + 1e-8
		s.Sigma[f] = math.Sqrt(s.Sigma[f]/float64(n-1)) + eps
	}
	return s, nil
}

// sqrtPos returns √max(v, 0).
func sqrtPos(v float64) float64 { return math.Sqrt(math.Max(v, 0)) }

// Transform scales the rows of x in place.
func (s *SparseScaler) Transform(x *mat.Dense) error {
	n, p := x.Dims()
	if p != len(s.Mu) {
		return fmt.Errorf("sparse scaler: %d columns, fitted on %d", p, len(s.Mu))
	}
	for i := range n {
		row := x.RawRowView(i)
		for f, v := range row {
			if v = sqrtPos(v); v != 0 {
				v = (v - s.Mu[f]) / s.Sigma[f]
			}
			row[f] = v
		}
	}
	return nil
}

// StandardScaler is scikit-learn's StandardScaler(): each column centred
// on its mean and divided by its population standard deviation, or by 1
// where the column is constant up to rounding (its variance at most
// n·ε·var + (n·mean·ε)², ε the float64 machine epsilon, scikit-learn's
// test): a constant column's mean can differ from its value by a rounding
// error, which must not be blown up to ±1.
type StandardScaler struct {
	Mean, Scale []float64
}

// FitStandardScaler fits the scaler to the rows of x (at least one).
func FitStandardScaler(x *mat.Dense) (*StandardScaler, error) {
	n, p := x.Dims()
	if n < 1 {
		return nil, fmt.Errorf("standard scaler: no rows")
	}
	s := &StandardScaler{Mean: make([]float64, p), Scale: make([]float64, p)}
	for i := range n {
		for f, v := range x.RawRowView(i) {
			s.Mean[f] += v / float64(n)
		}
	}
	for i := range n {
		for f, v := range x.RawRowView(i) {
			e := v - s.Mean[f]
			s.Scale[f] += e * e
		}
	}
	const eps = 0x1p-52
	for f, v := range s.Scale {
		variance, nf := v/float64(n), float64(n)
		bound := nf*eps*variance + math.Pow(nf*s.Mean[f]*eps, 2)
		s.Scale[f] = math.Sqrt(variance)
		if variance <= bound {
			s.Scale[f] = 1
		}
	}
	return s, nil
}

// Transform scales the rows of x in place.
func (s *StandardScaler) Transform(x *mat.Dense) error {
	n, p := x.Dims()
	if p != len(s.Mean) {
		return fmt.Errorf("standard scaler: %d columns, fitted on %d", p, len(s.Mean))
	}
	for i := range n {
		row := x.RawRowView(i)
		for f, v := range row {
			row[f] = (v - s.Mean[f]) / s.Scale[f]
		}
	}
	return nil
}
