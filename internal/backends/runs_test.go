package backends

import (
	"slices"
	"testing"

	"github.com/gomlx/compute"
)

// namedBackend is a backend that only answers Name and Description, for
// choices made by name.
type namedBackend struct {
	compute.Backend
	name, desc string
}

func (b namedBackend) Name() string        { return b.name }
func (b namedBackend) Description() string { return b.desc }

// TestDefaultMaxRunsPerBackend: pure Go trains runs alone at the same time
// by default, XLA on a GPU batches them on a run axis; ONNX Runtime and XLA
// on a CPU train one run at a time (DefaultMaxRuns' and DefaultRunAxis'
// measurements).
func TestDefaultMaxRunsPerBackend(t *testing.T) {
	for _, c := range []struct {
		b    compute.Backend
		want int
		axis bool
	}{
		{nil, 1, false},
		{namedBackend{name: "go", desc: "Go Portable Compute Backend (parallelism=-1)"}, 10, false},
		{namedBackend{name: "onnx", desc: "ONNX Runtime (CPU)"}, 1, false},
		{namedBackend{name: "onnx", desc: "ONNX Runtime (CUDA)"}, 1, false},
		{namedBackend{name: "xla", desc: `xla:cuda - PJRT "cuda" plugin (/tmp/p/pjrt_c_api_cuda_plugin.so) v0.115 [StableHLO] [1 device(s)]`}, 10, true},
		{namedBackend{name: "xla", desc: `xla:cpu - PJRT "cpu" plugin`}, 1, false},
		{namedBackend{name: "xla", desc: "xla: in an invalid state!"}, 1, false},
	} {
		name := "nil"
		if c.b != nil {
			name = c.b.Description()
		}
		if got := DefaultMaxRuns(c.b); got != c.want {
			t.Errorf("DefaultMaxRuns(%s) = %d, want %d", name, got, c.want)
		}
		if got := DefaultRunAxis(c.b); got != c.axis {
			t.Errorf("DefaultRunAxis(%s) = %v, want %v", name, got, c.axis)
		}
	}
}

// TestDefaultMaxRunsStartedBackends: the policy reads the names the backends
// started here really give: the pure-Go default trains 10 runs at a time
// without a run axis, XLA on a CPU (when compiled in and its plugin is
// installed) one.
func TestDefaultMaxRunsStartedBackends(t *testing.T) {
	configs := map[string]int{Default: 10}
	if slices.Contains(compute.List(), "xla") && xlaHasPlugin("cpu") {
		configs["xla:cpu"] = 1
	} else {
		t.Log("xla:cpu not checked: XLA not compiled in or no PJRT CPU plugin installed")
	}
	for config, want := range configs {
		b, err := New(config)
		if err != nil {
			t.Fatal(err)
		}
		if got := DefaultMaxRuns(b); got != want {
			t.Errorf("DefaultMaxRuns(%s) = %d, want %d", b.Description(), got, want)
		}
		if DefaultRunAxis(b) {
			t.Errorf("DefaultRunAxis(%s) = true, want false (a CPU backend)", b.Description())
		}
		b.Finalize()
	}
}
