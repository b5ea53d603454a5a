package reproduce

import (
	"os"
	"path/filepath"
	"testing"
)

// TestIsRepo: the repository is recognised by its go.mod's module line
// alone, whatever its go directive, line endings or comments.
func TestIsRepo(t *testing.T) {
	for _, tc := range []struct {
		gomod string
		want  bool
	}{
		{"module github.com/softshape-go/softshape\n\ngo 1.26.5\n", true},
		{"module github.com/softshape-go/softshape\n\ngo 1.99\n\ntoolchain go1.99.1\n", true},
		{"// SoftShape\r\nmodule github.com/softshape-go/softshape // comment\r\ngo 1.30\r\n", true},
		{"module \"github.com/softshape-go/softshape\"", true},
		{"module github.com/softshape-go/softshape/v2\n", false},
		{"module example.com/other\n\nrequire github.com/softshape-go/softshape v0.1.0\n", false},
		{"go 1.26\n", false},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(tc.gomod), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := isRepo(dir); got != tc.want {
			t.Errorf("isRepo(go.mod %q) = %v, want %v", tc.gomod, got, tc.want)
		}
	}
	if isRepo(t.TempDir()) {
		t.Error("isRepo of a folder without go.mod = true")
	}
}
