package softshape

import (
	"math"
	"sync"
	"testing"

	"github.com/gomlx/compute"
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/softshape-go/softshape/data"
	"github.com/softshape-go/softshape/internal/backends"
	"github.com/softshape-go/softshape/internal/benchflags"
	"github.com/softshape-go/softshape/internal/kernels"
)

// Cross-backend agreement: the same model, weights and batch must give the same
// losses on another backend as on the pure-Go one (backends.Default), step by
// step from identical weights, and training the same fold with the same seed
// must learn on both. TestONNX* (backend_onnx_test.go, -tags onnx) checks ONNX Runtime;
// TestBackendAgreesWithGo and TestBackendAccuracyMatchesGo check the backend
// named by the test binary's flag -agree-backend (e.g. "xla:cuda,tf32=false" on
// a GPU, see environment.md), by default backends.SingleThread, the executor a
// sweep gives each worker of a single-threaded plan. The tolerances:
const (
	// agreeLossRelTol bounds the relative difference of the training loss of
	// the first step (the same initial weights and batch on both backends), and
	// of each of the following agreeSteps dense steps.
	agreeLossRelTol = 1e-4
	// agreeSteps is the number of dense steps after the first whose losses
	// must agree as well (the dense path has no discrete top-k choices, so the
	// backends cannot drift apart by flipping one).
	agreeSteps = 4
	// agreeCEAbsTol bounds the per-sample inference cross-entropy difference on
	// both paths with the same weights.
	agreeCEAbsTol = 1e-4
	// agreeMinAcc is the accuracy that training the same fold with the same
	// seed must reach on each backend. The two runs are not compared with
	// each other: they differ in their initial weights, dropout masks and
	// rounding, and the sparse epochs' top-1 routing and top-K shapes turn a
	// last-bit difference into another trajectory, so their gap depends on the
	// CPU's SIMD level; the steps above are the equivalence check.
	agreeMinAcc = 0.9
)

// agreeBackendConfig gives the backend config that TestBackendAgreesWithGo
// and TestBackendAccuracyMatchesGo compare with the pure-Go one.
var agreeBackendConfig = benchflags.String("agree-backend", backends.SingleThread,
	"backend config that TestBackendAgreesWithGo and TestBackendAccuracyMatchesGo compare with pure Go (e.g. xla:cuda,tf32=false)")

// goBackend is the pure-Go backend whatever $GOMLX_BACKEND says.
var goBackend = sync.OnceValues(func() (compute.Backend, error) { return backends.New(backends.Default) })

