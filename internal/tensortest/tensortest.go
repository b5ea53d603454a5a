// Package tensortest holds what the tests of the model's packages share: the
// backend they run on, fixed inputs, and the comparisons of float32 tensors of
// the equivalence tests (e.g. the Inception block against plain convolutions,
// hand-written gradients against GoMLX's). It is imported by tests only.
package tensortest

import (
	"math"
	"sync"
	"testing"

	"github.com/gomlx/compute"
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/softshape-go/softshape/internal/backends"
)

// sharedBackend is started once for the whole test binary.
var sharedBackend = sync.OnceValues(func() (compute.Backend, error) { return backends.New("") })

// Backend returns the backend tests run on: the deadlock-free pure-Go backend
// (or $GOMLX_BACKEND), started once per test binary.
func Backend(t testing.TB) compute.Backend {
	t.Helper()
	b, err := sharedBackend()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Series is a fixed, irregular float32 input of the given dimensions.
func Series(dims ...int) *tensors.Tensor {
	size := 1
	for _, d := range dims {
		size *= d
	}
	flat := make([]float32, size)
	for i := range flat {
		flat[i] = float32(math.Sin(0.7*float64(i)) + 0.5*math.Cos(1.3*float64(i*i%97)))
	}
	return tensors.FromFlatDataAndDimensions(flat, dims...)
}

// Weighting is the fixed weighting r of test losses Σ y·r, of the given
// dimensions.
func Weighting(dims ...int) *tensors.Tensor {
	flat := tensors.MustCopyFlatData[float32](Series(dims...))
	for i := range flat {
		flat[i] = float32(math.Cos(0.37*float64(i))) - 0.5*flat[i]
	}
	return tensors.FromFlatDataAndDimensions(flat, dims...)
}

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
