package softshape

import (
	"strings"
	"testing"

	"github.com/softshape-go/softshape/data"
	"github.com/softshape-go/softshape/softshape/fit"
)

// TestSparsePhaseReleasesDenseGraphs: once a fold's warm-up is over, its job
// holds no graph of the dense phase (on ONNX Runtime each holds a session
// and its memory), while it held some during the warm-up, so the check can
// fail; the fold still trains to its end.
func TestSparsePhaseReleasesDenseGraphs(t *testing.T) {
	ds, err := data.LoadBundled("ItalyPowerDemand")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := DefaultConfig().WithSettings("embed_dim=16;epochs=4;warmup_epochs=2")
	if err != nil {
		t.Fatal(err)
	}
	opts := RunOptions{Backend: testBackend(t), Seed: 3}
	m, err := newModel(ds, cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	fd, err := PrepareFold(ds, opts, 0)
	if err != nil {
		t.Fatal(err)
	}
	c := &chainSpec{cfg: cfg, seed: opts.Seed, folds: []int{0}, want: []int{0}, m: m, fds: []*data.FoldData{fd}}
	j, err := newJob(opts.Backend, []*chainSpec{c}, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer j.finalize()
	st, err := j.newRunState(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	dense := func() (keys []string) {
		for k := range j.execs {
			if strings.Contains(k, "|"+Dense.String()) {
				keys = append(keys, k)
			}
		}
		return keys
	}
	var epochs int
	j.onEpoch = func(es EpochStats) {
		epochs++
		if got := dense(); (es.Phase == Dense) != (len(got) > 0) {
			t.Errorf("after epoch %d (%s): dense graphs %v", es.Epoch, es.Phase, got)
		}
	}
	if err := fit.Train(j, []*runState{st}); err != nil || st.Err != nil {
		t.Fatal(err, st.Err)
	}
	if epochs != cfg.Epochs {
		t.Errorf("trained %d epochs, want %d", epochs, cfg.Epochs)
	}
}
