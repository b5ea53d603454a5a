//go:build cgo && !noxla

package backends

// The XLA/PJRT backend ("xla:cpu", "xla:cuda") needs cgo and, at run time, a PJRT
// plugin. With network access the auto-installer fetches a missing plugin on first
// use (set GOMLX_NO_AUTO_INSTALL=1 to forbid it); without, point
// PJRT_PLUGIN_LIBRARY_PATH at a folder holding the plugin (see environment.md).
// Build with -tags noxla (or CGO_ENABLED=0) to leave XLA out.
import (
	_ "github.com/gomlx/go-xla/compute/xla"
	_ "github.com/gomlx/go-xla/compute/xla/autoinstall"
)
