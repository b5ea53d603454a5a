package softshape

import (
	"github.com/gomlx/compute"
	"github.com/gomlx/gomlx/ml/model"
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
	exec, err := logitsExec(backend, store, m, phase)
	if err != nil {
		store.Finalize()
		return nil, nil, err
	}
	return store, exec, nil
}
