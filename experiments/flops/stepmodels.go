package flops

import (
	"fmt"
	"path/filepath"
	"slices"

	"github.com/gomlx/gomlx/core/tensors"

	"github.com/softshape-go/softshape/data"
	"github.com/softshape-go/softshape/internal/backends"
	"github.com/softshape-go/softshape/softshape"
	"github.com/softshape-go/softshape/softshape/fit"
)

// SaveStepModels writes the ONNX models of the graphs one epoch of each
// phase runs, as ONNX Runtime receives them, into dir (which must exist):
// train-<phase>-b<batch>.onnx, the whole training step (model, loss,
// gradients and Adam) at the protocol's batch size, and
// val-<phase>-b<batch>.onnx, the validation pass. It runs one training step
// of each phase (softshape.Stepper, fold 1 of opts' run). For ONNX
// Runtime's own per-operator profile (scripts/ort-profile.sh). It returns
// the files written.
func SaveStepModels(ds *data.Dataset, cfg softshape.Config, opts softshape.RunOptions, dir string) ([]string, error) {
	backend, m, fd, bs, err := softshape.FirstFold(ds, cfg, opts)
	if err != nil {
		return nil, err
	}
	if !backends.KeepONNXModels(backend) {
		return nil, fmt.Errorf("saving ONNX models: the backend is %s, not ONNX Runtime", backend.Name())
	}
	s, err := softshape.NewStepper(backend, m, opts.Seed, opts.RefShapeLen)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	var files []string
	for _, phase := range []softshape.Phase{softshape.Dense, softshape.Sparse} {
		x, y := firstRows(fd.TrainX, fd.TrainY, bs)
		xs, ys := x.Shape(), y.Shape()
		_, err := s.Step(phase, x, y)
		x.FinalizeAll()
		y.FinalizeAll()
		if err != nil {
			return nil, err
		}
		exec, err := s.StepExecutable(phase, xs, ys) // built by the step
		if err != nil {
			return nil, err
		}
		path := filepath.Join(dir, fmt.Sprintf("train-%s-b%d.onnx", phase, bs))
		if err := backends.SaveONNXModel(backend, exec, path); err != nil {
			return nil, err
		}
		files = append(files, path)
		evalPhase := cfg.EvalPhase(phase)
		nv := min(len(fd.ValY), fit.EvalChunk)
		if exec, err = s.EvalExecutable(evalPhase, nv); err != nil {
			return nil, err
		}
		path = filepath.Join(dir, fmt.Sprintf("val-%s-b%d.onnx", evalPhase, nv))
		if slices.Contains(files, path) { // both phases validate on one path
			continue
		}
		if err := backends.SaveONNXModel(backend, exec, path); err != nil {
			return nil, err
		}
		files = append(files, path)
	}
	return files, nil
}

// firstRows packs the first n rows of x and y into a batch x [n, T]
// (softshape.InputDType), y [n, 1] int32.
func firstRows(x [][]float32, y []int, n int) (*tensors.Tensor, *tensors.Tensor) {
	flat := make([]float32, 0, n*len(x[0]))
	labels := make([]int32, n)
	for i := range n {
		flat = append(flat, x[i]...)
		labels[i] = int32(y[i])
	}
	return tensors.FromFlatDataAndDimensions(flat, n, len(x[0])), tensors.FromFlatDataAndDimensions(labels, n, 1)
}
