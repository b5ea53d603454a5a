package ablations

import (
	"fmt"

	"github.com/gomlx/compute"
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/softshape-go/softshape/internal/backends"
	"github.com/softshape-go/softshape/softshape"
)

// ParameterCount builds the model of cfg for a dataset with series
// length T, C classes and the authors' shape length refShapeLen (0 if
// unknown), creates every variable by running the sparse-phase graph once on
// zeros (softshape.NewLogitsExec), and returns the number of trainable parameters
// (softshape.ParameterCount). The MoE exists only when some layer is sparse (or
// moe_layers=all), as in training. A nil backend means backends.New("").
func ParameterCount(cfg softshape.Config, seriesLen, numClasses, refShapeLen int, backend compute.Backend) (n int, err error) {
	m, err := softshape.New(cfg, seriesLen, numClasses, refShapeLen)
	if err != nil {
		return 0, err
	}
	if backend == nil {
		if backend, err = backends.New(""); err != nil {
			return 0, err
		}
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("building the model (T=%d, C=%d): %v", seriesLen, numClasses, r)
		}
	}()
	// The seed only sets the initial values, never the count.
	store, exec, err := softshape.NewLogitsExec(backend, m, softshape.Sparse, 0)
	if err != nil {
		return 0, fmt.Errorf("building the model (T=%d, C=%d): %w", seriesLen, numClasses, err)
	}
	defer store.Finalize()
	defer exec.Finalize()
	x := tensors.FromFlatDataAndDimensions(make([]float32, 2*seriesLen), 2, seriesLen)
	out, err := exec.Call(x)
	x.FinalizeAll()
	if err != nil {
		return 0, fmt.Errorf("running the model (T=%d, C=%d): %w", seriesLen, numClasses, err)
	}
	for _, o := range out {
		o.FinalizeAll()
	}
	return softshape.ParameterCount(store), nil
}

// VariantParameterCount is ParameterCount of v applied to base.
func VariantParameterCount(v Variant, base softshape.Config, seriesLen, numClasses, refShapeLen int, backend compute.Backend) (int, error) {
	cfg, err := v.Config(base)
	if err != nil {
		return 0, err
	}
	n, err := ParameterCount(cfg, seriesLen, numClasses, refShapeLen, backend)
	if err != nil {
		return 0, fmt.Errorf("variant %q: %w", v.Name, err)
	}
	return n, nil
}
