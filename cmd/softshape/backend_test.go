package main

import (
	"os"
	"testing"

	"github.com/gomlx/compute"

	"github.com/softshape-go/softshape/internal/backends"
)

// TestMain runs this package's tests on the pure-Go backend, which their
// expectations assume (stderr lines, sizes, timings): the commands' own
// default, "fastest", takes ONNX Runtime or XLA where they are built in and
// installed, and says on stderr when it falls back. A $GOMLX_BACKEND the
// caller set is kept.
func TestMain(m *testing.M) {
	if os.Getenv(compute.ConfigEnvVar) == "" {
		os.Setenv(compute.ConfigEnvVar, "go")
	}
	os.Exit(m.Run())
}

// TestCLIBackend: -backend wins, then $GOMLX_BACKEND, then the fastest
// backend built in and installed.
func TestCLIBackend(t *testing.T) {
	t.Setenv(compute.ConfigEnvVar, "")
	if got := cliBackend(""); got != backends.Fastest {
		t.Errorf("no flag, no $GOMLX_BACKEND: %q, want %q", got, backends.Fastest)
	}
	t.Setenv(compute.ConfigEnvVar, "xla:cpu")
	if got := cliBackend(" "); got != "xla:cpu" {
		t.Errorf("$GOMLX_BACKEND=xla:cpu: %q", got)
	}
	if got := cliBackend("go"); got != "go" {
		t.Errorf("-backend go: %q", got)
	}
}
