//go:build onnx && cgo

package softshape

import (
	"math"
	"sync"
	"testing"

	"github.com/gomlx/compute"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/softshape-go/softshape/internal/backends"
)

// ONNX Runtime against pure Go (run with `go test -tags onnx -run TestONNX
// ./softshape/`, ONNX Runtime installed by scripts/install-onnxruntime.sh): the
// checks and tolerances of backend_agree_test.go.

var onnxBackend = sync.OnceValues(func() (compute.Backend, error) { return backends.New("onnx:cpu") })

func testONNXBackend(t *testing.T) compute.Backend {
	t.Helper()
	if backends.FindONNXRuntime() == "" {
		t.Fatalf("ONNX Runtime library not found: run scripts/install-onnxruntime.sh and export %s", backends.ONNXLibraryEnvVar)
	}
	b, err := onnxBackend()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestONNXAgreesWithGoFirstSteps: checkAgreesWithGo for ONNX Runtime, on both
// sizes (generated CBF, and the long, routed-MoE case).
func TestONNXAgreesWithGoFirstSteps(t *testing.T) {
	testAgreement(t, testONNXBackend(t))
}

// TestONNXRunAxis: TestRunAxisVariantsAndEarlyStop on ONNX Runtime (runs
// with their own learning rate, λ and epochs on one run axis, each within
// 1e-5 of training alone there), which also runs what the run axis adds to a
// graph: the batched products and the masked RNG states (uint64, for which
// ONNX Runtime has no Where).
func TestONNXRunAxis(t *testing.T) {
	checkRunAxisVariants(t, testONNXBackend(t))
}

// TestONNXAccuracyMatchesGo: checkAccuracyMatchesGo for ONNX Runtime.
func TestONNXAccuracyMatchesGo(t *testing.T) {
	checkAccuracyMatchesGo(t, testONNXBackend(t))
}

// TestONNXMergeIsExactAndRepeatable runs soft shape sparsification (merge) on
// ONNX Runtime at the size of a validation pass (323 series of 20 tokens, 128
// channels, K = 10) and checks, over repeated calls:
//   - exactness: with integer embeddings and scores 1 (kept) and 0.5 (dropped)
//     every sum is exact in float32 whatever its order, so the fused token must
//     equal the hand-computed one exactly; an update lost to a data race shows;
//   - repeatability: with non-integer inputs every call gives the same bits.
//
// ONNX Runtime's CPU ScatterND with reduction "add" splits the updates over
// its thread pool and adds with no synchronisation; with repeated indices it
// loses updates (seen here: 464 of 512 unit updates kept), so merge must not
// send two tokens to one slot.
func TestONNXMergeIsExactAndRepeatable(t *testing.T) {
	const b, n, d, k, calls = 323, 20, 128, 10, 30
	backend := testONNXBackend(t)
	exec, err := graph.NewExec(backend, func(u, s *graph.Node) *graph.Node { return merge(u, s, k, true) })
	if err != nil {
		t.Fatal(err)
	}
	u := make([]float32, b*n*d)
	s := make([]float32, b*n)
	want := make([]float32, b*d) // the fused token of each sample
	for bi := 0; bi < b; bi++ {
		for j := 0; j < n; j++ {
			s[bi*n+j] = 0.5
			if (j+bi)%2 == 0 {
				s[bi*n+j] = 1
			}
			for c := 0; c < d; c++ {
				v := float32((bi*7+j*3+c)%17 - 8)
				u[(bi*n+j)*d+c] = v
				if s[bi*n+j] == 0.5 {
					want[bi*d+c] += 0.5 * v
				}
			}
		}
	}
	ut := tensors.FromFlatDataAndDimensions(u, b, n, d)
	st := tensors.FromFlatDataAndDimensions(s, b, n, 1)
	wrong := 0
	for call := 0; call < calls; call++ {
		got := tensors.MustCopyFlatData[float32](exec.MustExec1(ut, st)) // [b, k+1, d]
		for bi := 0; bi < b; bi++ {
			for c := 0; c < d; c++ {
				if g, w := got[(bi*(k+1)+k)*d+c], want[bi*d+c]; g != w {
					if wrong == 0 {
						t.Errorf("call %d: fused token of sample %d, channel %d = %v, want %v exactly", call, bi, c, g, w)
					}
					wrong++
				}
			}
		}
	}
	if wrong > 0 {
		t.Fatalf("%d fused-token values wrong over %d calls", wrong, calls)
	}

	for i := range u {
		u[i] = float32(math.Sin(float64(i) * 0.37))
	}
	for i := range s {
		s[i] = float32(math.Abs(math.Cos(float64(i) * 1.7)))
	}
	ut = tensors.FromFlatDataAndDimensions(u, b, n, d)
	st = tensors.FromFlatDataAndDimensions(s, b, n, 1)
	first := tensors.MustCopyFlatData[float32](exec.MustExec1(ut, st))
	for call := 1; call < calls; call++ {
		got := tensors.MustCopyFlatData[float32](exec.MustExec1(ut, st))
		for i := range got {
			if math.Float32bits(got[i]) != math.Float32bits(first[i]) {
				t.Fatalf("call %d differs from call 0 at element %d: %v vs %v (not bitwise repeatable)", call, i, got[i], first[i])
			}
		}
	}
}
