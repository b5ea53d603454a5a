package reproduce

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExportFiguresOfOnePreset: in full mode the export saves the committed
// figures of the preset asked for, reference_fresh unless another is named,
// each as PDF and SVG, and none of the other preset's.
func TestExportFiguresOfOnePreset(t *testing.T) {
	if !IsCommitted("sparse_ratio") {
		t.Skip("no committed Table 3 in this checkout")
	}
	c, err := CommittedTables("sparse_ratio")
	if err != nil {
		t.Fatal(err)
	}
	for _, preset := range []string{"", "reference_compat"} {
		want := preset
		if want == "" {
			want = ReportPreset
		}
		drawn := 0
		for _, n := range c.Figures() {
			if n.Preset == want && n.Figure != nil {
				drawn++
			}
		}
		dir := t.TempDir()
		paths, err := ExportFigures(context.Background(), "sparse_ratio", Params{}, preset, dir)
		if err != nil {
			t.Fatal(err)
		}
		if drawn == 0 || len(paths) != 2*drawn {
			t.Errorf("preset %q: %d files for %d figures of %s, want a PDF and an SVG each", preset, len(paths), drawn, want)
		}
		for _, p := range paths {
			base := filepath.Base(p)
			if !strings.Contains(base, "_"+want) || filepath.Dir(p) != dir {
				t.Errorf("preset %q: %s is not a figure of %s under %s", preset, p, want, dir)
			}
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if ext := filepath.Ext(p); ext == ".pdf" && !bytes.HasPrefix(b, []byte("%PDF")) || ext == ".svg" && !bytes.Contains(b[:min(len(b), 512)], []byte("<svg")) {
				t.Errorf("%s: not a %s file", p, ext)
			}
		}
	}
}
