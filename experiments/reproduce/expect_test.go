package reproduce

import (
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/softshape-go/softshape/experiments/tablefigures"
	"github.com/softshape-go/softshape/reproduction"
)

// showFiguresCall is a notebook cell's call of ShowFigures, with its table.
var showFiguresCall = regexp.MustCompile(`ShowFigures\(context\.Background\(\), "(\w+)", P\)`)

// expectLine is a cell's `// expect:` line (notebooks/check_outputs.py).
var expectLine = regexp.MustCompile(`(?m)^\s*//\s*expect:(.*)$`)

// unmatchedFigures returns the "figure" items of a cell's `// expect:` lines
// that no mark of figures matches, as notebooks/check_outputs.py pairs
// them: each item takes one output, named items first, then wildcards.
func unmatchedFigures(source string, figures []string) []string {
	var items []string
	for _, m := range expectLine.FindAllStringSubmatch(source, -1) {
		for _, raw := range strings.Split(m[1], ",") {
			kind, name, _ := strings.Cut(strings.TrimSpace(raw), " ")
			if kind == markFigure {
				items = append(items, strings.TrimSpace(name))
			}
		}
	}
	slices.SortStableFunc(items, func(a, b string) int {
		rank := func(s string) int {
			switch {
			case s == "":
				return 2
			case strings.Contains(s, "*"):
				return 1
			}
			return 0
		}
		return rank(a) - rank(b)
	})
	left := slices.Clone(figures)
	var out []string
	for _, it := range items {
		i := slices.IndexFunc(left, func(f string) bool {
			ok, err := path.Match(it, f)
			return it == "" || (err == nil && ok)
		})
		if i < 0 {
			out = append(out, it)
			continue
		}
		left = slices.Delete(left, i, i+1)
	}
	return out
}

// TestNotebookExpectsItsFigures: every notebook cell that shows a table's
// figures declares them in its `// expect:` line so that check_outputs.py
// passes both when the figures are the quick-mode (or not yet committed)
// ones, <table>_<kind>, and when they are the committed reproduction's,
// <table>_sweep and <table>_<kind>_<preset>; and every figure of a table
// with committed runs is drawn from them (none only says why not).
func TestNotebookExpectsItsFigures(t *testing.T) {
	nbs, err := filepath.Glob(filepath.Join(RepoRoot(), "notebooks", "[0-9][0-9]_*.ipynb"))
	if err != nil || len(nbs) == 0 {
		t.Fatalf("no notebooks: %v", err)
	}
	calls := 0
	for _, nb := range nbs {
		b, err := os.ReadFile(nb)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Cells []struct {
				CellType string   `json:"cell_type"`
				Source   []string `json:"source"`
			} `json:"cells"`
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatalf("%s: %v", nb, err)
		}
		for i, c := range doc.Cells {
			src := strings.Join(c.Source, "")
			if c.CellType != "code" {
				continue
			}
			var quick, committed []string
			for _, m := range showFiguresCall.FindAllStringSubmatch(src, -1) {
				calls++
				name := m[1]
				var named []string // the committed figures' names, in Committed.Figures' order
				for _, k := range tablefigures.Kinds(name) {
					quick = append(quick, figureName(name, k, ""))
					if k == tablefigures.KindSweep {
						named = append(named, figureName(name, k, ""))
					}
				}
				for _, preset := range reproduction.Presets {
					for _, k := range tablefigures.Kinds(name) {
						if k != tablefigures.KindSweep {
							named = append(named, figureName(name, k, preset))
						}
					}
				}
				committed = append(committed, named...)
				if !IsCommitted(name) {
					continue
				}
				cm, err := CommittedTables(name)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				var got []string
				for _, n := range cm.Figures() {
					got = append(got, n.Name)
					if n.Err != nil || n.Figure == nil {
						t.Errorf("%s: committed figure %s not drawn: %v", filepath.Base(nb), n.Name, n.Err)
					}
				}
				if !slices.Equal(got, named) {
					t.Errorf("%s: committed figures %v, want %v", name, got, named)
				}
			}
			for what, figs := range map[string][]string{"quick or not committed": quick, "committed": committed} {
				if len(figs) == 0 {
					continue
				}
				if miss := unmatchedFigures(src, figs); len(miss) > 0 {
					t.Errorf("%s cell %d: `// expect:` items %q match no figure it shows when %s (%v): check_outputs.py would fail it",
						filepath.Base(nb), i, miss, what, figs)
				}
			}
		}
	}
	if calls < 10 {
		t.Errorf("found %d ShowFigures calls in the notebooks, want the 13 of 01-08", calls)
	}
}

// TestUnmatchedFigures: the pairing of expect items with figures is
// check_outputs.py's: a wildcard does not take a named item's figure, and
// each item takes one figure.
func TestUnmatchedFigures(t *testing.T) {
	src := "%%\n// expect: table x, figure x_ranks*, figure x_sweep\n"
	if miss := unmatchedFigures(src, []string{"x_sweep", "x_ranks_a", "x_ranks_b"}); len(miss) != 0 {
		t.Errorf("unmatched %q", miss)
	}
	if miss := unmatchedFigures(src, []string{"x_sweep"}); !slices.Equal(miss, []string{"x_ranks*"}) {
		t.Errorf("unmatched %q, want the wildcard", miss)
	}
	if miss := unmatchedFigures("// expect: figure x_ranks, figure x_ranks*\n", []string{"x_ranks"}); !slices.Equal(miss, []string{"x_ranks*"}) {
		t.Errorf("unmatched %q: the named item goes first", miss)
	}
}
