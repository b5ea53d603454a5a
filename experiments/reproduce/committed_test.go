package reproduce

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/softshape-go/softshape/paper"
	"github.com/softshape-go/softshape/reproduction"
)

// TestFullModeRendersCommittedStore: in full mode with no results folder, a
// table of the reproduction comes from the committed store under the preset
// asked for, training nothing and writing nothing; a table outside the
// reproduction does not.
func TestFullModeRendersCommittedStore(t *testing.T) {
	dir := filepath.Join(RepoRoot(), "reproduction")
	for _, c := range []struct{ settings, preset string }{
		{"", CommittedPreset},
		{"protocol=reference_fresh", "reference_fresh"},
	} {
		p := Params{Quick: false, Settings: c.settings}
		results := reproduction.ResultsDir(dir, c.preset)
		before := listFiles(t, results)
		r, err := Table(context.Background(), "sparse_ratio", p)
		if _, statErr := os.Stat(results); statErr != nil {
			// A clone without committed results: the error says what to run.
			if !errors.Is(err, ErrNotCommitted) || !strings.Contains(err.Error(), "reproduction/run-sweeps.sh") {
				t.Errorf("%q: no committed store, error %v", c.settings, err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if r.Params.Results != results || r.Trained != 0 || r.Params.Quick {
			t.Errorf("%q: results %s, trained %d, quick %v; want %s, 0, false", c.settings, r.Params.Results, r.Trained, r.Params.Quick, results)
		}
		if !strings.Contains(r.Table.FullTitle(), "protocol "+c.preset) && len(r.Table.Grids) > 0 {
			t.Errorf("%q: title %q lacks the preset", c.settings, r.Table.FullTitle())
		}
		if after := listFiles(t, results); strings.Join(after, "\n") != strings.Join(before, "\n") {
			t.Errorf("%q: rendering changed the committed store", c.settings)
		}
	}
	// A clone where nobody ran the table: the error says what to run.
	repositoryWithoutRuns(t)
	if _, err := CommittedTable("moe_expert_network", CommittedPreset); !errors.Is(err, ErrNotCommitted) || !strings.Contains(err.Error(), "reproduction/run-sweeps.sh") {
		t.Errorf("moe_expert_network: %v", err)
	}
}

// repositoryWithoutRuns makes RepoRoot, for the rest of the test, a fresh
// folder holding this module's go.mod and nothing else, found through
// $GONB_DIR as a notebook finds the repository: a clone before any sweep
// ran. It returns that root.
func repositoryWithoutRuns(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module "+modulePath+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "notebooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GONB_DIR", filepath.Join(root, "notebooks"))
	if got := RepoRoot(); got != root {
		t.Fatalf("RepoRoot() = %s, want the repository without runs %s", got, root)
	}
	return root
}

// TestNotebookFullModeUsesCommittedStore follows a notebook's parameter cell:
// its Params (results folder "") go through ParamsFromEnv, whose Resolve fills
// in <repository>/results. In full mode (SOFTSHAPE_QUICK=0) a table of the
// reproduction must still come from the committed store, not train into that
// folder; a results folder given by the user (SOFTSHAPE_RESULTS) trains there.
func TestNotebookFullModeUsesCommittedStore(t *testing.T) {
	cell := Params{Quick: true, Seeds: []int64{42}, TrainMissing: true}
	t.Setenv(EnvQuick, "0")
	t.Setenv(EnvResults, "")
	p, err := ParamsFromEnv(cell)
	if err != nil {
		t.Fatal(err)
	}
	if p.Results == "" {
		t.Fatal("Resolve left the results folder empty")
	}
	// Every table of the reproduction with committed runs (a sweep may not
	// have started on the others yet; Table 3 was the first to be run).
	if !IsCommitted("sparse_ratio") {
		t.Fatal("no committed runs of Table 3")
	}
	for _, name := range reproduction.Tables {
		if IsCommitted(name) && !p.UsesCommitted(name) {
			t.Errorf("%s: full mode without a results folder does not use the committed store (results %s)", name, p.Results)
		}
	}
	if p.UsesCommitted("params_inference_time") {
		t.Error("params_inference_time is not part of the reproduction, yet UsesCommitted")
	}
	t.Run("clone without runs", func(t *testing.T) {
		repositoryWithoutRuns(t)
		if p.UsesCommitted("sparse_ratio") {
			t.Error("a repository without committed runs: full mode uses its committed store")
		}
	})
	if !strings.Contains(p.String(), "committed reproduction") {
		t.Errorf("parameter line %q does not say the tables come from the committed reproduction", p.String())
	}
	results := reproduction.ResultsDir(filepath.Join(RepoRoot(), "reproduction"), CommittedPreset)
	// Table only where it cannot train into the repository's results folder.
	if _, err := os.Stat(results); err == nil && p.UsesCommitted("experts_k") {
		r, err := Table(context.Background(), "experts_k", p)
		if err != nil {
			t.Fatal(err)
		}
		if r.Params.Results != results || r.Trained != 0 {
			t.Errorf("experts_k: results %s, trained %d; want %s, 0", r.Params.Results, r.Trained, results)
		}
	}

	t.Setenv(EnvResults, t.TempDir())
	if p, err = ParamsFromEnv(cell); err != nil {
		t.Fatal(err)
	}
	if p.UsesCommitted("experts_k") || strings.Contains(p.String(), "committed reproduction") {
		t.Errorf("a results folder given (%s) still uses the committed store", p.Results)
	}
	t.Setenv(EnvResults, "")
	t.Setenv(EnvQuick, "1")
	if p, err = ParamsFromEnv(cell); err != nil {
		t.Fatal(err)
	}
	if p.UsesCommitted("experts_k") {
		t.Error("quick mode uses the committed store")
	}
}

// listFiles lists the files under dir (nil when it does not exist).
func listFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	_ = filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			out = append(out, path)
		}
		return nil
	})
	return out
}

