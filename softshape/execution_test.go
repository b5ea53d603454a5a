package softshape

import (
	"strings"
	"testing"

	"github.com/softshape-go/softshape/data"
)

// TestExecutionNamesTheBackend: with no backend started, Fit and Train
// start the one Execution.BackendName names, so a name no backend has is
// an error naming it, before anything trains.
func TestExecutionNamesTheBackend(t *testing.T) {
	ds := data.CBF(4, 32, 1)
	cfg := DefaultConfig()
	cfg.Epochs, cfg.WarmUpEpochs = 1, 0
	opts := RunOptions{Execution: Execution{BackendName: "nosuchbackend"}}
	if _, err := Fit(ds, nil, cfg, opts); err == nil || !strings.Contains(err.Error(), "nosuchbackend") {
		t.Errorf("Fit on backend %q: error %v, want one naming it", opts.BackendName, err)
	}
	if _, err := Train(ds, cfg, opts); err == nil || !strings.Contains(err.Error(), "nosuchbackend") {
		t.Errorf("Train on backend %q: error %v, want one naming it", opts.BackendName, err)
	}
}
