package rocket

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestSparseScalerByHand: column 0 is 4, 0, 1 → roots 2, 0, 1: mean 1,
// sample sd 1, one zero in three, so σ = 1 + (1/3)⁴ + 10⁻⁸; 2 → 1/σ and
// the zero and the 1 → 0 (masked; (1−1)/σ). Column 1 is −4, 9, 9 →
// clamped roots 0, 3, 3: mean 2, sample sd √3, σ = √3 + (1/3)⁴ + 10⁻⁸;
// 0 stays 0, 3 → 1/σ.
func TestSparseScalerByHand(t *testing.T) {
	x := mat.NewDense(3, 2, []float64{4, -4, 0, 9, 1, 9})
	s, err := FitSparseScaler(x, DefaultSparseExponent)
	if err != nil {
		t.Fatal(err)
	}
	eps := math.Pow(1.0/3, 4) + 1e-8
	s0, s1 := 1+eps, math.Sqrt(3)+eps
	if math.Abs(s.Mu[0]-1) > 1e-15 || math.Abs(s.Mu[1]-2) > 1e-15 || math.Abs(s.Sigma[0]-s0) > 1e-12 || math.Abs(s.Sigma[1]-s1) > 1e-12 {
		t.Errorf("mu %v, sigma %v; want [1 2], [%v %v]", s.Mu, s.Sigma, s0, s1)
	}
	if err := s.Transform(x); err != nil {
		t.Fatal(err)
	}
	want := []float64{1 / s0, 0, 0, 1 / s1, 0, 1 / s1}
	for i, v := range x.RawMatrix().Data {
		if math.Abs(v-want[i]) > 1e-12 {
			t.Errorf("scaled %v, want %v", x.RawMatrix().Data, want)
			break
		}
	}
}

// TestStandardScaler: 1, 2, 3 → mean 2, population sd √(2/3); a constant
// column 0.1 (whose mean can differ from 0.1 by a rounding error) is
// divided by 1, so it maps to about 0, not to ±1.
func TestStandardScaler(t *testing.T) {
	x := mat.NewDense(3, 2, []float64{1, 0.1, 2, 0.1, 3, 0.1})
	s, err := FitStandardScaler(x)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(s.Mean[0]-2) > 1e-15 || math.Abs(s.Scale[0]-math.Sqrt(2.0/3)) > 1e-15 || s.Scale[1] != 1 {
		t.Errorf("mean %v, scale %v", s.Mean, s.Scale)
	}
	if err := s.Transform(x); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if want := float64(i-1) / math.Sqrt(2.0/3); math.Abs(x.At(i, 0)-want) > 1e-12 || math.Abs(x.At(i, 1)) > 1e-15 {
			t.Errorf("row %d: %v, want [%v 0]", i, x.RawRowView(i), want)
		}
	}
}
