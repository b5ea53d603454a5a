package softshape

import (
	"fmt"
	"path/filepath"
	"slices"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"

	"github.com/softshape-go/softshape/data"
	"github.com/softshape-go/softshape/internal/backends"
	"github.com/softshape-go/softshape/softshape/fit"
)

// SaveStepModels writes the ONNX models of the graphs one epoch of each
// phase runs, as ONNX Runtime receives them, into dir (which must exist):
// train-<phase>-b<batch>.onnx, the whole training step (model, loss,
// gradients and Adam) at the protocol's batch size, and
// val-<phase>-b<batch>.onnx, the validation pass. It runs one training step
// of each phase. For ONNX Runtime's own per-operator profile
// (scripts/ort-profile.sh). It returns the files written.
func SaveStepModels(ds *data.Dataset, cfg Config, opts RunOptions, dir string) ([]string, error) {
	backend, m, fd, bs, err := FirstFold(ds, cfg, opts)
	if err != nil {
		return nil, err
	}
	if !backends.KeepONNXModels(backend) {
		return nil, fmt.Errorf("saving ONNX models: the backend is %s, not ONNX Runtime", backend.Name())
	}
	rj, err := newRunJob(backend, m, opts.Seed, 0, opts.RefShapeLen)
	if err != nil {
		return nil, err
	}
	defer rj.finalize()
	idx := span(0, bs)
	var files []string
	for _, phase := range []Phase{Dense, Sparse} {
		x, y := batchTensors(fd.TrainX, fd.TrainY, idx)
		xs, ys := x.Shape(), y.Shape()
		_, err := rj.step(phase, x, y)
		x.FinalizeAll()
		y.FinalizeAll()
		if err != nil {
			return nil, fmt.Errorf("%s training step: %w", phase, err)
		}
		exec, err := rj.trainExec(phase, []int{bs}, bs) // built by the step
		if err != nil {
			return nil, err
		}
		g, err := exec.Compile(xs, ys, shapes.Make(dtypes.Float32, 1))
		if err != nil {
			return nil, err
		}
		path := filepath.Join(dir, fmt.Sprintf("train-%s-b%d.onnx", phase, bs))
		if err := backends.SaveONNXModel(backend, g.Executable(), path); err != nil {
			return nil, err
		}
		files = append(files, path)
		evalPhase := cfg.EvalPhase(phase)
		nv := min(len(fd.ValY), fit.EvalChunk)
		e, err := rj.evalExec(evalPhase)
		if err != nil {
			return nil, err
		}
		if g, err = e.Compile(shapes.Make(InputDType, nv, m.Shape.SeriesLen)); err != nil {
			return nil, err
		}
		path = filepath.Join(dir, fmt.Sprintf("val-%s-b%d.onnx", evalPhase, nv))
		if slices.Contains(files, path) { // both phases validate on one path
			continue
		}
		if err := backends.SaveONNXModel(backend, g.Executable(), path); err != nil {
			return nil, err
		}
		files = append(files, path)
	}
	return files, nil
}

// FirstFold sets up a run of cfg on ds as Train does (opts.Backend, or
// backends.New(""); the model, in the forms opts.Fast selects; opts' folds)
// and prepares its fold 1. It returns the backend, the model, fold 1's data
// and the protocol's batch size for its training split: what the tools that
// look at one epoch need (SaveStepModels, experiments/flops).
func FirstFold(ds *data.Dataset, cfg Config, opts RunOptions) (compute.Backend, *Model, *data.FoldData, int, error) {
	backend, m, splits, err := setUp(ds, cfg, &opts)
	if err != nil {
		return nil, nil, nil, 0, err
	}
	fd, err := prepareFold(ds, splits, 0)
	if err != nil {
		return nil, nil, nil, 0, err
	}
	bs, err := batchSize(cfg, len(fd.TrainY))
	return backend, m, fd, bs, err
}
