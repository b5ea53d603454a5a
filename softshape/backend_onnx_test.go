//go:build onnx && cgo

package softshape

import (
	"math"
	"sync"
	"testing"

	"github.com/gomlx/compute"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/train"

	"github.com/softshape-go/softshape/data"
)

// Cross-backend agreement between the pure-Go backend and ONNX Runtime (run with
// `go test -tags onnx -run TestONNX ./softshape/`, ONNX Runtime installed by
// scripts/install-onnxruntime.sh). The tolerances:
const (
	// onnxLossRelTol bounds the relative difference of the training loss of the
	// first step (the same initial weights and batch on both backends), and of
	// each of the following onnxAgreeSteps dense steps. Measured: ≈1e-6–1e-5.
	onnxLossRelTol = 1e-4
	// onnxAgreeSteps is the number of dense steps after the first whose losses
	// must agree as well (the dense path has no discrete top-k choices, so the
	// backends cannot drift apart by flipping one).
	onnxAgreeSteps = 4
	// onnxCEAbsTol bounds the per-sample inference cross-entropy difference on
	// both paths with the same weights.
	onnxCEAbsTol = 1e-4
	// onnxAccTol bounds the difference of the test accuracies reached by training
	// the same fold with the same seed on each backend (the runs differ in their
	// initial weights, dropout masks and rounding, so only the accuracy is
	// compared): 0.05 is 3 of the 60 test series of the generated CBF fold.
	onnxAccTol = 0.05
	// onnxMinAcc is the accuracy both runs must reach.
	onnxMinAcc = 0.9
)

var onnxBackend = sync.OnceValues(func() (compute.Backend, error) { return NewBackend("onnx:cpu") })

