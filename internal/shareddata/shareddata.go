// Package shareddata finds the project's shared research material for
// tests: the copy of the UCR archive (62 datasets) that developers and CI
// keep in a shared/ folder beside the checkout. A user's clone has no such
// folder; tests that need it skip with a one-line reason, and tests that
// need only GunPoint, ItalyPowerDemand or ArrowHead use the copies bundled
// in the data package instead.
//
// The shared folder is $SOFTSHAPE_SHARED when set, else ../shared relative
// to the module root (the folder holding go.mod, found by walking up from
// the working directory, which is the package folder under go test). With
// $SOFTSHAPE_REQUIRE_SHARED=1, as .ci/run sets, a missing folder fails the
// test instead of skipping it, so that CI cannot pass without running them.
package shareddata

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// Env names the shared folder (holding ucr/); RequireEnv=1 turns a missing
// folder from a skip into a failure.
const (
	Env        = "SOFTSHAPE_SHARED"
	RequireEnv = "SOFTSHAPE_REQUIRE_SHARED"
)

// Root returns the shared folder: $SOFTSHAPE_SHARED, else ../shared beside
// the module root. It does not check that the folder exists.
func Root() (string, error) {
	if dir := os.Getenv(Env); dir != "" {
		return dir, nil
	}
	mod, err := moduleRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(filepath.Dir(mod), "shared"), nil
}

// moduleRoot returns the nearest folder at or above the working directory
// that holds go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("shared data: %w", err)
	}
	for {
		if st, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil && st.Mode().IsRegular() {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("shared data: no go.mod above the working directory")
		}
		dir = parent
	}
}

// UCRDir returns the shared UCR folder (<shared>/ucr) and whether it exists
// as a folder.
func UCRDir() (string, bool) {
	root, err := Root()
	if err != nil {
		return "", false
	}
	dir := filepath.Join(root, "ucr")
	st, err := os.Stat(dir)
	return dir, err == nil && st.IsDir()
}

// UCR returns the shared UCR folder, or skips the test with a one-line
// reason when it is missing (fails instead under $SOFTSHAPE_REQUIRE_SHARED=1).
func UCR(t testing.TB) string {
	t.Helper()
	dir, ok := UCRDir()
	if !ok {
		missing(t, fmt.Sprintf("needs the shared UCR archive copy, not found at %s (set $%s to the folder holding ucr/)", orUnknown(dir), Env))
	}
	return dir
}

// Dataset returns the shared UCR folder when it holds the named dataset's
// folder, or skips the test as UCR does.
func Dataset(t testing.TB, name string) string {
	t.Helper()
	dir := UCR(t)
	if st, err := os.Stat(filepath.Join(dir, name)); err != nil || !st.IsDir() {
		missing(t, fmt.Sprintf("needs %s, not in the shared UCR copy at %s", name, dir))
	}
	return dir
}

// missing skips (or, under RequireEnv, fails) the test with reason.
func missing(t testing.TB, reason string) {
	t.Helper()
	if os.Getenv(RequireEnv) == "1" {
		t.Fatalf("%s; $%s=1 forbids skipping", reason, RequireEnv)
	}
	t.Skip(reason)
}

// orUnknown names a folder that could not be worked out.
func orUnknown(dir string) string {
	if dir == "" {
		return "../shared/ucr (no go.mod found)"
	}
	return dir
}
