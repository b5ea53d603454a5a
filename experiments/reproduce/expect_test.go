package reproduce

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/softshape-go/softshape/experiments/tablefigures"
	"github.com/softshape-go/softshape/reproduction"
)

// tableCall is a notebook cell's call of ShowTable or ShowFigures, with its
// table.
var tableCall = regexp.MustCompile(`(ShowTable|ShowFigures)\(context\.Background\(\), "(\w+)", P\)`)

// markedOutput is an executed notebook's output carrying only its mark
// (MarkKey), as notebooks/check_outputs.py reads it.
func markedOutput(mark string) map[string]any {
	return map[string]any{"output_type": "display_data", "data": map[string]any{"text/markdown": "x"},
		"metadata": map[string]any{MarkKey: mark}}
}

// figureMark is the mark ShowFigure gives n.
func figureMark(n Named) string {
	if n.Err != nil || n.Figure == nil {
		return missingMark(markFigure + " " + n.Name)
	}
	return markFigure + " " + n.Name
}

// TestNotebookExpectsItsTables: every notebook cell that shows a table or
// its figures declares them in its `// expect` lines so that
// notebooks/check_outputs.py passes the marks these cells show in quick mode
// (the table, the sweep chart, and why there are no rank bars or CD
// diagram) and in full mode (the committed reproduction: the table, the
// sweep chart and each preset's figures; without committed runs, why each
// is missing, and the paper's printed summary: committedOutputs); and every
// figure of a table with committed runs is drawn from them, but one its
// datasets complete under both presets are too few for (tooFewCommon).
// The check is check_outputs.py's own, run on notebooks made of
// these cells with those outputs.
func TestNotebookExpectsItsTables(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3 to run notebooks/check_outputs.py")
	}
	nbs, err := filepath.Glob(filepath.Join(RepoRoot(), "notebooks", "[0-9][0-9]_*.ipynb"))
	if err != nil || len(nbs) == 0 {
		t.Fatalf("no notebooks: %v", err)
	}
	type cell = map[string]any
	made := map[string][]cell{"quick": nil, "full": nil}
	calls := 0
	for _, nb := range nbs {
		code := 0
		for _, c := range notebookCells(t, nb) {
			if c.Type != "code" {
				continue
			}
			code++
			src := c.Source
			found := tableCall.FindAllStringSubmatch(src, -1)
			if len(found) == 0 {
				continue
			}
			var quick, full []any
			for _, m := range found {
				calls++
				show, name := m[1], m[2]
				cm, err := CommittedTables(name)
				if err != nil && !errors.Is(err, ErrNotCommitted) {
					t.Fatalf("%s: %v", name, err)
				}
				if show == "ShowTable" {
					quick = append(quick, markedOutput(markTable+" "+name))
					outs, err := committedOutputs(name)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					for _, o := range outs {
						full = append(full, markedOutput(o.mark))
					}
					continue
				}
				// Quick mode: TableResult.Figures draws the sweep chart only.
				for _, k := range tablefigures.Kinds(name) {
					mark := markFigure + " " + figureName(name, k, "")
					if k != tablefigures.KindSweep { // ErrQuickStatistics
						mark = missingMark(mark)
					}
					quick = append(quick, markedOutput(mark))
				}
				figs, err := committedFigures(name)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if cm != nil && !isTable1(name) {
					var got, want []string
					if slices.Contains(tablefigures.Kinds(name), tablefigures.KindSweep) {
						// docs/reproduction.md's sweep chart of each entry
						// with a complete dataset: per preset, and per
						// entry of more seeds over every seed it pools.
						for _, e := range append(cm.Entries[:], cm.More...) {
							if len(e.DatasetsDone) == 0 {
								continue
							}
							label := e.Preset
							if e.Extra() {
								label += "_seeds_" + strings.Trim(strings.ReplaceAll(fmt.Sprint(append(slices.Clone(reproduction.Seeds), e.Seeds...)), " ", "_"), "[]")
							}
							want = append(want, figureName(name, tablefigures.KindSweep, label))
						}
					}
					for _, preset := range reproduction.Presets {
						for _, k := range tablefigures.Kinds(name) {
							if k != tablefigures.KindSweep {
								want = append(want, figureName(name, k, preset))
							}
						}
					}
					for _, n := range figs {
						got = append(got, n.Name)
						if (n.Err != nil || n.Figure == nil) && !tooFewCommon(name, n, cm) {
							t.Errorf("%s: committed figure %s not drawn: %v", filepath.Base(nb), n.Name, n.Err)
						}
					}
					if !slices.Equal(got, want) {
						t.Errorf("%s: committed figures %v, want %v", name, got, want)
					}
				}
				for _, n := range figs {
					full = append(full, markedOutput(figureMark(n)))
				}
			}
			// The first line names the cell in check_outputs.py's messages.
			named := "// " + filepath.Base(nb) + ", code cell " + strconv.Itoa(code) + "\n" + src
			for mode, outs := range map[string][]any{"quick": quick, "full": full} {
				made[mode] = append(made[mode], cell{"cell_type": "code", "execution_count": 1, "metadata": map[string]any{},
					"source": named, "outputs": outs})
			}
		}
	}
	if calls < 20 {
		t.Errorf("found %d ShowTable and ShowFigures calls in the notebooks, want the 25 of 01-08", calls)
	}
	dir := t.TempDir()
	for _, mode := range []string{"quick", "full"} {
		path := filepath.Join(dir, mode+".ipynb")
		b, err := json.Marshal(map[string]any{"cells": made[mode], "metadata": map[string]any{}, "nbformat": 4, "nbformat_minor": 5})
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(python, filepath.Join(RepoRoot(), "notebooks", "check_outputs.py"), "--mode", mode, path).CombinedOutput()
		if err != nil {
			t.Errorf("check_outputs.py --mode %s on the notebooks' table cells: %v\n%s", mode, err, out)
		}
	}
}

// tooFewCommon reports whether committed figure n of the named table may be
// missing: a study under way has its rank bars only once a dataset is
// complete under both presets and its CD diagram once
// tablefigures.MinCDDatasets are (tablefigures.PresetRanks, PresetCD), and
// n says so (ErrNoFigure). Any other missing figure is a failure.
func tooFewCommon(name string, n Named, cm *Committed) bool {
	need := map[tablefigures.Kind]int{tablefigures.KindRanks: 1, tablefigures.KindCD: tablefigures.MinCDDatasets}
	for k, least := range need {
		if !strings.HasPrefix(n.Name, figureName(name, k, "")) {
			continue
		}
		return errors.Is(n.Err, tablefigures.ErrNoFigure) && cm.Comparison != nil && len(cm.Comparison.Common) < least
	}
	return false
}
