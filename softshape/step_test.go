package softshape

import (
	"strings"
	"testing"

	"github.com/gomlx/gomlx/core/tensors"

	"github.com/softshape-go/softshape/data"
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
	opts := RunOptions{Backend: testBackend(t), Seed: 5, Folds: []int{0}, MaxRuns: 1}
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
	x, y := batchTensors(fd.TrainX, fd.TrainY, idx)
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
