package reproduce

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/softshape-go/softshape/experiments/sweep"
	"github.com/softshape-go/softshape/experiments/tablefigures"
	"github.com/softshape-go/softshape/experiments/tables"
	"github.com/softshape-go/softshape/reproduction"
	"github.com/softshape-go/softshape/softshape"
)

// CommittedPreset is the preset Table renders in full mode when the settings
// name none: the one whose numbers are comparable with the paper's.
// ShowTable shows both presets (CommittedTables).
const CommittedPreset = softshape.ProtocolReferenceCompat

// PresetIntro says what the two presets of the committed reproduction are,
// and PresetAdvice which one to report: the full-mode tables print both.
// README.md, docs/reproduction.md and notebook 10 link to the section of
// docs/protocol.md that says which preset to report (TestPresetAdviceLinked).
const (
	PresetIntro = "`reference_compat` runs the authors' published code and protocol, fold leak included: weights and Adam state carry over from fold to fold, " +
		"so folds 2–5 are scored on series the model has trained on. `reference_fresh` is the same protocol without the leak (a fresh model per fold)."
	PresetAdvice = "Compare with the paper's numbers under `reference_compat`; report `reference_fresh`, the same protocol without the fold leak, as the estimate for new work."
)

// committedDir is the reproduction folder of the repository.
func committedDir() string { return filepath.Join(RepoRoot(), "reproduction") }

// repoPath is path as this package shows it: relative to the repository root
// (RepoRoot) in slash form, "reproduction/results/reference_fresh/lambda",
// when it lies inside the repository (as Params takes a relative folder),
// else unchanged. Every message naming a folder of the committed
// reproduction goes through it, so that a notebook shows no machine's
// absolute path.
func repoPath(path string) string {
	rel, err := filepath.Rel(RepoRoot(), path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return path
	}
	return filepath.ToSlash(rel)
}

// IsCommitted reports whether the repository holds committed full-protocol
// runs of the named table: a folder reproduction/results/<preset>/<name>
// under one of the presets (reproduction.Presets), complete or not (a sweep
// may be adding to it).
func IsCommitted(name string) bool {
	for _, preset := range reproduction.Presets {
		dir := filepath.Join(reproduction.ResultsDir(committedDir(), preset), name)
		if st, err := os.Stat(dir); err == nil && st.IsDir() {
			return true
		}
	}
	return false
}

// MakeCommitted is the command that makes (or completes) the committed runs
// of a table.
func MakeCommitted(name string) string {
	return fmt.Sprintf("`TABLES=%s reproduction/run-sweeps.sh` (hours per table on a CPU; `softshape sweep -table %s -set protocol=<preset> -results reproduction/results/<preset>` runs one preset)", name, name)
}

// CommittedTable builds the named table under preset from the committed
// full-protocol results (reproduction/results/<preset> in the repository),
// training nothing and writing nothing: a full-mode notebook re-renders it in
// seconds. Runs not recorded yet are listed as missing, and the table is
// labelled partial.
func CommittedTable(name, preset string) (*TableResult, error) {
	start := time.Now()
	dir := reproduction.ResultsDir(committedDir(), preset)
	if st, err := os.Stat(filepath.Join(dir, name)); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("%w of %s under %s (%s): %s makes them", ErrNotCommitted, name, preset, repoPath(filepath.Join(dir, name)), MakeCommitted(name))
	}
	grid, err := reproduction.PlannedGrid(name, preset)
	if err != nil {
		return nil, err
	}
	p := Params{Quick: false, Datasets: reproduction.PlanDatasets(name), Seeds: reproduction.Seeds, Results: dir,
		Settings: softshape.ParamProtocol + "=" + preset}
	res := &TableResult{Name: name, Params: p, Grid: grid}
	store, err := sweep.Open(dir)
	if err != nil {
		return nil, err
	}
	t, err := tables.Build(store, name, tables.Options{Seeds: reproduction.Seeds})
	if err != nil {
		return nil, fmt.Errorf("committed %s under %s: %w", name, preset, err)
	}
	t.CDRanks = tablefigures.ShowsCD(name) // the diagram's ranks, beside it
	t.Root = repoPath(t.Root)
	res.Table = t
	res.Elapsed = time.Since(start)
	return res, nil
}

// Committed is one paper table of the committed full-protocol reproduction
// under both of its presets (reproduction.Presets: reference_compat,
// reference_fresh) beside the paper.
type Committed struct {
	Name string
	// Entries are each preset's state: runs recorded and planned, and the
	// table built from them (Built nil for a preset without runs).
	Entries [2]reproduction.Entry
	// Comparison is the two tables side by side (tables.Compare).
	Comparison *tables.Comparison
	// More are the table's items of more seeds (reproduction.MoreSeeds),
	// each built over those seeds and Entries' together.
	More    []reproduction.Entry
	Elapsed time.Duration
}

