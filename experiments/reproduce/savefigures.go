package reproduce

import (
	"fmt"
	"path/filepath"

	"github.com/softshape-go/softshape/plots"
)

// SaveFigures writes figures to files for a paper: <dir>/<name>.<format> for
// each figure drawn and each of formats ("png", "svg", "pdf": plots.Formats;
// none given: all three), PNG at plots.FileDPI, and returns the paths
// written. A figure that was not drawn (its Err says why; ShowFigures shows
// it) is skipped. A notebook saves the figures it shows with ShowExport
// (ExportFigures), which picks those of one preset: in full mode Table
// renders CommittedPreset, reference_compat, whose figures are not the ones
// to report.
func SaveFigures(dir string, figs []Named, formats ...string) ([]string, error) {
	if len(formats) == 0 {
		formats = plots.Formats()
	}
	var paths []string
	for _, n := range figs {
		if n.Figure == nil {
			continue
		}
		p, err := n.Figure.SaveFormats(filepath.Join(dir, n.Name), formats)
		paths = append(paths, p...)
		if err != nil {
			return paths, fmt.Errorf("figure %s: %w", n.Name, err)
		}
	}
	return paths, nil
}
