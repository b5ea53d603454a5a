//go:build !(onnx && cgo)

package backends

import (
	"errors"

	"github.com/gomlx/compute"
)

// KeepONNXModels is false: this binary has no ONNX Runtime backend.
func KeepONNXModels(compute.Backend) bool { return false }

// SaveONNXModel fails: this binary has no ONNX Runtime backend.
func SaveONNXModel(compute.Backend, compute.Executable, string) error {
	return errors.New("saving an ONNX model needs a binary built with -tags onnx")
}
