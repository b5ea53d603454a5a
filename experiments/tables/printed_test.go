package tables

import (
	"strings"
	"testing"

	"github.com/softshape-go/softshape/paper"
)

// TestPrintedMarkdown: the paper's printed summary alone, its rows as the
// paper's CSVs hold them (checked by hand against paper/tables), labelled as
// the paper's numbers.
func TestPrintedMarkdown(t *testing.T) {
	for _, c := range []struct {
		name string
		want []string
	}{
		{"num_experts", []string{
			"# Appendix: total number of experts hatC on 18 UCR datasets — the paper's printed summary\n",
			"**The paper's numbers, not ours**",
			"| paper, printed | hatC=C/2 | hatC=C | hatC=2C |\n|---|---:|---:|---:|\n" +
				"| Avg. Acc | 0.9215 | 0.9453 | 0.9408 |\n| Avg. Rank | 2.33 | 1.39 | 1.83 |\n| Win | 4 | 12 | 6 |\n\n"}},
		{"shared_expert_network", []string{"| # Parameters | 422.5 K | 157.8 K | 179.5 K |\n"}},
		{"params_inference_time", []string{
			"| paper, printed | MR-H | InceptionTime | TSLANet | Medformer | SoftShape |\n",
			"| # Parameters | — | 387.7 K | 514.6 K | 1360.6 K | 472.5 K |\n",
			"| Inference Time (s): HouseTwenty | 2.97 | 1.30 | 1.29 | 1.31 | 1.26 |\n"}},
		// The p-value row names its statistic; the reference prints none.
		{"lightts_shapeformer", []string{"| P-value (paper's: ½ two-sided paired t-test vs SoftShape) | 8.91E-03 | 9.80E-06 | — |\n"}},
	} {
		ps, err := paper.Summary(c.name)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		if err := PrintedMarkdown(&b, ps); err != nil {
			t.Fatal(err)
		}
		for _, w := range c.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s: no %q in\n%s", c.name, w, b.String())
			}
		}
	}
	if err := PrintedMarkdown(&strings.Builder{}, nil); err == nil {
		t.Error("no summary written without an error")
	}
}
