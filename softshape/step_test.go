package softshape

import (
	"slices"
	"strings"
	"testing"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/softshape-go/softshape/data"
	"github.com/softshape-go/softshape/internal/tensortest"
)

// TestStepperIsTrainStep checks that a Stepper runs Train's training step.
// On generated CBF data (10 series per class, T = 64), unshuffled, with the
// whole training split in one batch (batch_rule large), every epoch of
// fold 1 is one step, so its training loss is that step's loss. A Stepper
// of the same seed stepping that batch in the epochs' phases (dense, then
// sparse twice) must give those losses to the bit: the first checks the
// initial weights and the dropout stream, the next ones the Adam update and
// the MoE's variables created at the first sparse step. A Stepper of
// another seed must give another first loss.
func TestStepperIsTrainStep(t *testing.T) {
	ds := data.CBF(10, 64, 3)
	cfg := DefaultConfig()
	cfg.Epochs, cfg.WarmUpEpochs = 3, 1
	cfg.Shuffle, cfg.BatchRule = false, BatchRuleLarge
	opts := RunOptions{Execution: Execution{MaxRuns: 1}, Backend: testBackend(t), Seed: 5, Folds: []int{0}}
	res, err := Train(ds, cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	hist := res.Folds[0].History
	if len(hist) != cfg.Epochs {
		t.Fatalf("Train ran %d epochs, want %d", len(hist), cfg.Epochs)
	}
	backend, m, fd, bs, err := FirstFold(ds, cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	if bs != len(fd.TrainY) {
		t.Fatalf("batch size %d for %d training series: an epoch is more than one step", bs, len(fd.TrainY))
	}
	idx := make([]int, bs)
	for i := range idx {
		idx[i] = i
	}
	x, y := BatchTensors(fd.TrainX, fd.TrainY, idx)
	defer x.FinalizeAll()
	defer y.FinalizeAll()

	s, err := NewStepper(backend, m, opts.Seed, opts.RefShapeLen)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, h := range hist {
		got, err := s.Step(h.Phase, x, y)
		if err != nil {
			t.Fatalf("epoch %d: %v", h.Epoch, err)
		}
		if got != h.TrainLoss {
			t.Errorf("epoch %d (%s): Stepper loss %v, Train's %v", h.Epoch, h.Phase, got, h.TrainLoss)
		}
	}
	if s.Params() != res.Folds[0].Params {
		t.Errorf("Stepper has %d parameters, Train's model %d", s.Params(), res.Folds[0].Params)
	}

	other, err := NewStepper(backend, m, opts.Seed+1, opts.RefShapeLen)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	got, err := other.Step(Dense, x, y)
	if err != nil {
		t.Fatal(err)
	}
	if got == hist[0].TrainLoss {
		t.Errorf("seeds %d and %d give the same first loss %v", opts.Seed, opts.Seed+1, got)
	}
}

// TestStepperRejectsBadBatch: a batch of the wrong series length or labels
// of the wrong shape is an error naming the shape wanted, not a panic.
func TestStepperRejectsBadBatch(t *testing.T) {
	m, err := New(DefaultConfig(), 64, 3, 0)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewStepper(testBackend(t), m, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	short := tensors.FromFlatDataAndDimensions(make([]float32, 2*32), 2, 32)
	x := tensors.FromFlatDataAndDimensions(make([]float32, 2*64), 2, 64)
	y2 := tensors.FromFlatDataAndDimensions([]int32{0, 1}, 2, 1)
	y3 := tensors.FromFlatDataAndDimensions([]int32{0, 1, 1}, 3, 1)
	if _, err := s.Step(Dense, short, y2); err == nil || !strings.Contains(err.Error(), "want [B, 64]") {
		t.Errorf("series of length 32 for T = 64: error %v, want one naming [B, 64]", err)
	}
	if _, err := s.Step(Dense, x, y3); err == nil || !strings.Contains(err.Error(), "want [2, 1]") {
		t.Errorf("3 labels for 2 series: error %v, want one naming [2, 1]", err)
	}
}

// TestStepperExecutables checks the compiled graphs a Stepper hands out.
// StepExecutable after a Step at batch B is the graph that step built (no
// new graph, the same executable each time), with inputs x [B, T], y [B, 1]
// and the activity [1]; EvalExecutable(phase, n) takes [n, T] and gives
// the logits [n, C]. Asked for before any Step, the training step creates
// the phase's variables as Step does: a Stepper that first hands out its
// dense step and then steps gives the loss of one that only steps. Bad
// shapes and n < 1 are errors naming what is wanted.
func TestStepperExecutables(t *testing.T) {
	const b, T, C = 4, 64, 3
	m, err := New(DefaultConfig(), T, C, 0)
	if err != nil {
		t.Fatal(err)
	}
	x := tensortest.Series(b, T)
	y := tensors.FromFlatDataAndDimensions([]int32{0, 1, 2, 0}, b, 1)
	defer x.FinalizeAll()
	defer y.FinalizeAll()
	backend := testBackend(t)

	plain, err := NewStepper(backend, m, 7, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	want, err := plain.Step(Dense, x, y)
	if err != nil {
		t.Fatal(err)
	}
	graphs := plain.job.graphs
	e, err := plain.StepExecutable(Dense, x.Shape(), y.Shape())
	if err != nil {
		t.Fatal(err)
	}
	if plain.job.graphs != graphs {
		t.Errorf("StepExecutable after a Step built %d more graphs, want none", plain.job.graphs-graphs)
	}
	if again, err := plain.StepExecutable(Dense, x.Shape(), y.Shape()); err != nil || again != e {
		t.Errorf("StepExecutable twice: %v (error %v), want the same executable", again, err)
	}
	_, in := e.Inputs()
	wantIn := []shapes.Shape{x.Shape(), y.Shape(), shapes.Make(dtypes.Float32, 1)}
	if len(in) < 3 || !slices.EqualFunc(in[:3], wantIn, shapes.Shape.Equal) {
		t.Errorf("training step inputs %v, want %v first", in, wantIn)
	}
	v, err := plain.EvalExecutable(Dense, 5)
	if err != nil {
		t.Fatal(err)
	}
	if _, in := v.Inputs(); len(in) < 1 || !in[0].Equal(shapes.Make(InputDType, 5, T)) {
		t.Errorf("validation pass inputs %v, want [5, %d] first", in, T)
	}
	if out := v.Outputs(); len(out) != 1 || !out[0].Equal(shapes.Make(dtypes.Float32, 5, C)) {
		t.Errorf("validation pass outputs %v, want the logits [5, %d]", out, C)
	}

	first, err := NewStepper(backend, m, 7, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	if _, err := first.StepExecutable(Dense, x.Shape(), y.Shape()); err != nil {
		t.Fatal(err)
	}
	if got, err := first.Step(Dense, x, y); err != nil || got != want {
		t.Errorf("Step after StepExecutable: loss %v (error %v), want %v", got, err, want)
	}

	if _, err := first.StepExecutable(Dense, shapes.Make(InputDType, b, 32), y.Shape()); err == nil || !strings.Contains(err.Error(), "want [B, 64]") {
		t.Errorf("StepExecutable for series of length 32: error %v, want one naming [B, 64]", err)
	}
	if _, err := first.EvalExecutable(Dense, 0); err == nil || !strings.Contains(err.Error(), "want at least 1") {
		t.Errorf("EvalExecutable of 0 series: error %v, want one asking for at least 1", err)
	}
}
