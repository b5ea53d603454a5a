package tables

import (
	"fmt"
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
			"# Appendix: total number of experts Ĉ on 18 UCR datasets — the paper's printed summary\n",
			"**The paper's numbers, not ours**",
			"| paper, printed | Ĉ=C/2 | Ĉ=C | Ĉ=2C |\n|---|---:|---:|---:|\n" +
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

// TestPrintedMarkdownSplit: Table 1's 18 methods do not fit one page-wide
// table; they come as two, split where the paper's method families meet,
// each naming its families and holding every metric row, every method once.
func TestPrintedMarkdownSplit(t *testing.T) {
	ps, err := paper.Summary("main")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := PrintedMarkdown(&b, ps); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, w := range []string{
		"| paper, printed: DL-CNN | FCN | T-Loss | SelfTime | TS-TCC | TS2Vec | TimesNet | InceptionTime | ShapeConv | ModernTCN | TSLANet |\n",
		"| Avg. Acc | 0.8296 | 0.8325 | 0.8017 | 0.7807 | 0.8691 | 0.8367 | 0.9181 | 0.7688 | 0.7938 | 0.9205 |\n",
		"| paper, printed: DL-Trans, DL-FM, Non-DL, Ours | TST | PatchTST | Medformer | GPT4TS | UniTS | RDST | MR-H | SoftShape |\n",
		"| P-value (paper's: ½ two-sided paired t-test vs SoftShape) | 2.00E-19 | 1.27E-15 | 7.15E-16 | 7.89E-16 | 1.41E-13 | 7.54E-10 | 3.80E-07 | — |\n",
	} {
		if !strings.Contains(md, w) {
			t.Errorf("no %q in\n%s", w, md)
		}
	}
	headers, rows := 0, 0
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "| paper, printed") {
			headers++
		}
		if strings.HasPrefix(line, "| Win |") {
			rows++
		}
		if cells := strings.Count(line, "|") - 1; cells > MaxPrintedColumns+1 {
			t.Errorf("a line of %d cells, more than %d: %q", cells, MaxPrintedColumns+1, line)
		}
	}
	if headers != 2 || rows != 2 {
		t.Errorf("%d tables and %d Win rows, want 2 of each:\n%s", headers, rows, md)
	}
	for _, m := range ps.Methods {
		if n := strings.Count(md, " "+m+" |"); n != 1 {
			t.Errorf("method %s in %d table headers, want 1", m, n)
		}
	}
}

// TestPrintedParts: the methods go into tables of at most max columns,
// whole families while they fit, a family larger than max cut, and without
// families into runs of equal size.
func TestPrintedParts(t *testing.T) {
	part := func(from, to int, groups ...string) printedPart { return printedPart{from, to, groups} }
	methods := func(n int) []string { return make([]string, n) }
	for _, c := range []struct {
		groups []string
		n, max int
		want   []printedPart
	}{
		{nil, 3, 10, []printedPart{part(0, 3)}},
		{nil, 18, 10, []printedPart{part(0, 9), part(9, 18)}},
		{nil, 7, 3, []printedPart{part(0, 2), part(2, 4), part(4, 7)}},
		{[]string{"a", "a", "b", "b", "b", "c"}, 6, 4, []printedPart{part(0, 2, "a"), part(2, 6, "b", "c")}},
		{[]string{"a", "a", "a", "a", "a", "b"}, 6, 2, []printedPart{part(0, 2, "a"), part(2, 4, "a"), part(4, 6, "a", "b")}},
		{[]string{"a", "b", "a"}, 3, 10, []printedPart{part(0, 3, "a", "b", "a")}},
	} {
		got := printedParts(&paper.SummaryTable{Methods: methods(c.n), Groups: c.groups}, c.max)
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("groups %v, %d methods, max %d: parts %v, want %v", c.groups, c.n, c.max, got, c.want)
		}
	}
}
