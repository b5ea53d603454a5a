//go:build onnx && cgo

package backends

import (
	"fmt"
	"os"

	"github.com/gomlx/compute"
	onnxbackend "github.com/gomlx/compute-onnx"
)

// KeepONNXModels asks an ONNX Runtime backend to keep the ONNX model of every
// graph it compiles from now on, for SaveONNXModel; false on other backends.
func KeepONNXModels(backend compute.Backend) bool {
	b, ok := backend.(*onnxbackend.Backend)
	if ok {
		b.SetKeepModelProto(true)
	}
	return ok
}

// SaveONNXModel writes the ONNX model of an executable compiled by backend
// (after KeepONNXModels) to path.
func SaveONNXModel(backend compute.Backend, exec compute.Executable, path string) error {
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
