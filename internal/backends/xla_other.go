//go:build !cgo || noxla

package backends

import "errors"

// xlaHasPlugin is false: this binary has no XLA backend.
func xlaHasPlugin(string) bool { return false }

// installXLAPlugin fails: this binary has no XLA backend.
func installXLAPlugin(string) error {
	return errors.New("this binary has no XLA backend (built with CGO_ENABLED=0 or -tags noxla)")
}