// CommittedTables loads the named table under both presets from the
// committed reproduction (reproduction/results/<preset>/<name>), checking
// every record (reproduction.LoadEntry), training and writing nothing. Runs
// still missing (a sweep in progress) leave it partial, and the comparison
// says so. Without a run under either preset the error names the command
// that makes them (MakeCommitted).
func CommittedTables(name string) (*Committed, error) {
	start := time.Now()
	if len(reproduction.Presets) != 2 {
		return nil, fmt.Errorf("the reproduction has presets %v, want two", reproduction.Presets)
	}
	c := &Committed{Name: name}
	entries, more, err := committedEntries(name)
	if err != nil {
		return nil, err
	}
	var built [2]*tables.Table
	var labels [2]string
	for i, e := range entries {
		c.Entries[i], built[i], labels[i] = e, e.Built, e.Preset
		if e.Built != nil {
			e.Built.Root = repoPath(reproduction.ResultsDir(committedDir(), e.Preset))
		}
	}
	c.More = more
	if built[0] == nil && built[1] == nil {
		return nil, fmt.Errorf("%w of %s under %s: %s makes them", ErrNotCommitted, name,
			repoPath(filepath.Join(committedDir(), "results")), MakeCommitted(name))
	}
	comp, err := tables.Compare(labels, built, reproduction.PlanDatasets(name))
	if err != nil {
		return nil, err
	}
	comp.Between = "fold leak"
	comp.CDRanks = tablefigures.ShowsCD(name) // the diagrams' ranks, beside them (Figures)
	comp.Intro = PresetIntro + " " + PresetAdvice
	for i, e := range c.Entries {
		comp.Recorded[i], comp.Expected[i] = e.Recorded, e.Expected
	}
	c.Comparison = comp
	c.Elapsed = time.Since(start)
	return c, nil
}

// committedEntries loads the named table's entries of the committed
// reproduction, checking every record (reproduction.LoadItem): one per
// preset (reproduction.Presets) over reproduction.Seeds, with nothing
// recorded where a preset has no runs, and those of its items of more seeds
// (reproduction.MoreSeeds).
func committedEntries(name string) (byPreset []reproduction.Entry, more []reproduction.Entry, err error) {
	for _, preset := range reproduction.Presets {
		e, err := reproduction.LoadEntry(committedDir(), name, preset)
		if err != nil {
			return nil, nil, fmt.Errorf("committed %s: %w", name, err)
		}
		byPreset = append(byPreset, e)
	}
	for _, it := range reproduction.MoreSeeds() {
		if it.Table != name {
			continue
		}
		e, err := reproduction.LoadItem(committedDir(), it)
		if err != nil {
			return nil, nil, fmt.Errorf("committed %s: %w", name, err)
		}
		more = append(more, e)
	}
	return byPreset, more, nil
}

// CommittedVerdicts is the block that opens a table notebook: the verdict
// of each of the paper's claims about the named table under each preset,
// over every seed committed (reproduction.VerdictsMarkdown: those of
// docs/reproduction.md), from the committed runs whatever the mode,
// training nothing; for a table without committed runs, how many of its
// planned runs are committed ("not yet").
func CommittedVerdicts(name string) (string, error) {
	byPreset, more, err := committedEntries(name)
	if err != nil {
		return "", err
	}
	return "*From the committed full-protocol runs (`reproduction/results`), whatever the mode; nothing trained.*\n\n" +
		reproduction.VerdictsMarkdown(append(byPreset, more...), name), nil
}

// RunningTimeTable is the table whose notebook (03) also answers the
// paper's running-time claims (Fig 3): ShowVerdicts adds their verdicts
// (CommittedRunningTimeVerdicts).
const RunningTimeTable = "sparse_ratio"

// CommittedRunningTimeVerdicts are the verdicts of the paper's running-time
// claims from the committed measurements (reproduction.RunningTimeVerdicts),
// measuring nothing.
func CommittedRunningTimeVerdicts() (string, error) {
	ts, err := reproduction.LoadTiming(committedDir())
	if err != nil {
		return "", err
	}
	return reproduction.RunningTimeVerdicts(ts), nil
}

// Markdown is the comparison (tables.Comparison.Markdown) under a status
// line saying where the numbers come from and, when the runs are not all
// recorded, what completes them.
func (c *Committed) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "*%s — full protocol, committed runs (`reproduction/results`), nothing trained; %.1f s.", c.Name, c.Elapsed.Seconds())
	if c.Comparison.Partial() {
		fmt.Fprintf(&b, " Partial: %s completes it.", MakeCommitted(c.Name))
	}
	b.WriteString("*\n\n")
	if err := c.Comparison.Markdown(&b); err != nil {
		fmt.Fprintf(&b, "\n(markdown error: %v)\n", err)
	}
	for _, e := range c.More {
		md, err := reproduction.MoreSeedsSummary(e)
		if err != nil {
			fmt.Fprintf(&b, "\n(markdown error: %v)\n", err)
			continue
		}
		b.WriteString("\n" + md)
	}
	return b.String()
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
				title = tables.OnDatasets(e.Built.Title, len(e.Built.Rows))
			}
		}
		fmt.Fprintf(&b, "### %s\n\n%s", title, strings.Replace(leak, "#### ", "##### ", 1))
	}
	if b.Len() == 0 {
		return "No table of the committed reproduction has runs under both presets yet.\n", nil
	}
	return b.String(), nil
}