func testGoBackend(t *testing.T) compute.Backend {
	t.Helper()
	b, err := goBackend()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// agreeBackend is the backend the TestBackend* tests compare with pure Go,
// started once.
var agreeBackend struct {
	once    sync.Once
	backend compute.Backend
	err     error
}

func testAgreeBackend(t *testing.T) compute.Backend {
	t.Helper()
	config := agreeBackendConfig(t)
	agreeBackend.once.Do(func() { agreeBackend.backend, agreeBackend.err = backends.New(config) })
	if agreeBackend.err != nil {
		t.Fatalf("-agree-backend=%s: %v", config, agreeBackend.err)
	}
	return agreeBackend.backend
}

// TestBackendAgreesWithGo: checkAgreesWithGo, both sizes, for the backend of
// -agree-backend (default: the single-threaded pure-Go executor).
func TestBackendAgreesWithGo(t *testing.T) {
	testAgreement(t, testAgreeBackend(t))
}

// TestBackendAccuracyMatchesGo: checkAccuracyMatchesGo for the backend of
// -agree-backend (default: the single-threaded pure-Go executor).
func TestBackendAccuracyMatchesGo(t *testing.T) {
	checkAccuracyMatchesGo(t, testAgreeBackend(t))
}

// testAgreement runs checkAgreesWithGo on two sizes: generated CBF as it is,
// and each series repeated 10 times with shape length 8 (1280 points, 319
// shapes: the long-sequence case), with Ĉ=6 experts, k=1, so the MoE runs in
// routed dispatch.
func testAgreement(t *testing.T, other compute.Backend) {
	for _, c := range []struct {
		name           string
		repeat, length int
	}{{"cbf", 1, 0}, {"long", 10, 8}} {
		t.Run(c.name, func(t *testing.T) { checkAgreesWithGo(t, other, c.repeat, c.length) })
	}
}

// copyVariables gives dst every variable value of src (both stores hold the same
// model, built once each), so both backends start from the same weights.
func copyVariables(t *testing.T, dst, src *job) {
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

// checkAgreesWithGo: with the same initial weights and batch, the pure-Go
// backend and other give the same inference cross-entropies on both paths
// (≤ agreeCEAbsTol), the same first training-step loss in both phases
// (relative ≤ agreeLossRelTol) and the same losses for agreeSteps more dense
// steps. Dropout is off: the backends draw different random bits.
func checkAgreesWithGo(t *testing.T, other compute.Backend, repeat, shapeLen int) {
	goB := testGoBackend(t)
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
	if repeat > 1 && (m.Shape.NumShapes <= 256 || kernels.DispatchBlock(16*KeptTokens(0.5, m.Shape.NumShapes), m.Shape.NumExperts, cfg.ExpertsK, 256, kernels.DispatchAuto) == 0) {
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
	name := other.Name()
	for _, phase := range []Phase{Dense, Sparse} {
		t.Run(phase.String(), func(t *testing.T) {
			sessions := [2]*job{}
			for i, b := range []compute.Backend{goB, other} {
				if sessions[i], err = newRunJob(b, m, 11, 0); err != nil {
					t.Fatal(err)
				}
				defer sessions[i].finalize()
				buildAll(t, b, m, sessions[i].store)
			}
			copyVariables(t, sessions[1], sessions[0])
			t.Logf("backends: %s / %s", sessions[0].backend.Description(), sessions[1].backend.Description())
			for _, p := range []Phase{Dense, Sparse} {
				ceGo, _, err := runScores(sessions[0], x, y, p)
				if err != nil {
					t.Fatal(err)
				}
				ceOther, _, err := runScores(sessions[1], x, y, p)
				if err != nil {
					t.Fatal(err)
				}
				worst := 0.0
				for i := range ceGo {
					worst = max(worst, math.Abs(ceGo[i]-ceOther[i]))
				}
				t.Logf("inference (%s path): max |ΔCE| = %.2g", p, worst)
				if worst > agreeCEAbsTol {
					t.Errorf("inference (%s path): per-sample cross-entropy differs by up to %.3g between go and %s (tolerance %g)", p, worst, name, agreeCEAbsTol)
				}
			}
			steps := 1
			if phase == Dense {
				steps += agreeSteps
			}
			for s := range steps {
				var loss [2]float64
				for i, sess := range sessions {
					loss[i] = runStep(t, sess, x, y, idx, phase)
				}
				d := relDiff(loss[0], loss[1])
				t.Logf("step %d (%s): loss go %.9g %s %.9g, relative difference %.2g", s, phase, loss[0], name, loss[1], d)
				if !(d <= agreeLossRelTol) {
					t.Errorf("step %d (%s): loss go %.7f vs %s %.7f: relative difference %.3g > %g", s, phase, loss[0], name, loss[1], d, agreeLossRelTol)
				}
			}
		})
	}
}

// checkAccuracyMatchesGo trains the same fold of the generated CBF data with
// the same seed and schedule (6 dense + 6 sparse epochs) on the pure-Go backend
// and on other: both reach agreeMinAcc.
func checkAccuracyMatchesGo(t *testing.T, other compute.Backend) {
	goB := testGoBackend(t)
	ds := data.CBF(data.CBFDefaultPerClass, data.CBFDefaultLength, 7)
	cfg := DefaultConfig()
	cfg.Epochs, cfg.WarmUpEpochs = 12, 6
	var acc [2]float64
	names := [2]string{"go", other.Name()}
	for i, b := range []compute.Backend{goB, other} {
		fr, _, err := TrainFold(ds, cfg, 0, RunOptions{Backend: b, Seed: 7})
		if err != nil {
			t.Fatalf("%s: %v", b.Name(), err)
		}
		acc[i] = fr.TestAcc
		t.Logf("%s: test acc %.4f (best epoch %d, %s path), %s", b.Description(), fr.TestAcc, fr.BestEpoch, fr.SelectedPhase, fr.Wall)
	}
	for i, name := range names {
		if acc[i] < agreeMinAcc {
			t.Errorf("%s test accuracy %.4f < %g", name, acc[i], agreeMinAcc)
		}
	}
}
