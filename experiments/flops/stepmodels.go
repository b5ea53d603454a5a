package flops

import (
	"fmt"
	"path/filepath"
	"slices"

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
	first := make([]int, bs) // the first batch of the training split
	for i := range first {
		first[i] = i
	}
	var files []string
	for _, phase := range []softshape.Phase{softshape.Dense, softshape.Sparse} {
		x, y := softshape.BatchTensors(fd.TrainX, fd.TrainY, first)
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
