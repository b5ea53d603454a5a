package testfs

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteCreatesFolders(t *testing.T) {
	dir := t.TempDir()
	p := Write(t, filepath.Join(dir, "a"), filepath.Join("b", "c.tsv"), "1\t2\n")
	if want := filepath.Join(dir, "a", "b", "c.tsv"); p != want {
		t.Errorf("path %q, want %q", p, want)
	}
	got, err := os.ReadFile(p)
	if err != nil || string(got) != "1\t2\n" {
		t.Errorf("read back %q, %v; want %q", got, err, "1\t2\n")
	}
}
