// Package ucrtest loads the UCR datasets that tests and benchmarks train on:
// the copy bundled in package data when there is one, else the shared
// archive (internal/shareddata; the test skips without it). It is imported
// by tests only (package data's own tests cannot: it imports data).
package ucrtest

import (
	"testing"

	"github.com/softshape-go/softshape/data"
	"github.com/softshape-go/softshape/internal/shareddata"
)

// Load loads the UCR dataset name for t: bundled, else from the shared
// archive; a dataset that does not load fails t.
func Load(t testing.TB, name string) *data.Dataset {
	t.Helper()
	if data.IsBundled(name) {
		ds, err := data.LoadBundled(name)
		if err != nil {
			t.Fatalf("bundled dataset %s: %v", name, err)
		}
		return ds
	}
	ds, err := data.Load(shareddata.Dataset(t, name), name)
	if err != nil {
		t.Fatalf("UCR dataset %s: %v", name, err)
	}
	return ds
}
