//go:build onnx && cgo

package flops

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gomlx/compute"
	onnxbackend "github.com/gomlx/compute-onnx"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"

	"github.com/softshape-go/softshape/data"
	"github.com/softshape-go/softshape/internal/backends"
	"github.com/softshape-go/softshape/softshape"
	"github.com/softshape-go/softshape/softshape/fit"
)

// TestSaveStepModelsWritesTheEpochGraphs runs SaveStepModels on ONNX
// Runtime (`go test -tags onnx ./experiments/flops/`, the library of
// scripts/install-onnxruntime.sh) for generated CBF data (120 series of
// length 64, 3 classes) and reads every file back into ONNX Runtime: the
// training steps take x [B, T], y [B, 1] and the activity [1] at fold 1's
// batch size, the validation passes take [n, T] and give the logits
// [n, C]. The validation path of each phase is its own by default; with
// eval_path=sparse both phases validate on the sparse pass, written once.
func TestSaveStepModelsWritesTheEpochGraphs(t *testing.T) {
	if backends.FindONNXRuntime() == "" {
		t.Fatalf("ONNX Runtime library not found: run scripts/install-onnxruntime.sh and export %s", backends.ONNXLibraryEnvVar)
	}
	backend, err := backends.New("onnx:cpu")
	if err != nil {
		t.Fatal(err)
	}
	const T, C = 64, 3
	ds := data.CBF(40, T, 3)
	for _, evalPath := range []softshape.EvalPath{softshape.EvalPathPhase, softshape.EvalPathSparse} {
		t.Run(string(evalPath), func(t *testing.T) {
			cfg, err := softshape.DefaultConfig().WithSettings(softshape.ParamEvalPath + "=" + string(evalPath))
			if err != nil {
				t.Fatal(err)
			}
			opts := softshape.RunOptions{Backend: backend, Seed: 1}
			_, _, fd, bs, err := softshape.FirstFold(ds, cfg, opts)
			if err != nil {
				t.Fatal(err)
			}
			nv := min(len(fd.ValY), fit.EvalChunk)
			dir := t.TempDir()
			files, err := SaveStepModels(ds, cfg, opts, dir)
			if err != nil {
				t.Fatal(err)
			}
			name := func(f string, a ...any) string { return filepath.Join(dir, fmt.Sprintf(f, a...)) }
			want := []string{name("train-dense-b%d.onnx", bs), name("val-dense-b%d.onnx", nv),
				name("train-sparse-b%d.onnx", bs), name("val-sparse-b%d.onnx", nv)}
			if evalPath == softshape.EvalPathSparse {
				want = []string{want[0], want[3], want[2]}
			}
			if !slices.Equal(files, want) {
				t.Fatalf("SaveStepModels wrote %v, want %v", files, want)
			}
			t.Logf("fold 1: batch %d, validation %d; wrote %v", bs, nv, files)
			for _, f := range files {
				e := loadONNX(t, backend, f)
				_, in := e.Inputs()
				wantIn := []shapes.Shape{shapes.Make(softshape.InputDType, bs, T), shapes.Make(dtypes.Int32, bs, 1), shapes.Make(dtypes.Float32, 1)}
				var wantOut []shapes.Shape
				if filepath.Base(f)[:3] == "val" {
					wantIn, wantOut = []shapes.Shape{shapes.Make(softshape.InputDType, nv, T)}, []shapes.Shape{shapes.Make(dtypes.Float32, nv, C)}
				}
				if len(in) < len(wantIn) || !slices.EqualFunc(in[:len(wantIn)], wantIn, shapes.Shape.Equal) {
					t.Errorf("%s: inputs %v, want %v first", f, in, wantIn)
				}
				if out := e.Outputs(); wantOut != nil && !slices.EqualFunc(out, wantOut, shapes.Shape.Equal) {
					t.Errorf("%s: outputs %v, want %v", f, out, wantOut)
				}
			}
		})
	}
}

// loadONNX reads the ONNX model of path into ONNX Runtime.
func loadONNX(t *testing.T, backend compute.Backend, path string) compute.Executable {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	e, err := onnxbackend.LoadModel(backend, f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	t.Cleanup(e.Finalize)
	return e
}
