//go:build !(onnx && cgo)

package softshape

import (
	"errors"

	"github.com/gomlx/compute"
)

// keepONNXModels is false: this binary has no ONNX Runtime backend.
func keepONNXModels(compute.Backend) bool { return false }

// saveONNXModel fails: this binary has no ONNX Runtime backend.
func saveONNXModel(compute.Backend, compute.Executable, string) error {
	return errors.New("saving an ONNX model needs a binary built with -tags onnx")
}
