package softshape

import (
	"fmt"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/gomlx/core/tensors"
)

// Stepper runs Train's training step on batches of the caller's, one step
// at a time, without the loop around it: the step graph (forward pass,
// loss, gradients and Adam) that a run training alone executes, a run axis
// of one run (the single-run model). Its weights, Adam state and RNG
// stream start as those of fold 1 of a run of Train with seed, so its
// first steps on the batches of Train's first epoch give Train's losses.
// For timing steps (experiments/timing).
type Stepper struct{ job *job }

// NewStepper returns the training step of m (built by New with refShapeLen,
// which the run's store records) on backend, the run seeded by seed as
// Train seeds fold 1 of a run of seed. Its variables are created at the
// first step of each phase, as Train creates them.
func NewStepper(backend compute.Backend, m *Model, seed int64, refShapeLen int) (*Stepper, error) {
	rj, err := newRunJob(backend, m, seed, 0, refShapeLen)
	if err != nil {
		return nil, fmt.Errorf("stepper: %w", err)
	}
	return &Stepper{job: rj}, nil
}

// Step runs one training step of phase on the batch x [B, T] (InputDType),
// y [B, 1] int32, T the model's series length, and returns its loss: the
// mean cross-entropy plus λ times the MoE's auxiliary loss, as Train's
// step computes it. A loss that is not finite is returned as it is, with
// no error (Train fails the run on it). The first step of a phase and
// batch size builds and compiles its graph.
func (s *Stepper) Step(phase Phase, x, y *tensors.Tensor) (float64, error) {
	xs, ys := x.Shape(), y.Shape()
	if xs.Rank() != 2 || xs.Dimensions[1] != s.job.m.Shape.SeriesLen || xs.DType != InputDType {
		return 0, fmt.Errorf("training step: x is %s, want [B, %d] %s", xs, s.job.m.Shape.SeriesLen, InputDType)
	}
	b := xs.Dimensions[0]
	if ys.Rank() != 2 || ys.Dimensions[0] != b || ys.Dimensions[1] != 1 || ys.DType != dtypes.Int32 {
		return 0, fmt.Errorf("training step: y is %s, want [%d, 1] %s", ys, b, dtypes.Int32)
	}
	l, err := s.job.step(phase, x, y)
	if err != nil {
		return 0, fmt.Errorf("%s training step: %w", phase, err)
	}
	return l, nil
}

// Params is the number of trainable parameters created so far: those of
// the phases stepped.
func (s *Stepper) Params() int { return ParameterCount(s.job.store) }

// Close frees the compiled graphs and the variables.
func (s *Stepper) Close() { s.job.finalize() }
