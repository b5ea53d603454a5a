package reproduction

import (
	"testing"

	"github.com/softshape-go/softshape/plots"
)

// TestDatasetsHaveTheirOwnColours: the reproduction's datasets, drawn
// together in every figure of docs/reproduction.md and the notebooks, each
// have a colour of their own (plots.DatasetStyle lists them first).
func TestDatasetsHaveTheirOwnColours(t *testing.T) {
	seen := map[string]string{}
	for _, d := range Datasets {
		st, ok := plots.DatasetStyle(d)
		if !ok {
			t.Fatalf("%s has no dataset style", d)
		}
		c := st.Color
		key := string([]byte{c.R, c.G, c.B})
		if other, dup := seen[key]; dup {
			t.Errorf("%s and %s share the colour %v", d, other, c)
		}
		seen[key] = d
	}
}