// TestCommittedMessagesAreRepoRelative: what the notebooks show of the
// committed reproduction names its folders relative to the repository
// (reproduction/results/...), never this machine's absolute path; a folder
// outside the repository is named as given.
func TestCommittedMessagesAreRepoRelative(t *testing.T) {
	root := RepoRoot()
	outside := t.TempDir()
	for _, c := range []struct{ path, want string }{
		{filepath.Join(root, "reproduction", "results", "reference_fresh", "num_experts"), "reproduction/results/reference_fresh/num_experts"},
		{root, "."},
		{outside, outside},
		{filepath.Dir(root), filepath.Dir(root)},
		{root + "-other", root + "-other"}, // a sibling sharing the root's prefix
	} {
		if got := repoPath(c.path); got != c.want {
			t.Errorf("repoPath(%q) = %q, want %q", c.path, got, c.want)
		}
	}
	t.Run("clone without runs", func(t *testing.T) {
		root := repositoryWithoutRuns(t)
		_, err := CommittedTable("moe_expert_network", "reference_fresh")
		if !errors.Is(err, ErrNotCommitted) || !strings.Contains(err.Error(), "(reproduction/results/reference_fresh/moe_expert_network)") || strings.Contains(err.Error(), root) {
			t.Errorf("CommittedTable(moe_expert_network): %v", err)
		}
		_, err = CommittedTables("moe_expert_network")
		if !errors.Is(err, ErrNotCommitted) || !strings.Contains(err.Error(), "of moe_expert_network under reproduction/results: ") || strings.Contains(err.Error(), root) {
			t.Errorf("CommittedTables(moe_expert_network): %v", err)
		}
	})
	if !IsCommitted("sparse_ratio") {
		return
	}
	r, err := CommittedTable("sparse_ratio", CommittedPreset)
	if err != nil {
		t.Fatal(err)
	}
	md := r.Markdown()
	if want := "`reproduction/results/" + CommittedPreset + "`"; !strings.Contains(md, want) || !strings.Contains(r.Status(), " in reproduction/results/"+CommittedPreset) {
		t.Errorf("no %s in the committed Table 3:\n%s", want, md)
	}
	c, err := CommittedTables("sparse_ratio")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{md, c.Markdown()} {
		if strings.Contains(s, root) {
			t.Errorf("the committed Table 3 names %s:\n%s", root, s)
		}
	}
}

