package reproduce

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/softshape-go/softshape/experiments/fidelity"
	"github.com/softshape-go/softshape/softshape"
)

// committedFidelity is the fidelity benchmark committed under
// reproduction/fidelity: the full protocol on these datasets and seeds (the
// seeds of the authors' reference runs) under the three presets.
func committedFidelity(root string) fidelity.ReportSpec {
	return fidelity.ReportSpec{Results: filepath.Join(root, "reproduction", "fidelity"),
		Datasets: []string{"GunPoint", "ECG200"}, Seeds: []int64{42, 0, 1, 2},
		Presets: []string{softshape.ProtocolReferenceFresh, softshape.ProtocolReferenceCompat, softshape.ProtocolDefault}}
}

// CommittedFidelity renders the committed fidelity benchmark
// (reproduction/fidelity, written by `softshape fidelity`) as Markdown,
// training nothing: per dataset and preset ours beside the authors' code
// (when ../shared/reference/reference-runs.csv or $SOFTSHAPE_SHARED has it)
// and the paper, then the fold leak measured as reference_compat minus
// reference_fresh on the same seeds. Seeds count once all five folds are
// recorded.
func CommittedFidelity() (string, error) {
	root := RepoRoot()
	var ref []fidelity.RefRun
	refPath := fidelity.DefaultReferencePath(root)
	if refPath != "" {
		var err error
		if ref, err = fidelity.ReadReference(refPath); err != nil {
			return "", err
		}
	}
	rows, err := fidelity.Report(committedFidelity(root), ref)
	if err != nil {
		return "", fmt.Errorf("committed fidelity benchmark: %w", err)
	}
	var b strings.Builder
	b.WriteString("### Fidelity: the full protocol under each preset (committed runs)\n\n")
	if refPath == "" {
		b.WriteString("The authors' per-seed runs (reference-runs.csv) are not on this machine: their columns are empty; the paper's numbers are shown.\n\n")
	}
	if err := fidelity.WriteMarkdown(&b, rows); err != nil {
		return "", err
	}
	b.WriteString("\n### The fold leak: reference_compat − reference_fresh, paired by seed\n\n")
	if err := fidelity.WriteLeaks(&b, fidelity.Leaks(rows)); err != nil {
		return "", err
	}
	return b.String(), nil
}
