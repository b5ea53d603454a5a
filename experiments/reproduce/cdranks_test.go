package reproduce

import (
	"html"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/softshape-go/softshape/experiments/tables"
	"github.com/softshape-go/softshape/plots"
	"github.com/softshape-go/softshape/reproduction"
)

// TestCDDiagramIsTheTableRow renders Table 2 (ablation) as the full-mode
// notebook does, from the committed records: under each preset the labels
// of the critical-difference diagram (name and average rank, ties averaged)
// are, number for number, the table's row "Avg. Rank, ties averaged (the CD
// diagram's) — ours, <preset>"; and so are those of the one-preset table
// (CommittedTable, the notebook with a preset set) and its row "— ours".
// The records tie on several datasets, so these ranks differ from the
// paper's Avg. Rank (ties get the best rank), which the test checks too:
// the row is not the Avg. Rank row under another name.
func TestCDDiagramIsTheTableRow(t *testing.T) {
	c, err := CommittedTables("ablation")
	if err != nil {
		t.Fatal(err)
	}
	md := c.Markdown()
	figs := map[string]*plots.Figure{}
	for _, n := range c.Figures() {
		figs[n.Name] = n.Figure
	}
	for _, preset := range reproduction.Presets {
		name := "ablation_cd_" + preset
		f := figs[name]
		if f == nil {
			t.Fatalf("no figure %s among %v", name, slices.Sorted(maps.Keys(figs)))
		}
		row := summaryRow(t, md, tables.CDRanksLabel+" — ours, "+preset)
		if got := cdLabels(t, f); !maps.Equal(got, row) {
			t.Errorf("%s: the diagram's labels %v, the table's row %v", name, got, row)
		}
		if paperRow := summaryRow(t, md, "Avg. Rank — ours, "+preset); maps.Equal(paperRow, row) {
			t.Errorf("%s: the row of ties averaged is the Avg. Rank row (%v): the records tie, the two must differ", preset, row)
		}
		if !strings.Contains(f.Caption(), "Average ranks, ties averaged (the table's Avg. Rank gives ties the best rank)") {
			t.Errorf("%s: the caption does not say which ranks it shows: %q", name, f.Caption())
		}
	}

	one, err := CommittedTable("ablation", CommittedPreset)
	if err != nil {
		t.Fatal(err)
	}
	var f *plots.Figure
	for _, n := range one.Figures() {
		if n.Name == "ablation_cd" {
			f = n.Figure
		}
	}
	if f == nil {
		t.Fatal("no figure ablation_cd for the one-preset table")
	}
	row := summaryRow(t, one.Markdown(), tables.CDRanksLabel+" — ours")
	if got := cdLabels(t, f); !maps.Equal(got, row) {
		t.Errorf("one preset: the diagram's labels %v, the table's row %v", got, row)
	}
}

// summaryRow returns the cells of the Markdown table row with the given
// label, keyed by the column names of that table's header.
func summaryRow(t *testing.T, md, label string) map[string]string {
	t.Helper()
	var header []string
	for _, line := range strings.Split(md, "\n") {
		cells := strings.Split(strings.Trim(line, "|"), " | ")
		for i := range cells {
			cells[i] = strings.ReplaceAll(strings.TrimSpace(cells[i]), `\|`, "|")
		}
		switch {
		case strings.HasPrefix(line, "| |"):
			header = cells[1:]
		case len(cells) > 0 && cells[0] == label:
			if len(cells)-1 != len(header) {
				t.Fatalf("row %q has %d cells, its header %d", label, len(cells)-1, len(header))
			}
			out := map[string]string{}
			for i, h := range header {
				out[h] = cells[i+1]
			}
			return out
		}
	}
	t.Fatalf("no row %q in the table:\n%s", label, md)
	return nil
}

// cdLabel is a method's label in a CD diagram's SVG: "name (rank)".
var cdLabel = regexp.MustCompile(`>([^<>]+) \(([0-9]+\.[0-9]{2})\)</text>`)

// cdLabels returns the rank printed beside each method of a CD diagram, read
// from the figure as drawn (its SVG).
func cdLabels(t *testing.T, f *plots.Figure) map[string]string {
	t.Helper()
	svg, err := f.SVG(f.Size())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, m := range cdLabel.FindAllStringSubmatch(string(svg), -1) {
		out[html.UnescapeString(m[1])] = m[2]
	}
	if len(out) < 2 {
		t.Fatalf("%d method labels in the diagram %q", len(out), f.Title())
	}
	return out
}

// TestPaperCDRanksAreTheDiagrams: the table notebook 01 shows beside the
// paper's own CD diagram holds the diagram's labels, row for row, and the
// paper's printed Avg. Rank beside the same ranks with ties given the best
// rank (hand-checked: SoftShape 3.14 in the diagram, 2.72 printed and
// recomputed, over all 128 datasets).
func TestPaperCDRanksAreTheDiagrams(t *testing.T) {
	f, err := PaperCDFigure("main")
	if err != nil {
		t.Fatal(err)
	}
	labels := cdLabels(t, f)
	md, err := PaperCDRanks("main")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile(`(?m)^\| ([^|]+) \| ([0-9.]+) \| ([0-9.]+) \| ([0-9.—]+) \|$`)
	rows := row.FindAllStringSubmatch(md, -1)
	if len(rows) != len(labels) || len(rows) != 18 {
		t.Fatalf("%d rows, %d methods in the diagram, want 18:\n%s", len(rows), len(labels), md)
	}
	for _, r := range rows {
		if labels[r[1]] != r[2] {
			t.Errorf("%s: the table's ties-averaged rank %s, the diagram's label %s", r[1], r[2], labels[r[1]])
		}
	}
	for _, want := range []string{"over its 128 datasets", "| SoftShape | 3.14 | 2.72 | 2.72 |\n", "| TSLANet | 4.11 | 3.68 | 3.68 |\n", "| ShapeConv | 14.04 | 13.91 | 13.91 |\n"} {
		if !strings.Contains(md, want) {
			t.Errorf("no %q in\n%s", want, md)
		}
	}
	if rows[0][1] != "SoftShape" || rows[len(rows)-1][1] != "ShapeConv" {
		t.Errorf("rows not in the diagram's order (best first): %s … %s", rows[0][1], rows[len(rows)-1][1])
	}
}