func testONNXBackend(t *testing.T) compute.Backend {
	t.Helper()
	if FindONNXRuntime() == "" {
		t.Fatalf("ONNX Runtime library not found: run scripts/install-onnxruntime.sh and export %s", ONNXLibraryEnvVar)
	}
	b, err := onnxBackend()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// goBackend is the pure-Go backend whatever $GOMLX_BACKEND says.
var goBackend = sync.OnceValues(func() (compute.Backend, error) { return NewBackend(DefaultBackend) })

func testGoBackend(t *testing.T) compute.Backend {
	t.Helper()
	b, err := goBackend()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// copyVariables gives dst every variable value of src (both stores hold the same
// model, built once each), so both backends start from the same weights.
func copyVariables(t *testing.T, dst, src *session) {
	t.Helper()
	vals := map[string]*tensors.Tensor{}
	for v := range src.store.IterVariables() {
		val, err := v.Value()
		if err != nil {
			t.Fatal(err)
		}
		c, err := val.LocalClone()
		if err != nil {
			t.Fatal(err)
		}
		vals[v.Path()] = c
	}
	n := 0
	for v := range dst.store.IterVariables() {
		c, ok := vals[v.Path()]
		if !ok {
			t.Fatalf("variable %s missing from the source store", v.Path())
		}
		if err := v.SetValue(c); err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != len(vals) {
		t.Fatalf("%d variables copied, the source has %d", n, len(vals))
	}
}

func relDiff(a, b float64) float64 {
	return math.Abs(a-b) / math.Max(math.Max(math.Abs(a), math.Abs(b)), 1e-12)
}

// TestONNXAgreesWithGoFirstSteps: with the same initial weights and batch, the
// pure-Go and ONNX Runtime backends give the same inference cross-entropies on
// both paths (≤ onnxCEAbsTol), the same first training-step loss in both phases
// (relative ≤ onnxLossRelTol) and the same losses for onnxAgreeSteps more dense
// steps. Dropout is off: the backends draw different random bits.
//
// Two sizes: generated CBF as it is, and each series repeated 10 times with
// shape length 8 (1280 points, 319 shapes: the long-sequence case), with Ĉ=6
// experts, k=1, so the MoE runs in routed dispatch.
func TestONNXAgreesWithGoFirstSteps(t *testing.T) {
	for _, c := range []struct {
		name           string
		repeat, length int
	}{{"cbf", 1, 0}, {"long", 10, 8}} {
		t.Run(c.name, func(t *testing.T) { checkONNXAgreesWithGo(t, c.repeat, c.length) })
	}
}

func checkONNXAgreesWithGo(t *testing.T, repeat, shapeLen int) {
	goB, onB := testGoBackend(t), testONNXBackend(t)
	ds := data.CBF(10, data.CBFDefaultLength, 3)
	cfg := DefaultConfig()
	cfg.Dropout = 0
	cfg.ShapeLength = shapeLen
	if repeat > 1 {
		cfg.NumExperts = "2C"
	}
	m, err := New(cfg, repeat*ds.Length, ds.NumClasses(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if repeat > 1 && (m.Shape.NumShapes <= 256 || dispatchBlock(16*KeptTokens(0.5, m.Shape.NumShapes), m.Shape.NumExperts, cfg.ExpertsK, dispatchAuto) == 0) {
		t.Fatalf("long case: %d shapes, %d experts: not the long-sequence, routed case", m.Shape.NumShapes, m.Shape.NumExperts)
	}
	x := make([][]float32, 16)
	y := make([]int, 16)
	idx := make([]int, 16)
	for i := range x {
		r := (i * 7) % len(ds.Series)
		x[i] = make([]float32, 0, repeat*ds.Length)
		for range repeat {
			for _, v := range ds.Series[r] {
				x[i] = append(x[i], float32(v))
			}
		}
		y[i], idx[i] = ds.Labels[r], i
	}
	for _, phase := range []Phase{Dense, Sparse} {
		t.Run(phase.String(), func(t *testing.T) {
			sessions := [2]*session{}
			for i, b := range []compute.Backend{goB, onB} {
				if sessions[i], err = newSession(b, m, 11, 0); err != nil {
					t.Fatal(err)
				}
				buildAll(t, b, m, sessions[i].store)
			}
			copyVariables(t, sessions[1], sessions[0])
			t.Logf("backends: %s / %s", sessions[0].backend.Description(), sessions[1].backend.Description())
			for _, p := range []Phase{Dense, Sparse} {
				ceGo, _, err := sessions[0].evaluate(x, y, p)
				if err != nil {
					t.Fatal(err)
				}
				ceOn, _, err := sessions[1].evaluate(x, y, p)
				if err != nil {
					t.Fatal(err)
				}
				worst := 0.0
				for i := range ceGo {
					worst = max(worst, math.Abs(ceGo[i]-ceOn[i]))
				}
				t.Logf("inference (%s path): max |ΔCE| = %.2g", p, worst)
				if worst > onnxCEAbsTol {
					t.Errorf("inference (%s path): per-sample cross-entropy differs by up to %.3g between go and onnx (tolerance %g)", p, worst, onnxCEAbsTol)
				}
			}
			steps := 1
			if phase == Dense {
				steps += onnxAgreeSteps
			}
			for s := range steps {
				var loss [2]float64
				for i, sess := range sessions {
					xt, yt := batchTensors(x, y, idx)
					metrics, err := sess.trainer.TrainStep(train.Batch{Inputs: []*tensors.Tensor{xt}, Labels: []*tensors.Tensor{yt}, Spec: phase})
					if err != nil {
						t.Fatal(err)
					}
					loss[i] = scalarOf(metrics[0])
					for _, mt := range metrics {
						mt.FinalizeAll()
					}
				}
				d := relDiff(loss[0], loss[1])
				t.Logf("step %d (%s): loss go %.9g onnx %.9g, relative difference %.2g", s, phase, loss[0], loss[1], d)
				if !(d <= onnxLossRelTol) {
					t.Errorf("step %d (%s): loss go %.7f vs onnx %.7f: relative difference %.3g > %g", s, phase, loss[0], loss[1], d, onnxLossRelTol)
				}
			}
		})
	}
}

// TestONNXAccuracyMatchesGo trains the same fold of the generated CBF data with
// the same seed and schedule (6 dense + 6 sparse epochs) on the pure-Go backend
// and on ONNX Runtime: both reach onnxMinAcc and their test accuracies differ by
// at most onnxAccTol.
func TestONNXAccuracyMatchesGo(t *testing.T) {
	goB, onB := testGoBackend(t), testONNXBackend(t)
	ds := data.CBF(data.CBFDefaultPerClass, data.CBFDefaultLength, 7)
	cfg := DefaultConfig()
	cfg.Epochs, cfg.WarmUpEpochs = 12, 6
	var acc [2]float64
	for i, b := range []compute.Backend{goB, onB} {
		fr, _, err := TrainFold(ds, cfg, 0, RunOptions{Backend: b, Seed: 7})
		if err != nil {
			t.Fatalf("%s: %v", b.Name(), err)
		}
		acc[i] = fr.TestAcc
		t.Logf("%s: test acc %.4f (best epoch %d, %s path), %s", b.Description(), fr.TestAcc, fr.BestEpoch, fr.SelectedPhase, fr.Wall)
	}
	if d := math.Abs(acc[0] - acc[1]); d > onnxAccTol {
		t.Errorf("test accuracy go %.4f vs onnx %.4f: differ by %.4f > %g", acc[0], acc[1], d, onnxAccTol)
	}
	for i, name := range []string{"go", "onnx"} {
		if acc[i] < onnxMinAcc {
			t.Errorf("%s test accuracy %.4f < %g", name, acc[i], onnxMinAcc)
		}
	}
}
