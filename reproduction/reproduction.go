// Package reproduction holds the committed full-protocol results of this
// toolkit (results/<preset>/: one JSON record per run, as written by softshape
// sweep), their manifest (manifest.json), and renders the generated sections
// of docs/reproduction.md from them, so the document can never drift from the
// data. reproduction/run-sweeps.sh runs the sweeps; `softshape reproduction`
// rewrites the manifest and the document's generated block.
package reproduction

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/softshape-go/softshape/experiments/sweep"
	"github.com/softshape-go/softshape/experiments/tables"
	"github.com/softshape-go/softshape/internal/hostinfo"
	"github.com/softshape-go/softshape/paper"
	"github.com/softshape-go/softshape/softshape"
)

// The plan of the reproduction: the paper's 18-dataset sweep tables on the six
// smallest of their datasets present locally, under two presets, seed 42, and
// more seeds for some tables (MoreSeeds).
var (
	// Tables are the paper tables, in the order they are run and shown
	// (reproduction/run-sweeps.sh): Tables 3, 4, 6, 5, 7 and 2, then the
	// appendix's studies of the number of experts Ĉ, the MoE and shared
	// expert networks and the loss weight λ (only summary rows in the
	// paper), on the same datasets.
	Tables = []string{"sparse_ratio", "experts_k", "depth_L", "stride_q", "shape_length_m", "ablation",
		"num_experts", "moe_expert_network", "shared_expert_network", "lambda"}
	// Presets are the protocols: comparable with the paper, and the same
	// without the fold leak.
	Presets = []string{softshape.ProtocolReferenceCompat, softshape.ProtocolReferenceFresh}
	// Datasets are run smallest first.
	Datasets = []string{"ItalyPowerDemand", "GunPoint", "DistalPhalanxOutlineAgeGroup", "MiddlePhalanxTW", "ArrowHead", "Trace"}
	// Seeds are the seeds every table must have (MoreSeeds adds some to
	// some tables).
	Seeds = []int64{42}
)

// Item is one planned part of the reproduction: a table under a preset,
// trained with the given seeds.
type Item struct {
	Table, Preset string
	Seeds         []int64
}

// MoreSeeds are the items that add seeds to a table under one preset, so
// that its verdict carries a standard error between seeds: Tables 3, 5
// and 6 under reference_fresh, seeds 0 and 1. Their runs share the
// results folder of the table's seed-42 runs, apart from which they are
// counted and timed.
func MoreSeeds() []Item {
	return []Item{
		{Table: "sparse_ratio", Preset: softshape.ProtocolReferenceFresh, Seeds: []int64{0, 1}},
		{Table: "stride_q", Preset: softshape.ProtocolReferenceFresh, Seeds: []int64{0, 1}},
		{Table: "depth_L", Preset: softshape.ProtocolReferenceFresh, Seeds: []int64{0, 1}},
	}
}

// Plan is every planned item, in the order of Tables and Presets, each
// table's items of MoreSeeds after its seed-42 ones; then Table 1 and the
// LightTS/Shapeformer table read from its runs (Table1Items).
func Plan() []Item {
	var out []Item
	for _, table := range Tables {
		for _, preset := range Presets {
			out = append(out, Item{Table: table, Preset: preset, Seeds: Seeds})
		}
		for _, it := range MoreSeeds() {
			if it.Table == table {
				out = append(out, it)
			}
		}
	}
	return append(out, Table1Items()...)
}

// Extra reports whether the item adds seeds to its table's seed-42 item (an
// item of MoreSeeds).
func (it Item) Extra() bool { return !slices.Equal(it.Seeds, Seeds) }

// Grid is the full grid of the item: its table's planned datasets
// (PlanDatasets), in the sweep of the table that runs them (SourceTable).
func (it Item) Grid() (*sweep.Grid, error) {
	folds := make([]int, sweep.NumFolds)
	for i := range folds {
		folds[i] = i + 1
	}
	return sweep.NewGrid(sweep.GridSpec{Table: SourceTable(it.Table), Datasets: PlanDatasets(it.Table), Folds: folds, Seeds: it.Seeds,
		Settings: softshape.ParamProtocol + "=" + it.Preset})
}

// pooledSeeds are the seeds the item's table is built over: its own, and
// for an item of MoreSeeds those together with Seeds, whose runs its
// differences pool.
func (it Item) pooledSeeds() []int64 {
	if !it.Extra() {
		return it.Seeds
	}
	return append(slices.Clone(Seeds), it.Seeds...)
}

