//go:build onnx && cgo

package timing

import (
	"testing"

	"github.com/softshape-go/softshape/softshape"
)

// TestONNXScaling checks paper Fig 3's claim at the authors' schedule
// (moe_layers=sparse) on the fast CPU path, ONNX Runtime: on long series
// (T=3984), fusing 50% of the shapes makes a training step significantly
// cheaper than fusing none, and 90% cheaper still. Run by .ci/run on its own
// (`go test -tags onnx -run TestONNX ./experiments/timing/`, ONNX Runtime
// installed by scripts/install-onnxruntime.sh), so that no other test
// process shares the cores. Measured here: the median round 4–11% cheaper at
// 50% (0.889–0.960 over six runs of 15 rounds, hence 25), in 12–15 of 15
// rounds (the multiply-adds bound it at ≈14%).
func TestONNXScaling(t *testing.T) {
	if testing.Short() {
		t.Skip("timing measurements are skipped with -short")
	}
	if softshape.FindONNXRuntime() == "" {
		t.Fatalf("ONNX Runtime library not found: run scripts/install-onnxruntime.sh and export %s", softshape.ONNXLibraryEnvVar)
	}
	backend, err := softshape.NewBackend("onnx:cpu")
	if err != nil {
		t.Fatal(err)
	}
	authors := softshape.DefaultConfig()
	opts := Options{Backend: backend, Batch: 8, Config: &authors, DataRoot: ucrRoot(), Seed: 1}
	comparePaired(t, opts, 3984, 0.5, 25, 0.97, 0.01)
	comparePaired(t, opts, 3984, 0.9, 7, 0.85, 0.05)
}
