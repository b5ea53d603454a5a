package reproduce

import (
	"context"
	"fmt"
	"strings"

	"github.com/softshape-go/softshape/reproduction"
	"github.com/softshape-go/softshape/softshape"
)

// ReportPreset is the preset whose figures ExportFigures saves when none
// is named: the one to report (PresetAdvice).
const ReportPreset = softshape.ProtocolReferenceFresh

// ExportFigures saves the figures ShowFigures displays of the named table
// for one preset (ReportPreset when preset is ""), in formats ("pdf",
// "svg", "png"; none: PDF and SVG), under dir (p.FigureDir() when ""), and
// returns the paths written. In full mode without Train and without a
// results folder these are the committed figures of that preset
// (Committed.Figures), every seed it has included; otherwise the figures of
// the table built from p (quick mode, or a results folder), of the one
// protocol of p's runs, which ShowExport names: preset is not used there.
func ExportFigures(ctx context.Context, name string, p Params, preset, dir string, formats ...string) ([]string, error) {
	if preset == "" {
		preset = ReportPreset
	}
	if len(formats) == 0 {
		formats = []string{"pdf", "svg"}
	}
	if dir == "" {
		dir = p.FigureDir()
	}
	if !p.fullWithoutResults() {
		res, err := Table(ctx, name, p)
		if err != nil {
			return nil, err
		}
		return SaveFigures(dir, res.Figures(), formats...)
	}
	c, err := CommittedTables(name)
	if err != nil {
		return nil, err
	}
	var figs []Named
	for _, n := range c.Figures() {
		if n.Preset == preset {
			figs = append(figs, n)
		}
	}
	if len(figs) == 0 {
		return nil, fmt.Errorf("export of %s: no committed figure under %s (presets: %s)", name, preset, strings.Join(reproduction.Presets, ", "))
	}
	return SaveFigures(dir, figs, formats...)
}

// ShowExport saves the displayed figures of the named table for one preset
// (ExportFigures, PDF and SVG) under p.FigureDir() and lists the files
// written, marked "markdown"; what kept it from saving them, marked
// "missing markdown".
func ShowExport(ctx context.Context, name string, p Params, preset string) {
	if preset == "" {
		preset = ReportPreset
	}
	paths, err := ExportFigures(ctx, name, p, preset, "")
	if err != nil {
		markdownAs(missingMark(markMarkdown), fmt.Sprintf("*Figures of %s under %s not exported: %s*", name, preset, mdLine(err.Error())))
		return
	}
	var b strings.Builder
	if p.fullWithoutResults() {
		fmt.Fprintf(&b, "Saved the committed figures of %s under %s, every seed committed (%d files):\n\n", name, preset, len(paths))
	} else {
		fmt.Fprintf(&b, "Saved the figures of %s as displayed above, of this notebook's runs (their protocol is that of the parameter cell's settings; the preset applies to the committed figures of full mode) (%d files):\n\n", name, len(paths))
	}
	for _, path := range paths {
		fmt.Fprintf(&b, "- `%s`\n", repoPath(path))
	}
	if len(paths) == 0 {
		b.WriteString("none: no figure was drawn (the figures cell says why).\n")
	}
	Markdown(b.String())
}

// ShowVerdicts opens a table notebook: for each named table the verdicts
// of the committed runs on the paper's claims (CommittedVerdicts), marked
// "table <name>_verdicts", whatever the mode; for RunningTimeTable also the
// running-time verdicts (CommittedRunningTimeVerdicts), marked "table
// running_time_verdicts".
func ShowVerdicts(names ...string) {
	for _, name := range names {
		md, err := CommittedVerdicts(name)
		if err != nil {
			panic(err)
		}
		showTable(name+"_verdicts", md)
		if name == RunningTimeTable {
			md, err := CommittedRunningTimeVerdicts()
			if err != nil {
				panic(err)
			}
			showTable("running_time_verdicts", md)
		}
	}
}