// TestUncommittedShowsPaperSummary: in full mode a table without committed
// runs shows the line saying so and, labelled as the paper's, the paper's
// printed summary: every value paper.Summary holds, in its metric's row and
// its method's column. Notebook 08's appendix tables have only that summary.
func TestUncommittedShowsPaperSummary(t *testing.T) {
	for _, name := range []string{"num_experts", "moe_expert_network", "shared_expert_network", "lambda", "params_inference_time"} {
		if IsCommitted(name) {
			continue
		}
		outs, err := committedOutputs(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(outs) != 2 || outs[0].mark != "missing table "+name || outs[1].mark != "table "+name+"_paper" {
			t.Fatalf("%s: outputs %+v", name, outs)
		}
		if line := outs[0].md; !strings.Contains(line, "no committed full-protocol runs of "+name+" under reproduction/results: ") || !strings.Contains(line, "TABLES="+name+" reproduction/run-sweeps.sh") {
			t.Errorf("%s: line %q", name, line)
		}
		md := outs[1].md
		if !strings.Contains(md, "the paper's printed summary") || !strings.Contains(md, "**The paper's numbers, not ours**") {
			t.Errorf("%s: not labelled as the paper's:\n%s", name, md)
		}
		ps, err := paper.Summary(name)
		if err != nil {
			t.Fatal(err)
		}
		// A wide summary comes as several tables of the same rows (Table 1:
		// two), each under its own header: join them column by column.
		var header []string
		rows := map[string][]string{} // first cell → the others
		for _, l := range strings.Split(md, "\n") {
			if !strings.HasPrefix(l, "| ") {
				continue
			}
			cells := strings.Split(strings.Trim(l, "| "), " | ")
			if strings.HasPrefix(cells[0], "paper, printed") {
				header = append(header, cells[1:]...)
				continue
			}
			rows[cells[0]] = append(rows[cells[0]], cells[1:]...)
		}
		if strings.Join(header, ",") != strings.Join(ps.Methods, ",") {
			t.Errorf("%s: columns %v, want %v", name, header, ps.Methods)
		}
		checked := 0
		for _, metric := range ps.Metrics {
			var row []string
			for label, cells := range rows {
				if label == metric || strings.HasPrefix(label, metric+" (") {
					row = cells
				}
			}
			for j, m := range ps.Methods {
				v, ok := ps.Value(metric, m)
				if !ok {
					continue
				}
				if j >= len(row) || row[j] != v {
					t.Errorf("%s: %s of %s: printed %q, shown row %v", name, metric, m, v, row)
				}
				checked++
			}
		}
		if checked < 6 {
			t.Errorf("%s: checked %d printed values", name, checked)
		}
	}
}

// TestTable1Outputs: in full mode Table 1 and the LightTS/Shapeformer table
// render from the committed Table 1 runs whatever their number (the plan's
// 62 datasets; labelled partial, with each preset's count of complete
// datasets, until all are in), each beside the paper's printed summary; the
// CD diagrams' places are one per preset, drawn or saying why not.
func TestTable1Outputs(t *testing.T) {
	entries, err := reproduction.LoadTable1(committedDir())
	if err != nil {
		t.Fatal(err)
	}
	h, err := reproduction.NewHeadline(entries)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{reproduction.Table1, reproduction.LightTSShapeformer} {
		outs, err := committedOutputs(name)
		if err != nil {
			t.Fatal(err)
		}
		if len(outs) != 2 || outs[0].mark != "table "+name || outs[1].mark != "table "+name+"_paper" {
			t.Fatalf("%s: outputs %+v, want the table and the paper's printed summary", name, outs)
		}
		if !strings.Contains(outs[1].md, "**The paper's numbers, not ours**") {
			t.Errorf("%s: the paper's summary is not labelled as the paper's:\n%s", name, outs[1].md)
		}
		md := outs[0].md
		switch name {
		case reproduction.Table1:
			label := fmt.Sprintf("**PARTIAL: %d of 62 datasets under %s", h.DatasetsDone(0), reproduction.Presets[0])
			if h.Complete() != !strings.Contains(md, label) || !strings.Contains(md, "**The 17 baselines are the paper's printed numbers**") {
				t.Errorf("Table 1: want the partial label %q (complete: %v) and the baselines' note:\n%s", label, h.Complete(), md)
			}
		case reproduction.LightTSShapeformer:
			if !strings.Contains(md, "from Table 1's runs") || !strings.Contains(md, "14 of the paper's 18 datasets") {
				t.Errorf("LightTS/Shapeformer: not the section read from Table 1's runs:\n%s", md)
			}
		}
	}
	figs, err := CommittedTable1Figures()
	if err != nil {
		t.Fatal(err)
	}
	if len(figs) != 2 || figs[0].Name != "main_cd_reference_compat" || figs[1].Name != "main_cd_reference_fresh" {
		t.Fatalf("Table 1's figures %+v, want one CD diagram per preset", figs)
	}
	for i, f := range figs {
		if drawn := f.Err == nil && f.Figure != nil; drawn != (h.DatasetsDone(i) >= 3) {
			t.Errorf("%s: drawn %v (%v) with %d complete datasets; a CD diagram needs 3", f.Name, drawn, f.Err, h.DatasetsDone(i))
		}
	}
}
