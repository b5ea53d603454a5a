//go:build onnx && cgo

package softshape

import (
	"fmt"
	"os"

	"github.com/gomlx/compute"
	onnxbackend "github.com/gomlx/compute-onnx"
)

// keepONNXModels asks an ONNX Runtime backend to keep the ONNX model of every
// graph it compiles from now on, for saveONNXModel; false on other backends.
func keepONNXModels(backend compute.Backend) bool {
	b, ok := backend.(*onnxbackend.Backend)
	if ok {
		b.SetKeepModelProto(true)
	}
	return ok
}

// saveONNXModel writes the ONNX model of an executable compiled by backend
// (after keepONNXModels) to path.
func saveONNXModel(backend compute.Backend, exec compute.Executable, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := onnxbackend.SaveModel(backend, exec, f, nil, nil); err != nil {
		f.Close()
		return fmt.Errorf("saving %s: %w", path, err)
	}
	return f.Close()
}
