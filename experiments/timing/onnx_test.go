//go:build onnx && cgo

package timing

import (
	"testing"

	"github.com/softshape-go/softshape/internal/backends"
)

// BenchmarkONNXPaired is BenchmarkPaired on the fast CPU path, ONNX Runtime
// (installed by scripts/install-onnxruntime.sh): b.N alternated rounds of 0%
// against 50% and 90% at T=3984 with the authors' configuration, reporting
// the median cost ratio, the fraction of cheaper rounds and the Wilcoxon
// p-value. Measured on 2 shared cores: 50% 4–11% cheaper, 90% ≈30%.
//
//	go test -tags onnx -run '^$' -bench BenchmarkONNXPaired -benchtime 15x ./experiments/timing/
func BenchmarkONNXPaired(b *testing.B) {
	if backends.FindONNXRuntime() == "" {
		b.Skipf("ONNX Runtime library not found: run scripts/install-onnxruntime.sh and export %s", backends.ONNXLibraryEnvVar)
	}
	backend, err := backends.New("onnx:cpu")
	if err != nil {
		b.Fatal(err)
	}
	benchmarkPaired(b, Options{Backend: backend, Batch: 8, Seed: 1, DataRoot: dataRoot()})
}