// pooledGrids are the planned grids of the seeds an item's table is built
// over (pooledSeeds): that of Seeds, and for an item of MoreSeeds its own.
func (it Item) pooledGrids() ([]*sweep.Grid, error) {
	first, err := PlannedGrid(it.Table, it.Preset)
	if err != nil {
		return nil, err
	}
	if !it.Extra() {
		return []*sweep.Grid{first}, nil
	}
	own, err := it.Grid()
	if err != nil {
		return nil, err
	}
	return []*sweep.Grid{first, own}, nil
}

// ResultsDir is the results folder of a preset under the reproduction folder.
func ResultsDir(dir, preset string) string { return filepath.Join(dir, "results", preset) }

// PlannedGrid is the full grid of one table under one preset, seeds Seeds.
func PlannedGrid(table, preset string) (*sweep.Grid, error) {
	return Item{Table: table, Preset: preset, Seeds: Seeds}.Grid()
}

// Entry is the state of one planned item: a table under one preset, with
// its seeds.
type Entry struct {
	Table, Preset string
	// Seeds are the seeds of the planned runs: Seeds, or those an item of
	// MoreSeeds adds (Extra).
	Seeds []int64
	// Expected counts the planned runs; Recorded those with an ok or invalid
	// record (invalid: a setting the dataset cannot take, e.g. k > Ĉ). The
	// counts, wall time, backends and processors are those of the entry's
	// seeds alone.
	Expected, Recorded int
	// Invalid counts the recorded runs of a setting the dataset cannot take;
	// Reused the ok records copied from another table's run of the same
	// computation (e.g. k = 1 is Table 3's η = 50%), trained there.
	Invalid, Reused int
	// DatasetsDone are the datasets whose planned runs are all recorded.
	DatasetsDone []string
	// WallSeconds sums the training wall time of the runs trained for this
	// table (ok records, reused ones excluded: their time counts where they
	// were trained; a batched job's time once, not once per run).
	WallSeconds float64
	// DatasetWall sums, per dataset, the training wall time of the runs
	// WallSeconds counts, and DatasetTimed counts those runs.
	DatasetWall  map[string]float64
	DatasetTimed map[string]int
	// DatasetProcessors lists, per dataset, the processors those runs
	// trained on (hostinfo.ProcessorOf of their records' CPU; "" where a
	// record does not name it).
	DatasetProcessors map[string][]string
	// Backends and Hosts are those of the ok records.
	Backends, Hosts []string
	// CPUs are the processors of the ok records that name theirs
	// (sweep.Record.CPU); CPUUnrecorded counts those that do not (written
	// before records held it). Wall times compare only within one CPU.
	CPUs          []string
	CPUUnrecorded int
	// CodeVersions are the revisions of the binaries that trained the ok
	// records that name theirs (sweep.Record.CodeVersion);
	// CodeVersionUnrecorded counts those that do not (written before records
	// held it, or by a binary without VCS information).
	CodeVersions          []string
	CodeVersionUnrecorded int
	// Forms name the forms the ok records trained (sweep.FormName of
	// sweep.Record.SpeedForms): the model's plain graphs, its speed forms,
	// or both.
	Forms []string
	// Fold1 are the ok runs of fold 1, which is the same computation under
	// both presets (Fold1Check compares them).
	Fold1 []Fold1Run
	// SameFold are, for Table 1, the columns trained on SoftShape's own folds
	// (SameFoldColumns), loaded with the entry.
	SameFold []SameFold
	// Built is the table rebuilt from the store over the entry's seeds, and
	// for an entry of MoreSeeds over those and Seeds together, so that its
	// differences pool every seed and give the standard error between seeds
	// (nil when none of the entry's runs is recorded). An entry of MoreSeeds
	// expects every planned run of those seeds (pooledGrids), recorded grid
	// file or not: a dataset lacking some seeds' runs is marked partial and
	// left out of the summary.
	Built *tables.Table
}

// Extra reports whether the entry is that of an item of MoreSeeds.
func (e Entry) Extra() bool { return e.item().Extra() }

// item is the entry's planned item; an entry built by hand without seeds
// is taken for one of Seeds.
func (e Entry) item() Item {
	it := Item{Table: e.Table, Preset: e.Preset, Seeds: e.Seeds}
	if it.Seeds == nil {
		it.Seeds = Seeds
	}
	return it
}

