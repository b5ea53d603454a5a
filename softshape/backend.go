package softshape

import (
	"fmt"
	"os"
	"strings"

	"github.com/gomlx/compute"
	_ "github.com/gomlx/compute/gobackend" // the pure-Go backend ("go"), the zero-setup default.
)

// DefaultBackend is the backend used when neither the caller nor $GOMLX_BACKEND
// names one: the pure-Go backend with parallelism=-1, the setting that avoids the
// pure-Go backend's deadlock on 2-core machines (see environment.md).
const DefaultBackend = "go:parallelism=-1"

// NewBackend returns the compute backend named by config ("go", "xla:cpu",
// "xla:cuda", "onnx:cpu" when built with -tags onnx). An empty config means
// $GOMLX_BACKEND, and when that is unset too, DefaultBackend. A plain "go" gets
// the deadlock-free setting as well. A backend that cannot start (e.g. XLA with no
// PJRT plugin installed) is an error naming it and the backends compiled in.
func NewBackend(config string) (backend compute.Backend, err error) {
	if config == "" {
		config = os.Getenv(compute.ConfigEnvVar)
	}
	if config == "" || config == "go" {
		config = DefaultBackend
	}
	defer func() {
		if r := recover(); r != nil {
			backend, err = nil, fmt.Errorf("starting GoMLX backend %q (compiled in: %s): %v", config, strings.Join(compute.List(), ", "), r)
		}
	}()
	backend, err = compute.NewWithConfig(config)
	if err != nil {
		return nil, fmt.Errorf("starting GoMLX backend %q (compiled in: %s): %w", config, strings.Join(compute.List(), ", "), err)
	}
	return backend, nil
}
