package softshape

import (
	"fmt"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	"github.com/gomlx/gomlx/core/tensors"
)

// Stepper runs Train's training step on batches of the caller's, one step
// at a time, without the loop around it: the step graph (forward pass,
// loss, gradients and Adam) that a run training alone executes, a run axis
// of one run (the single-run model). Its weights, Adam state and RNG
// stream start as those of fold 1 of a run of Train with seed, so its
// first steps on the batches of Train's first epoch give Train's losses.
// For timing steps (experiments/timing) and for looking at the step's
// compiled graphs (StepExecutable, EvalExecutable; experiments/flops).
type Stepper struct{ job *job }

// NewStepper returns the training step of m (built by New with refShapeLen,
// which the run's store records) on backend, the run seeded by seed as
// Train seeds fold 1 of a run of seed. Its variables are created at the
// first step of each phase, as Train creates them.
func NewStepper(backend compute.Backend, m *Model, seed int64, refShapeLen int) (*Stepper, error) {
	rj, err := newRunJob(backend, m, seed, refShapeLen)
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
	if _, err := s.checkBatch(x.Shape(), y.Shape()); err != nil {
		return 0, err
	}
	l, err := s.job.step(phase, x, y)
	if err != nil {
		return 0, fmt.Errorf("%s training step: %w", phase, err)
	}
	return l, nil
}

// checkBatch checks the shapes of a batch x [B, T] (InputDType), y [B, 1]
// int32 and returns B.
func (s *Stepper) checkBatch(xs, ys shapes.Shape) (int, error) {
	if xs.Rank() != 2 || xs.Dimensions[1] != s.job.m.Shape.SeriesLen || xs.DType != InputDType {
		return 0, fmt.Errorf("training step: x is %s, want [B, %d] %s", xs, s.job.m.Shape.SeriesLen, InputDType)
	}
	b := xs.Dimensions[0]
	if ys.Rank() != 2 || ys.Dimensions[0] != b || ys.Dimensions[1] != 1 || ys.DType != dtypes.Int32 {
		return 0, fmt.Errorf("training step: y is %s, want [%d, 1] %s", ys, b, dtypes.Int32)
	}
	return b, nil
}

// StepExecutable returns the compiled training step of phase for a batch
// of the shapes x [B, T], y [B, 1] (as Step wants them): the graph Step
// runs on such a batch, with a third input, the run's activity [1] (1
// trains), and outputs the loss and the correct predictions [1]. If no
// Step of phase at batch size B has built it yet, it builds and compiles it
// now, the phase's variables created as Step creates them. For looking at
// the graph itself (experiments/flops saves it for ONNX Runtime's profile).
// The Stepper owns it: Close frees it.
func (s *Stepper) StepExecutable(phase Phase, x, y shapes.Shape) (compute.Executable, error) {
	b, err := s.checkBatch(x, y)
	if err != nil {
		return nil, err
	}
	if err := s.job.materialize(phase, b); err != nil {
		return nil, fmt.Errorf("%s training step: %w", phase, err)
	}
	exec, err := s.job.trainExec(phase, []int{b}, b)
	if err != nil {
		return nil, fmt.Errorf("%s training step: %w", phase, err)
	}
	g, err := exec.Compile(x, y, shapes.Make(dtypes.Float32, 1))
	if err != nil {
		return nil, fmt.Errorf("compiling the %s training step for batch %d: %w", phase, b, err)
	}
	return g.Executable(), nil
}

// EvalExecutable returns the compiled validation pass of phase for n
// series: the inference graph Train's evaluation of the run runs on a
// chunk of n series (x [n, T] in, the logits [n, C] out), the phase's
// variables created first as Train creates them. The Stepper owns it:
// Close frees it.
func (s *Stepper) EvalExecutable(phase Phase, n int) (compute.Executable, error) {
	if n < 1 {
		return nil, fmt.Errorf("%s validation pass of %d series: want at least 1", phase, n)
	}
	if err := s.job.materialize(phase, n); err != nil {
		return nil, fmt.Errorf("%s validation pass: %w", phase, err)
	}
	exec, err := s.job.evalExec(phase)
	if err != nil {
		return nil, fmt.Errorf("%s validation pass: %w", phase, err)
	}
	g, err := exec.Compile(shapes.Make(InputDType, n, s.job.m.Shape.SeriesLen))
	if err != nil {
		return nil, fmt.Errorf("compiling the %s validation pass for %d series: %w", phase, n, err)
	}
	return g.Executable(), nil
}

// Params is the number of trainable parameters created so far: those of
// the phases stepped.
func (s *Stepper) Params() int { return ParameterCount(s.job.store) }

// Close frees the compiled graphs and the variables.
func (s *Stepper) Close() { s.job.finalize() }
