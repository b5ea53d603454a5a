package layers

import (
	"bytes"
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"
)

// TestNoUpwardImports: no package of the module, its tests included,
// imports a package of a higher layer (go list's view of the whole module).
func TestNoUpwardImports(t *testing.T) {
	cmd := exec.Command("go", "list", "-json=ImportPath,Imports,TestImports,XTestImports", Module+"/...")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	checked := 0
	for {
		var p struct {
			ImportPath                         string
			Imports, TestImports, XTestImports []string
		}
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		from := strings.TrimPrefix(p.ImportPath, Module+"/")
		for _, imp := range append(append(p.Imports, p.TestImports...), p.XTestImports...) {
			to, ok := strings.CutPrefix(imp, Module+"/")
			if !ok || to == from {
				continue
			}
			if err := Check(from, to); err != nil {
				t.Error(err)
			}
			checked++
		}
	}
	if checked < 100 {
		t.Fatalf("checked %d imports of the module's own packages: go list listed too few packages", checked)
	}
}

// TestCheck: the rule on hand-picked pairs, each way.
func TestCheck(t *testing.T) {
	for _, c := range []struct {
		from, to string
		ok       bool
	}{
		{"softshape", "softshape/fit", true},
		{"softshape/fit", "softshape", false},
		{"softshape", "internal/kernels", true},
		{"internal/ucrtest", "data", true},
		{"data", "internal/ucrtest", true},
		{"internal/backends", "data", false},
		{"experiments/reproduce", "reproduction", true},
		{"reproduction", "cmd/softshape", false},
		{"plots/modelplots", "softshape", true},
		{"softshape", "plots", false},
		{"experiments/baseline", "baselines/rocket", true},
		{"baselines/rocket", "data", true},
		{"baselines/rocket", "softshape", false},
	} {
		if err := Check(c.from, c.to); (err == nil) != c.ok {
			t.Errorf("Check(%s, %s) = %v, want ok %t", c.from, c.to, err, c.ok)
		}
	}
	if _, err := Of("notes"); err == nil {
		t.Error("Of(notes): a path in no layer, want an error")
	}
}
