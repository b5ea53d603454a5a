package shareddata

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRootFromEnv: $SOFTSHAPE_SHARED wins over the folder beside the module.
func TestRootFromEnv(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(Env, dir)
	if got, err := Root(); err != nil || got != dir {
		t.Errorf("Root() = %q, %v; want %q", got, err, dir)
	}
	if _, ok := UCRDir(); ok {
		t.Error("UCRDir reports a folder without ucr/ as present")
	}
	if err := os.Mkdir(filepath.Join(dir, "ucr"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got, ok := UCRDir(); !ok || got != filepath.Join(dir, "ucr") {
		t.Errorf("UCRDir() = %q, %v", got, ok)
	}
	if got := UCR(t); got != filepath.Join(dir, "ucr") {
		t.Errorf("UCR = %q", got)
	}
}

// TestRootBesideModule: without the variable, the folder is ../shared
// beside the folder that holds go.mod, whatever the package's depth.
func TestRootBesideModule(t *testing.T) {
	t.Setenv(Env, "")
	got, err := Root()
	if err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	want := filepath.Join(wd, "..", "..", "..", "shared") // internal/shareddata → module → beside it
	if filepath.Clean(got) != filepath.Clean(want) {
		t.Errorf("Root() = %q, want %q", got, want)
	}
}

// TestMissingSkipsOrFails: a missing folder skips the test, or fails it
// under $SOFTSHAPE_REQUIRE_SHARED=1.
func TestMissingSkipsOrFails(t *testing.T) {
	t.Setenv(Env, filepath.Join(t.TempDir(), "nowhere"))
	t.Setenv(RequireEnv, "")
	ft := &fakeT{}
	runFake(ft, func() { UCR(ft) })
	if !ft.skipped || ft.failed {
		t.Errorf("missing folder: skipped %v failed %v, want a skip", ft.skipped, ft.failed)
	}
	t.Setenv(RequireEnv, "1")
	ft = &fakeT{}
	runFake(ft, func() { UCR(ft) })
	if ft.skipped || !ft.failed {
		t.Errorf("missing folder under %s=1: skipped %v failed %v, want a failure", RequireEnv, ft.skipped, ft.failed)
	}
}

// fakeT records Skip and Fatal; both stop the function as testing.T does.
type fakeT struct {
	testing.TB
	skipped, failed bool
}

type stop struct{}

func (f *fakeT) Helper()               {}
func (f *fakeT) Skip(...any)           { f.skipped = true; panic(stop{}) }
func (f *fakeT) Fatalf(string, ...any) { f.failed = true; panic(stop{}) }

// runFake runs fn, absorbing the stop of a Skip or Fatal.
func runFake(_ *fakeT, fn func()) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(stop); !ok {
				panic(r)
			}
		}
	}()
	fn()
}
