//go:build onnx && cgo

package backends

// The ONNX Runtime backend ("onnx:cpu", "onnx:cuda"; GoMLX's compute-onnx) is
// compiled in with the build tag onnx (and cgo): `go build -tags onnx`,
// `go test -tags onnx`. At run time it loads the ONNX Runtime shared library
// named by $ONNXRUNTIME_SHARED_LIBRARY_PATH, else the one installed by
// scripts/install-onnxruntime.sh (New passes its path), else compute-onnx
// downloads one from GitHub into ~/.local/lib/onnxruntime unless
// GOMLX_NO_AUTO_INSTALL is set (then it fails fast with a message). Select it with
// `-backend onnx:cpu`, GOMLX_BACKEND=onnx:cpu, or "fastest". See environment.md.
import (
	_ "github.com/gomlx/compute-onnx"
)
