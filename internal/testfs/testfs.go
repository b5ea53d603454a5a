// Package testfs writes the files that tests read, and lists the folders
// they write. It is imported by tests only.
package testfs

import (
	"os"
	"path/filepath"
	"testing"
)

// Write writes content to dir/name, creating the folders it needs, and
// returns the path; a failure fails t.
func Write(t testing.TB, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// List returns the names in dir; a failure to read it fails t.
func List(t testing.TB, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}
