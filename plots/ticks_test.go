package plots

import (
	"testing"

	"gonum.org/v1/plot"
)

// TestSlantLongLabels: Table 2's six variant names would overlap written
// level under one sweep figure (they did, in the committed figures before
// this rule served the sweep figures too), Table 7's three columns fit.
func TestSlantLongLabels(t *testing.T) {
	for _, tc := range []struct {
		labels []string
		slant  bool
	}{
		{[]string{"SoftShape", "w/o Soft Sparse", "w/o Intra", "w/o Inter", "w/o Intra & Inter", "with Linear Shape"}, true},
		{[]string{"Val-Select", "Fixed-8", "Multi-Seq"}, false},
		{[]string{"q=1", "q=2", "q=3", "q=4", "q=m"}, false},
		{[]string{"a", "b", "c", "d", "e", "f", "g"}, true}, // more than six
	} {
		p := plot.New()
		slantLongLabels(&p.X, tc.labels)
		if got := p.X.Tick.Label.Rotation != 0; got != tc.slant {
			t.Errorf("%q: slanted %t, want %t", tc.labels, got, tc.slant)
		}
	}
}
