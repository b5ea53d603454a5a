//go:build onnx && cgo

package softshape

import (
	"sync"
	"testing"

	"github.com/gomlx/compute"
)

// ONNX Runtime against pure Go (run with `go test -tags onnx -run TestONNX
// ./softshape/`, ONNX Runtime installed by scripts/install-onnxruntime.sh): the
// checks and tolerances of backend_agree_test.go.

var onnxBackend = sync.OnceValues(func() (compute.Backend, error) { return NewBackend("onnx:cpu") })

func testONNXBackend(t *testing.T) compute.Backend {
	t.Helper()
	if FindONNXRuntime() == "" {
		t.Fatalf("ONNX Runtime library not found: run scripts/install-onnxruntime.sh and export %s", ONNXLibraryEnvVar)
	}
	b, err := onnxBackend()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestONNXAgreesWithGoFirstSteps: checkAgreesWithGo for ONNX Runtime, on both
// sizes (generated CBF, and the long, routed-MoE case).
func TestONNXAgreesWithGoFirstSteps(t *testing.T) {
	testAgreement(t, testONNXBackend(t))
}

// TestONNXAccuracyMatchesGo: checkAccuracyMatchesGo for ONNX Runtime.
func TestONNXAccuracyMatchesGo(t *testing.T) {
	checkAccuracyMatchesGo(t, testONNXBackend(t))
}
