package backends

import (
	"strings"

	"github.com/gomlx/compute"
)

// DefaultMaxRuns is the default cap on R, the runs softshape.TrainRuns,
// softshape.Train and the sweeps train at a time on backend: 10 on pure Go
// (trained alone at the same time, on both cores) and on XLA with a GPU (on
// the run axis DefaultRunAxis turns on there), 1 on ONNX Runtime and
// anything else, as measured in docs/performance.md, "Many runs in one
// graph" (and docs/gpu.md). softshape.RunOptions.MaxRuns and the CLI's
// -max-runs override it.
func DefaultMaxRuns(backend compute.Backend) int {
	if backend == nil {
		return 1
	}
	if strings.HasPrefix(strings.ToLower(backend.Name()), "go") || DefaultRunAxis(backend) { // "Go Backend"; XLA on a GPU
		return 10
	}
	return 1
}

// DefaultRunAxis reports whether softshape.TrainRuns uses a run axis on
// backend when softshape.RunOptions.RunAxis is softshape.RunAxisAuto: on
// XLA with an accelerator (CUDA), not on the CPU backends, where a step is
// bound by arithmetic (measured in docs/performance.md, "Many runs in one
// graph").
func DefaultRunAxis(backend compute.Backend) bool {
	return backend != nil && xlaOnAccelerator(backend.Name(), backend.Description())
}

// xlaOnAccelerator reports whether a backend of this name and description is
// XLA with a plugin other than the CPU one: go-xla's backend is named "xla"
// and described as "xla:PLUGIN - ...".
func xlaOnAccelerator(name, description string) bool {
	if name != "xla" {
		return false
	}
	plugin, _, _ := strings.Cut(strings.TrimPrefix(description, "xla:"), " ")
	return plugin != "" && plugin != "cpu"
}
