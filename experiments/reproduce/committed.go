package reproduce

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/softshape-go/softshape/experiments/sweep"
	"github.com/softshape-go/softshape/experiments/tables"
	"github.com/softshape-go/softshape/reproduction"
	"github.com/softshape-go/softshape/softshape"
)

// CommittedPreset is the preset a full-mode notebook shows by default: the one
// whose numbers are comparable with the paper's.
const CommittedPreset = softshape.ProtocolReferenceCompat

// IsCommitted reports whether the named table is part of the committed
// full-protocol reproduction (reproduction.Tables).
func IsCommitted(name string) bool { return slices.Contains(reproduction.Tables, name) }

// CommittedTable builds the named table under preset from the committed
// full-protocol results (reproduction/results/<preset> in the repository),
// training nothing and writing nothing: a full-mode notebook re-renders it in
// seconds. Runs not recorded yet are listed as missing, and the table is
// labelled partial.
func CommittedTable(name, preset string) (*TableResult, error) {
	start := time.Now()
	if !IsCommitted(name) {
		return nil, fmt.Errorf("table %s is not part of the committed reproduction (%v)", name, reproduction.Tables)
	}
	grid, err := reproduction.PlannedGrid(name, preset)
	if err != nil {
		return nil, err
	}
	dir := reproduction.ResultsDir(filepath.Join(RepoRoot(), "reproduction"), preset)
	p := Params{Quick: false, Datasets: reproduction.Datasets, Seeds: reproduction.Seeds, Results: dir,
		Settings: softshape.ParamProtocol + "=" + preset}
	res := &TableResult{Name: name, Params: p, Grid: grid}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("no committed results for %s under %s: %s is missing (run reproduction/run-sweeps.sh)", name, preset, dir)
	}
	store, err := sweep.Open(dir)
	if err != nil {
		return nil, err
	}
	t, err := tables.Build(store, name, tables.Options{})
	if err != nil {
		return nil, fmt.Errorf("committed %s under %s: %w", name, preset, err)
	}
	res.Table = t
	res.Elapsed = time.Since(start)
	return res, nil
}

// CommittedLeak renders, training nothing, the fold leak measured on the
// committed reproduction: for each table with runs under both presets,
// reference_compat − reference_fresh paired by setting, dataset, seed and fold
// (reproduction.Leak, the section of docs/reproduction.md).
func CommittedLeak() (string, error) {
	entries, err := reproduction.Load(filepath.Join(RepoRoot(), "reproduction"))
	if err != nil {
		return "", fmt.Errorf("committed reproduction: %w", err)
	}
	var b strings.Builder
	for _, table := range reproduction.Tables {
		leak := reproduction.Leak(entries, table)
		if leak == "" {
			continue
		}
		title := table
		for _, e := range entries {
			if e.Table == table && e.Built != nil {
				title = strings.TrimSpace(e.Built.Title)
			}
		}
		fmt.Fprintf(&b, "### %s\n\n%s", title, strings.Replace(leak, "#### ", "##### ", 1))
	}
	if b.Len() == 0 {
		return "No table of the committed reproduction has runs under both presets yet.\n", nil
	}
	return b.String(), nil
}
