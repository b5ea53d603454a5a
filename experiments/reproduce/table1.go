package reproduce

import (
	"fmt"
	"slices"
	"time"

	"github.com/softshape-go/softshape/experiments/tablefigures"
	"github.com/softshape-go/softshape/reproduction"
)

// isTable1 reports whether the named table is Table 1 or the
// LightTS/Shapeformer table read from its runs: full mode renders them from
// the committed reproduction's Table 1 runs (reproduction.LoadTable1), as
// docs/reproduction.md does, whether or not any run is recorded yet.
func isTable1(name string) bool {
	return name == reproduction.Table1 || name == reproduction.LightTSShapeformer
}

// table1Outputs are what ShowTable shows of Table 1 or the LightTS/Shapeformer
// table in full mode without a results folder: the section of
// docs/reproduction.md rendered from the committed runs (marked "table
// <name>"; labelled partial, n of 62 datasets, until every run is in), then
// the paper's printed summary over all its datasets (marked
// printedMark(name)).
func table1Outputs(name string) ([]markedMarkdown, error) {
	start := time.Now()
	entries, err := reproduction.LoadTable1(committedDir())
	if err != nil {
		return nil, fmt.Errorf("committed %s: %w", name, err)
	}
	md, err := reproduction.Table1Markdown(entries)
	if name == reproduction.LightTSShapeformer {
		md, err = reproduction.LightTSMarkdown(entries)
	}
	if err != nil {
		return nil, err
	}
	head := fmt.Sprintf("*%s — full protocol, committed runs (`reproduction/results`), nothing trained; %.1f s.*\n\n", name, time.Since(start).Seconds())
	printed, err := PrintedSummary(name)
	if err != nil {
		return nil, err
	}
	return []markedMarkdown{{markTable + " " + name, head + md}, {printedMark(name), "The paper's printed summary, over all its datasets:\n\n" + printed}}, nil
}

// CommittedTable1Figures are the critical-difference diagrams of Table 1
// under each preset from the committed runs (reproduction.Table1Figures: ours
// and the paper's 17 baselines over the datasets complete under the preset),
// named "main_cd_<preset>"; a preset with fewer than
// tablefigures.MinCDDatasets complete datasets has the reason instead.
func CommittedTable1Figures() ([]Named, error) {
	entries, err := reproduction.LoadTable1(committedDir())
	if err != nil {
		return nil, fmt.Errorf("committed %s: %w", reproduction.Table1, err)
	}
	figs := reproduction.Table1Figures(entries)
	var out []Named
	for _, preset := range reproduction.Presets {
		n := Named{Name: figureName(reproduction.Table1, tablefigures.KindCD, preset)}
		if i := slices.IndexFunc(figs, func(f reproduction.Figure) bool { return f.Preset == preset }); i >= 0 {
			n.Figure, n.Err = figs[i].Draw()
		} else {
			done := 0
			for _, e := range entries {
				if e.Table == reproduction.Table1 && e.Preset == preset {
					done = len(e.DatasetsDone)
				}
			}
			n.Err = fmt.Errorf("%w: Table 1 under %s has %d of %d datasets complete; its critical-difference diagram needs %d",
				ErrNoFigure, preset, done, len(reproduction.Table1Datasets), tablefigures.MinCDDatasets)
		}
		out = append(out, n)
	}
	return out, nil
}
