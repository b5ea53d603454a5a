//go:build cgo && !noxla

package backends

// The XLA/PJRT backend ("xla:cpu", "xla:cuda") needs cgo and, at run time, a PJRT
// plugin: point PJRT_PLUGIN_LIBRARY_PATH at a folder holding it, or install it
// into ~/.local/lib/go-xla with go-xla's installer, which softshape runs only
// when asked ($SOFTSHAPE_XLA_INSTALL=1, XLAInstallEnv; see environment.md).
// Build with -tags noxla (or CGO_ENABLED=0) to leave XLA out.
import (
	"strings"

	"github.com/gomlx/go-xla/compute/xla"
	_ "github.com/gomlx/go-xla/compute/xla/autoinstall"
	"github.com/gomlx/go-xla/pjrt"
)

func init() {
	// go-xla downloads a missing plugin on first use unless told not to:
	// softshape downloads only when asked (installXLAPlugin).
	xla.EnableAutoInstall(false)
}

// xlaHasPlugin reports whether go-xla finds a PJRT plugin for platform
// ("cpu", "cuda"; "" for any) where it searches ($PJRT_PLUGIN_LIBRARY_PATH,
// ~/.local/lib/go-xla, /usr/local/lib/go-xla, the system's library paths),
// its name plain or versioned ("cuda", "cuda_v0.1"). It downloads nothing.
func xlaHasPlugin(platform string) bool {
	for name := range pjrt.AvailablePlugins() {
		if platform == "" || name == platform || strings.HasPrefix(name, platform+"_v") {
			return true
		}
	}
	return false
}

// installXLAPlugin downloads and installs the PJRT plugin for platform
// with go-xla's installer (into ~/.local/lib/go-xla).
func installXLAPlugin(platform string) error {
	if platform == "" {
		return xla.AutoInstall()
	}
	return xla.AutoInstallPlugin(platform)
}
