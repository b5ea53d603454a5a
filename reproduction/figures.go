package reproduction

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"gonum.org/v1/plot/vg"

	"github.com/softshape-go/softshape/experiments/tablefigures"
	"github.com/softshape-go/softshape/experiments/tables"
	"github.com/softshape-go/softshape/plots"
)

// FigureDir is the folder of the generated figures, relative to the folder of
// docs/reproduction.md (its links are relative to it).
const FigureDir = "img/reproduction"

// figureFile matches the name of a generated figure:
// <table>-<preset>-<10 hex digits of the figure's data hash>.png.
var figureFile = regexp.MustCompile(`^([a-z_A-Z]+)-([a-z_]+)-([0-9a-f]{10})\.png$`)

// IsFigureFile reports whether name (a base name) is the name of a figure
// that `softshape reproduction` writes, so the command replaces or removes
// only its own files in FigureDir.
func IsFigureFile(name string) bool { return figureFile.MatchString(name) }

// Figure is one figure of the generated block: the accuracy of one table
// under one preset against its swept value, ours (solid, per dataset and
// their mean) beside the paper's (dashed), over the datasets whose runs are
// all recorded.
type Figure struct {
	Table, Preset string
	// Label is the preset, with the seeds for an entry of MoreSeeds
	// ("reference_fresh, seeds 42, 0, 1").
	Label string
	// Name is the file name under FigureDir. It holds a hash of the data
	// drawn, the title and the size, so the document names a figure of
	// exactly its records, and a figure changes name (never content) when
	// they change.
	Name string
	// Built is the table over its complete datasets, the one drawn.
	Built *tables.Table
	// fig is the figure drawn when it is not Built's sweep chart (Table 1's
	// CD diagrams).
	fig *plots.Figure
}

// The size of the figures: larger than plots' default, for their long
// titles. The size is part of a figure's name.
const (
	FigureWidth  = 8 * vg.Inch
	FigureHeight = 5.5 * vg.Inch
)

// Draw builds the figure at FigureWidth × FigureHeight (plots.Figure.PNG
// renders it at Size()).
func (f Figure) Draw() (*plots.Figure, error) {
	if f.fig != nil {
		return f.fig, nil // a CD diagram, at its own size (wider with more methods)
	}
	fig, err := tablefigures.Sweep(f.Built)
	if err != nil {
		return nil, err
	}
	fig.SetSize(FigureWidth, FigureHeight)
	return fig, nil
}

// Figures returns the figure of each table and preset that has at least one
// dataset with every run recorded (partial datasets are left out of it, as
// from the summary rows), in the order of entries.
func Figures(entries []Entry) []Figure {
	var out []Figure
	for _, e := range entries {
		if f, ok := figureOf(e); ok {
			out = append(out, f)
		}
	}
	return append(out, Table1Figures(entries)...)
}

// figureOf is the figure of one entry; ok is false when no dataset is complete.
func figureOf(e Entry) (Figure, bool) {
	if e.Built == nil || len(e.DatasetsDone) == 0 || !slices.Contains(Tables, e.Table) {
		return Figure{}, false
	}
	t := *e.Built
	t.Rows = slices.DeleteFunc(slices.Clone(t.Rows), func(r tables.Row) bool { return !slices.Contains(e.DatasetsDone, r.Dataset) })
	if len(t.Rows) == 0 {
		return Figure{}, false
	}
	fig, err := tablefigures.Sweep(&t)
	if err != nil {
		return Figure{}, false
	}
	var h strings.Builder
	label := presetLabel(e) // the preset alone for seed 42: the names stay
	fmt.Fprintf(&h, "%s|%s|%s|%v×%v\n", e.Table, label, fig.Title(), FigureWidth, FigureHeight)
	for _, c := range t.Columns {
		fmt.Fprintf(&h, "%s %d;", c.Name, c.Kind)
	}
	for _, r := range t.Rows {
		fmt.Fprintf(&h, "\n%s", r.Dataset)
		for j := range t.Columns {
			fmt.Fprintf(&h, " %.6f/%.6f", r.Ours[j].Acc, r.Paper[j])
		}
	}
	return Figure{Table: e.Table, Preset: e.Preset, Label: label, Name: figureName(e.Table, e.Preset, h.String()), Built: &t}, true
}

// figureName is the file name of a figure: its name, preset and 10 hex
// digits of the SHA-256 of key (what it draws).
func figureName(name, preset, key string) string {
	sum := sha256.Sum256([]byte(key))
	return fmt.Sprintf("%s-%s-%s.png", name, preset, hex.EncodeToString(sum[:])[:10])
}

// figureLink is the Markdown of a figure in the generated block.
func figureLink(f Figure) string {
	against, drawn := "the swept value", "ours solid, the paper's dashed"
	if !tablefigures.Ordered(f.Table) {
		against, drawn = "each variant", "ours as markers, the paper's as dashes"
	}
	return fmt.Sprintf("![%s under %s: test accuracy against %s over the complete datasets (%s), %s](%s/%s)\n\n",
		f.Table, f.Label, against, strings.Join(datasetsOf(f.Built), ", "), drawn, FigureDir, f.Name)
}

func datasetsOf(t *tables.Table) []string {
	var ds []string
	for _, r := range t.Rows {
		ds = append(ds, r.Dataset)
	}
	return ds
}
