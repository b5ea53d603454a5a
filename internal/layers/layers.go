// Package layers states the module's package layers, bottom to top, and
// checks an import against them: a package may import only packages of its
// own layer or below. README.md's Layout section describes the same layers;
// the package's test checks every import of the module (tests included).
package layers

import (
	"fmt"
	"strings"
)

// Module is the module path the layers are relative to.
const Module = "github.com/softshape-go/softshape"

// order lists the layers bottom to top, each by the package paths (relative
// to Module) it holds; a path also holds the packages below it unless a
// longer path places them.
func order() [][]string {
	return [][]string{
		{"internal"},
		{"data", "softshape/fit", "internal/ucrtest", "baselines"},
		{"softshape"},
		{"paper", "ablations", "plots"},
		{"experiments", "reproduction"},
		{"cmd"},
	}
}

// Of returns the layer (0 at the bottom) of the module's package rel, a path
// relative to Module, by the longest path of order that holds it.
func Of(rel string) (int, error) {
	layer, best := -1, -1
	for l, paths := range order() {
		for _, p := range paths {
			if (rel == p || strings.HasPrefix(rel, p+"/")) && len(p) > best {
				layer, best = l, len(p)
			}
		}
	}
	if layer < 0 {
		return 0, fmt.Errorf("package %s is in no layer of internal/layers", rel)
	}
	return layer, nil
}

// Check reports an import of the module's package to by its package from
// (paths relative to Module) that goes to a higher layer.
func Check(from, to string) error {
	lf, err := Of(from)
	if err != nil {
		return err
	}
	lt, err := Of(to)
	if err != nil {
		return err
	}
	if lt > lf {
		return fmt.Errorf("%s (layer %d) imports %s (layer %d): an upward import", from, lf, to, lt)
	}
	return nil
}
