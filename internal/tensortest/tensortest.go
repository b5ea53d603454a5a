// Package tensortest holds the comparisons of float32 tensors that the
// equivalence tests of package softshape and its kernels share (e.g. the
// Inception block against plain convolutions, hand-written gradients against
// GoMLX's). It is imported by tests only.
package tensortest

import (
	"math"
	"testing"

	"github.com/gomlx/gomlx/core/tensors"
)

// MaxAbsDiff is the largest |a−b| over two float32 tensors of the same
// shape; different shapes fail the test.
func MaxAbsDiff(t testing.TB, a, b *tensors.Tensor) float64 {
	t.Helper()
	if !a.Shape().Equal(b.Shape()) {
		t.Fatalf("shapes differ: %s vs %s", a.Shape(), b.Shape())
	}
	fa, fb := tensors.MustCopyFlatData[float32](a), tensors.MustCopyFlatData[float32](b)
	worst := 0.0
	for i := range fa {
		worst = max(worst, math.Abs(float64(fa[i]-fb[i])))
	}
	return worst
}

// MaxAbs is the largest |x| over a float32 tensor.
func MaxAbs(x *tensors.Tensor) float64 {
	worst := 0.0
	for _, v := range tensors.MustCopyFlatData[float32](x) {
		worst = max(worst, math.Abs(float64(v)))
	}
	return worst
}