// Fold1Run is the ok record of one fold-1 run.
type Fold1Run struct {
	Dataset, Variant string
	Seed             int64
	// Acc is the test accuracy, BestEpoch the selected epoch (0-based).
	Acc       float64
	BestEpoch int
	Backend   string
	// Reused is set for a record copied from another table's run.
	Reused bool
}

// Complete reports whether every planned run is recorded.
func (e Entry) Complete() bool { return e.Expected > 0 && e.Recorded == e.Expected }

// Load reads the state of every planned item (Plan) from dir (the
// reproduction folder) and checks every record it holds: full protocol (not
// quick mode, the paper's 500 epochs with 150 warm-up) under the preset of its
// folder. A record that fails the check is an error naming its file.
func Load(dir string) ([]Entry, error) { return loadItems(dir, Plan()) }

// loadItems reads the state of the given items from dir (LoadItem), in
// their order.
func loadItems(dir string, items []Item) ([]Entry, error) {
	var out []Entry
	for _, it := range items {
		e, err := LoadItem(dir, it)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// LoadEntry reads the state of one table under one preset, seeds Seeds,
// from dir (the reproduction folder), any table of the paper (its plan:
// PlannedGrid), checking every record as Load does. A preset folder without
// the table gives an entry with nothing recorded (Built nil).
func LoadEntry(dir, table, preset string) (Entry, error) {
	return LoadItem(dir, Item{Table: table, Preset: preset, Seeds: Seeds})
}

// LoadItem reads the state of one planned item from dir as LoadEntry does:
// its runs counted over its own seeds, its table built over its pooled seeds
// (Entry.Built).
func LoadItem(dir string, it Item) (Entry, error) {
	table, preset := it.Table, it.Preset
	e := Entry{Table: table, Preset: preset, Seeds: it.Seeds}
	if table == Table1 {
		cols, err := SameFoldColumns(dir)
		if err != nil {
			return e, err
		}
		e.SameFold = cols
	}
	grid, err := it.Grid()
	if err != nil {
		return e, err
	}
	e.Expected = len(grid.Cells)
	root := ResultsDir(dir, preset)
	if _, err := os.Stat(root); errors.Is(err, fs.ErrNotExist) {
		return e, nil
	}
	store, err := sweep.Open(root)
	if err != nil {
		return e, err
	}
	// Every record of the table in the folder, planned or not, must be a
	// full-protocol run under the folder's preset.
	source := SourceTable(table)
	err = store.Walk(source, func(path string, r *sweep.Record, err error) error {
		if err != nil {
			return err
		}
		if err := checkRecord(r, preset); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		return nil
	})
	if err != nil {
		return e, err
	}
	missing := map[string]bool{}
	okRuns := 0
	for _, c := range grid.Cells {
		rec, err := store.Read(c.Key)
		if errors.Is(err, fs.ErrNotExist) {
			missing[c.Dataset] = true
			continue
		}
		if err != nil {
			return e, err
		}
		if rec.Status == sweep.StatusFailed {
			missing[c.Dataset] = true
			continue
		}
		e.Recorded++
		if rec.Status != sweep.StatusOK {
			e.Invalid++
			continue
		}
		okRuns++
		if c.Fold == 1 {
			e.Fold1 = append(e.Fold1, Fold1Run{Dataset: c.Dataset, Variant: c.Variant, Seed: c.Seed, Acc: float64(rec.TestAccuracy),
				BestEpoch: rec.BestEpoch, Backend: rec.Backend, Reused: rec.ReusedFrom != ""})
		}
		e.Backends = addOnce(e.Backends, rec.Backend)
		e.Hosts = addOnce(e.Hosts, rec.Hostname)
		if rec.CPU == "" {
			e.CPUUnrecorded++
		} else {
			e.CPUs = addOnce(e.CPUs, rec.CPU)
		}
		e.Forms = addOnce(e.Forms, sweep.FormName(rec.SpeedForms))
		if rec.CodeVersion == "" {
			e.CodeVersionUnrecorded++
		} else {
			e.CodeVersions = addOnce(e.CodeVersions, rec.CodeVersion)
		}
		if rec.ReusedFrom != "" {
			e.Reused++
			continue
		}
		if source == table { // a table read from another's runs: timed there
			w := rec.RunWallSeconds() // a batched job's time once
			e.WallSeconds += w
			if e.DatasetWall == nil {
				e.DatasetWall, e.DatasetTimed, e.DatasetProcessors = map[string]float64{}, map[string]int{}, map[string][]string{}
			}
			e.DatasetWall[c.Dataset] += w
			e.DatasetTimed[c.Dataset]++
			e.DatasetProcessors[c.Dataset] = addOnce(e.DatasetProcessors[c.Dataset], hostinfo.ProcessorOf(rec.CPU))
		}
	}
	for _, ds := range PlanDatasets(table) {
		if !missing[ds] {
			e.DatasetsDone = append(e.DatasetsDone, ds)
		}
	}
	if e.Recorded > 0 {
		opts := tables.Options{Seeds: it.pooledSeeds()}
		if it.Extra() {
			// The pooled table expects every planned run of its seeds, so
			// that a dataset whose sweep of these seeds has not started
			// shows its runs missing and stays out of the summary, instead
			// of passing for complete on its seed-42 runs alone.
			if opts.Planned, err = it.pooledGrids(); err != nil {
				return e, err
			}
		}
		if e.Built, err = tables.Build(store, source, opts); err != nil {
			return e, fmt.Errorf("table %s under %s, %s: %w", table, preset, seedsText(it.Seeds), err)
		}
		if source != table {
			if e.Built, err = tables.FromRuns(e.Built, table); err != nil {
				return e, fmt.Errorf("table %s under %s: %w", table, preset, err)
			}
		}
		// The table finds runs through the store's grid files: a record whose
		// sweep's grid-*.json is missing (not committed with it) would be
		// left out of the table without a word.
		if n := tableRuns(e.Built, it.Seeds); n != okRuns {
			return e, fmt.Errorf("table %s under %s, %s: %d runs have an ok record in %s but the table built from its grid files holds %d (a grid-*.json of %s missing?)",
				table, preset, seedsText(it.Seeds), okRuns, root, n, filepath.Join(root, table))
		}
	}
	return e, nil
}

// tableRuns counts the runs of the given seeds averaged in the measured
// columns of t.
func tableRuns(t *tables.Table, seeds []int64) int {
	n := 0
	for _, r := range t.Rows {
		for j, c := range t.Columns {
			if c.Kind != tables.Ours {
				continue
			}
			for _, run := range r.Ours[j].PerRun {
				if slices.Contains(seeds, run.Seed) {
					n++
				}
			}
		}
	}
	return n
}

// checkRecord checks that a record is a full-protocol run under preset.
func checkRecord(rec *sweep.Record, preset string) error {
	if rec.Quick || rec.Mode != "full" {
		return fmt.Errorf("a quick-mode record (%s) in the full-protocol reproduction", rec.Mode)
	}
	cfg, err := softshape.DefaultConfig().WithSettings(rec.Config)
	if err != nil {
		return fmt.Errorf("configuration: %w", err)
	}
	d := softshape.DefaultConfig()
	if cfg.Epochs != d.Epochs || cfg.WarmUpEpochs != d.WarmUpEpochs {
		return fmt.Errorf("schedule epochs=%d, warmup_epochs=%d: not the paper's %d/%d", cfg.Epochs, cfg.WarmUpEpochs, d.Epochs, d.WarmUpEpochs)
	}
	if name := cfg.ProtocolName(); name != preset || rec.Protocol != preset {
		return fmt.Errorf("protocol %s (record says %q) in the %s folder", name, rec.Protocol, preset)
	}
	return nil
}

func addOnce(list []string, s string) []string {
	for _, v := range list {
		if v == s {
			return list
		}
	}
	list = append(list, s)
	sort.Strings(list)
	return list
}

// rowTitle is shortTitle, with the seeds an entry of MoreSeeds adds:
// "Table 3: sparse ratio 1−η, seeds 0, 1".
func rowTitle(e Entry) string {
	if e.Extra() {
		return shortTitle(e) + ", " + seedsText(e.Seeds)
	}
	return shortTitle(e)
}

// presetLabel is the preset of an entry, with the seeds its table pools for
// an entry of MoreSeeds: "reference_fresh, seeds 42, 0, 1".
func presetLabel(e Entry) string {
	if e.Extra() {
		return e.Preset + ", " + seedsText(e.item().pooledSeeds())
	}
	return e.Preset
}

// titleOf is the paper's title of a table: of its per-dataset table, else
// of its printed summary.
func titleOf(e Entry) string {
	if e.Built != nil {
		return strings.TrimSpace(e.Built.Title)
	}
	if t, err := paper.PerDataset(e.Table); err == nil {
		return strings.TrimSpace(t.Title)
	}
	if t, err := paper.Summary(e.Table); err == nil { // the appendix's studies: summary rows only
		return strings.TrimSpace(t.Title)
	}
	return e.Table
}
