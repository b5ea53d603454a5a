package reproduce

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/softshape-go/softshape/ablations"
	"github.com/softshape-go/softshape/experiments/sweep"
	"github.com/softshape-go/softshape/internal/doclinks"
	"github.com/softshape-go/softshape/paper"
	"github.com/softshape-go/softshape/reproduction"
	"github.com/softshape-go/softshape/softshape"
)

// notebookCell is one cell of a notebook file: its type ("code",
// "markdown") and its source text.
type notebookCell struct {
	Type, Source string
}

// notebookCells reads the cells of the notebook file at path; a cell's
// source may be stored as a list of lines or as one string.
func notebookCells(t *testing.T, path string) []notebookCell {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Cells []struct {
			CellType string          `json:"cell_type"`
			Source   json.RawMessage `json:"source"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	out := make([]notebookCell, len(doc.Cells))
	for i, c := range doc.Cells {
		var lines []string
		if err := json.Unmarshal(c.Source, &lines); err == nil {
			out[i] = notebookCell{c.CellType, strings.Join(lines, "")}
		} else if err := json.Unmarshal(c.Source, &out[i].Source); err != nil {
			t.Fatalf("%s cell %d: source: %v", path, i, err)
		}
		out[i].Type = c.CellType
	}
	return out
}

// notebookMarkdown returns the Markdown cells of a notebook, one after the
// other.
func notebookMarkdown(t *testing.T, name string) string {
	t.Helper()
	var out []string
	for _, c := range notebookCells(t, filepath.Join(RepoRoot(), "notebooks", name)) {
		if c.Type == "markdown" {
			out = append(out, c.Source)
		}
	}
	return strings.Join(out, "\n\n")
}

// proseClaim is a number the prose of the table notebooks states, with the
// check that it holds.
type proseClaim struct {
	// notebooks is a glob of the notebooks that may state it; text the words
	// that state it.
	notebooks, text string
	check           func() error
}

// defaultIs checks that the default setting of a table is want.
func defaultIs(table, want string) func() error {
	return func() error {
		p, err := ablations.ForTable(table)
		if err != nil {
			return err
		}
		if p.Default != want {
			return fmt.Errorf("the default of %s is %s, not %s", table, p.Default, want)
		}
		return nil
	}
}

// columnsAre checks that a table has the named columns.
func columnsAre(table string, names ...string) func() error {
	return func() error {
		p, err := ablations.ForTable(table)
		if err != nil {
			return err
		}
		for _, n := range names {
			if _, ok := p.Column(n); !ok {
				return fmt.Errorf("table %s has no column %s", table, n)
			}
		}
		return nil
	}
}

var proseClaims = []proseClaim{
	{"*", "500 epochs, 150 warm-up", func() error {
		if c := softshape.DefaultConfig(); c.Epochs != 500 || c.WarmUpEpochs != 150 {
			return fmt.Errorf("the default schedule is %d epochs, %d warm-up", c.Epochs, c.WarmUpEpochs)
		}
		return nil
	}},
	{"*", "5 folds", foldsAre(5)},
	{"*", "folds 2–5", foldsAre(5)},
	{"02_*", "128 UCR datasets", func() error {
		t, err := paper.PerDataset("ablation")
		if err == nil && len(t.Datasets) != 128 {
			err = fmt.Errorf("Table 2 has %d datasets", len(t.Datasets))
		}
		return err
	}},
	{"03_*", "at or below 50% (the value the paper uses, η = 50%)", defaultIs("sparse_ratio", "50%")},
	{"03_*", "Sparse ratio 0% against 50% and 90%", columnsAre("sparse_ratio", "0%", "50%", "90%")},
	{"03_*", "show 50% costing more than 0%", columnsAre("sparse_ratio", "0%", "50%")},
	{"03_*", "a sparse ratio of 0%", columnsAre("sparse_ratio", "0%")},
	{"04_*", "k = 1 expert", defaultIs("experts_k", "k=1")},
	{"05_*", "A stride q = 4", defaultIs("stride_q", "q=4")},
	{"05_*", "against q = 1", columnsAre("stride_q", "q=1")},
	{"*", "seed 42 alone", func() error {
		if !slices.Equal(reproduction.Seeds, []int64{42}) {
			return fmt.Errorf("every table of the reproduction has seeds %v", reproduction.Seeds)
		}
		return nil
	}},
	{"07_*", "a fixed m = 8 (Fixed-8)", func() error {
		if ablations.FixedName != "Fixed-8" {
			return fmt.Errorf("Table 7's fixed column is %s", ablations.FixedName)
		}
		return columnsAre("shape_length_m", ablations.FixedName)()
	}},
}

func foldsAre(n int) func() error {
	return func() error {
		if sweep.NumFolds != n {
			return fmt.Errorf("the protocol has %d folds", sweep.NumFolds)
		}
		return nil
	}
}

// references are the numbers that name something (a table, a figure, a
// notebook, the first fold, a heading's notebook number) or are notation
// (1−η, code), not a result.
var references = regexp.MustCompile(`(?m)\b(?:Tables?|Fig|notebooks?)\s+\d+(?:\s*(?:,|and|–)\s*\d+)*|\b[Ff]old 1\b|^#+\s*\d+\s*·|1−η|` + "`[^`]*`")

// TestNotebookProseNumbers: every number the prose of notebooks 02–07 and
// 10 states is a reference or one of proseClaims, whose check holds — so no
// number there can disagree with what the code and data give. The numbers of
// results are in the cells' outputs, made by this package.
func TestNotebookProseNumbers(t *testing.T) {
	digit := regexp.MustCompile(`[^\s]*\d[^\s]*`)
	for _, name := range []string{"02_ablation.ipynb", "03_sparse_ratio.ipynb", "04_experts_k.ipynb", "05_stride_q.ipynb",
		"06_depth_L.ipynb", "07_shape_length_m.ipynb", "10_reproducibility.ipynb"} {
		md := notebookMarkdown(t, name)
		for _, c := range proseClaims {
			if ok, _ := filepath.Match(c.notebooks, name); !ok || !strings.Contains(md, c.text) {
				continue
			}
			if err := c.check(); err != nil {
				t.Errorf("%s says %q: %v", name, c.text, err)
			}
			md = strings.ReplaceAll(md, c.text, "")
		}
		md = references.ReplaceAllString(md, "")
		// Column names that hold digits (Fixed-8) name a setting.
		if p, err := ablations.ForTable(strings.TrimSuffix(strings.SplitN(name, "_", 2)[1], ".ipynb")); err == nil {
			for _, col := range p.Columns {
				md = strings.ReplaceAll(md, col.Name, "")
			}
		}
		if left := digit.FindAllString(md, -1); len(left) > 0 {
			t.Errorf("%s states numbers no test checks: %v (add a proseClaim with its check, or let the output say it)", name, slices.Compact(left))
		}
	}
}

// TestPresetAdviceLinked: README, docs/reproduction.md and notebook 10 link
// to the section of docs/protocol.md that says which preset to report, that
// section exists and names both reference presets, and so does each place
// that links to it. The full-mode tables print PresetAdvice themselves
// (TestCommittedTablesBothPresets).
func TestPresetAdviceLinked(t *testing.T) {
	const section = "which-preset-to-report"
	presets := []string{"`" + softshape.ProtocolReferenceCompat + "`", "`" + softshape.ProtocolReferenceFresh + "`"}
	protocol := filepath.Join("docs", "protocol.md")
	b, err := os.ReadFile(filepath.Join(RepoRoot(), protocol))
	if err != nil {
		t.Fatal(err)
	}
	if !doclinks.Parse(string(b)).Anchors[section] {
		t.Fatalf("%s has no section #%s", protocol, section)
	}
	// The section's text: from its heading to the next one.
	_, text, _ := strings.Cut(string(b), "\n## Which preset to report\n")
	text, _, _ = strings.Cut(text, "\n#")
	for _, p := range presets {
		if !strings.Contains(text, p) {
			t.Errorf("%s#%s does not name %s", protocol, section, p)
		}
	}
	places := map[string]string{ // file → its text
		"README.md":                              "",
		filepath.Join("docs", "reproduction.md"): "",
		filepath.Join("notebooks", "10_reproducibility.ipynb"): notebookMarkdown(t, "10_reproducibility.ipynb"),
	}
	for name, text := range places {
		if text == "" {
			b, err := os.ReadFile(filepath.Join(RepoRoot(), name))
			if err != nil {
				t.Fatal(err)
			}
			text = string(b)
		}
		linked := false
		for _, l := range doclinks.Parse(text).Links {
			file, anchor, _ := strings.Cut(l.Target, "#")
			if anchor == section && filepath.Join(filepath.Dir(name), filepath.FromSlash(file)) == protocol {
				linked = true
			}
		}
		if !linked {
			t.Errorf("%s does not link to %s#%s", name, protocol, section)
		}
		for _, p := range presets {
			if !strings.Contains(text, p) {
				t.Errorf("%s does not name %s", name, p)
			}
		}
	}
}
