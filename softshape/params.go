package softshape

import (
	"fmt"

	"github.com/gomlx/compute"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"

	"github.com/softshape-go/softshape/internal/backends"
)

// NewLogitsExec builds a fresh variable store holding m's hyperparameters
// (m.Config), its initializer seed set to seed, and an Exec on that store of
// m's logits in phase: x [B, T] float32 → logits [B, C]. The graph is built,
// and the variables created and initialised, by the first call of the Exec,
// so an invalid model panics there; callers recover. The caller finalizes the
// Exec, then the store (on error both are already released).
func NewLogitsExec(backend compute.Backend, m *Model, phase Phase, seed int64) (*model.Store, *model.Exec, error) {
	store := model.NewStore()
	m.Config.Apply(store)
	store.RootScope().SetParam(model.ParamInitialSeed, seed)
	exec, err := model.NewExec(backend, store, func(scope *model.Scope, x *graph.Node) *graph.Node {
		return m.Forward(scope, x, phase).Logits
	})
	if err != nil {
		store.Finalize()
		return nil, nil, err
	}
	return store, exec, nil
}

// ConfigParameterCount builds the model of cfg for a dataset with series
// length T, C classes and the authors' shape length refShapeLen (0 if
// unknown), creates every variable by running the sparse-phase graph once on
// zeros (NewLogitsExec), and returns the number of trainable parameters
// (ParameterCount). The MoE exists only when some layer is sparse (or
// moe_layers=all), as in training. A nil backend means backends.New("").
func ConfigParameterCount(cfg Config, seriesLen, numClasses, refShapeLen int, backend compute.Backend) (n int, err error) {
	m, err := New(cfg, seriesLen, numClasses, refShapeLen)
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
	store, exec, err := NewLogitsExec(backend, m, Sparse, 0)
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
	return ParameterCount(store), nil
}
