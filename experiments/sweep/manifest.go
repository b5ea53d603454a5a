package sweep

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/softshape-go/softshape/softshape"
)

// gridFile is the JSON content of <root>/<table>/grid-<id>.json.
type gridFile struct {
	Schema   int           `json:"schema"`
	ID       string        `json:"id"`
	Mode     string        `json:"mode"`
	Spec     GridSpec      `json:"spec"`
	Variants []GridVariant `json:"variants"`
}

// gridPath returns the grid file of a table and grid id.
func (s *Store) gridPath(table, id string) string {
	return filepath.Join(s.root, table, "grid-"+id+".json")
}

// SaveGrid records the grid (all of it, whatever the shard) in
// <root>/<table>/grid-<id>.json, atomically; shards of one sweep write the
// same content.
func (s *Store) SaveGrid(g *Grid) error {
	f := gridFile{Schema: SchemaVersion, ID: g.ID(), Mode: modeOf(g.Spec.Quick), Spec: g.Spec, Variants: g.Variants}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	path := s.gridPath(g.Spec.Table, f.ID)
	if old, err := os.ReadFile(path); err == nil && string(old) == string(b) {
		return nil
	}
	return s.writeAtomic(path, b)
}

// LoadGrids returns the grids recorded for table (every table when ""),
// rebuilt from their grid files, sorted by table and id. A grid file that
// cannot be read is an error naming it (ReadGrids reports it and goes on).
func (s *Store) LoadGrids(table string) ([]*Grid, error) {
	grids, unreadable, err := s.ReadGrids(table)
	if err != nil {
		return nil, err
	}
	if len(unreadable) > 0 {
		return nil, unreadable[0]
	}
	return grids, nil
}

// ReadGrids is LoadGrids that goes on past a grid file it cannot read (not
// JSON, a foreign file, another schema): it returns the other grids and one
// error per such file, naming it.
func (s *Store) ReadGrids(table string) (grids []*Grid, unreadable []error, err error) {
	pattern := filepath.Join(s.root, table, "grid-*.json")
	if table == "" {
		pattern = filepath.Join(s.root, "*", "grid-*.json")
	}
	files, err := filepath.Glob(pattern)
	if err != nil {
		return nil, nil, err
	}
	sort.Strings(files)
	for _, path := range files {
		g, err := readGridFile(path)
		if err != nil {
			unreadable = append(unreadable, err)
			continue
		}
		grids = append(grids, g)
	}
	return grids, unreadable, nil
}

// readGridFile parses a grid file and rebuilds its cells.
func readGridFile(path string) (*Grid, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("grid file %s: %w", path, err)
	}
	var f gridFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("grid file %s: %w", path, err)
	}
	if f.Schema != SchemaVersion {
		return nil, fmt.Errorf("grid file %s: schema %d, want %d", path, f.Schema, SchemaVersion)
	}
	if err := checkSpec(f.Spec); err != nil {
		return nil, fmt.Errorf("grid file %s: %w", path, err)
	}
	g := &Grid{Spec: f.Spec, Variants: f.Variants}
	for _, v := range f.Variants {
		if v.Blocked != "" {
			continue
		}
		if err := checkConfigHash(v.Config, f.Spec.Quick, v.Hash); err != nil {
			return nil, fmt.Errorf("grid file %s: variant %q: %w", path, v.Name, err)
		}
		cfg, err := softshape.DefaultConfig().WithSettings(v.Config)
		if err != nil {
			return nil, fmt.Errorf("grid file %s: variant %q: %w", path, v.Name, err)
		}
		for _, ds := range f.Spec.Datasets {
			for _, seed := range f.Spec.Seeds {
				for _, fold := range f.Spec.Folds {
					g.Cells = append(g.Cells, Cell{Key: Key{Table: f.Spec.Table, Dataset: ds, Variant: v.Name, Fold: fold,
						Seed: seed, Quick: f.Spec.Quick, Hash: CellHash(cfg, f.Spec.Quick, ds)}, Config: cfg})
				}
			}
		}
	}
	sortCells(g.Cells)
	if g.ID() != f.ID {
		return nil, fmt.Errorf("grid file %s: id %s does not match its content (%s)", path, f.ID, g.ID())
	}
	return g, nil
}

// Expected is what the recorded sweeps of one table and mode expect: the
// union of their grids, and of the planned grids a caller adds
// (ExpectedPlanned).
type Expected struct {
	// Table is the paper table; Quick the mode.
	Table string
	Quick bool
	// Grids are the ids of the recorded grids merged.
	Grids []string
	// Planned are the ids of the planned grids merged that are not
	// recorded: their cells are expected, but no sweep of them has started.
	Planned []string
	// Datasets, Folds and Seeds are the union of the grids' (datasets in
	// first-seen order, folds and seeds sorted).
	Datasets []string
	Folds    []int
	Seeds    []int64
	// Variants are the union of the grids' variants by name.
	Variants []GridVariant
	// Cells are the expected cells, in key order.
	Cells []Cell
}

// ErrNoSweep is wrapped when no grid is recorded for a table and mode.
var ErrNoSweep = errors.New("no sweep recorded")

// Expected merges the grids recorded for table with the given quick flag
// (only the grid gridID when it is not ""). Two grids that run the same cell
// (dataset, variant, fold, seed) under different configurations are an error
// that names them: choose one with gridID.
func (s *Store) Expected(table string, quick bool, gridID string) (*Expected, error) {
	return s.ExpectedSeeds(table, quick, gridID, nil)
}

// ExpectedSeeds is Expected restricted to the runs of the given seeds (every
// seed when seeds is nil): a grid none of whose seeds is among them is left
// out, and so are the other seeds' cells of the grids merged. The
// reproduction keeps a table's planned seeds apart from seeds added later to
// the same results folder.
func (s *Store) ExpectedSeeds(table string, quick bool, gridID string, seeds []int64) (*Expected, error) {
	return s.ExpectedPlanned(table, quick, gridID, seeds, nil)
}

// ExpectedPlanned is ExpectedSeeds with the cells of planned grids expected
// as if their grid files were recorded, so that a planned sweep not started
// on some datasets shows them missing rather than leaving them out. The
// planned grids are merged after the recorded ones, by the same rules (the
// seeds restriction; a cell planned under another configuration than a
// recorded grid's is an error); one whose id is recorded adds nothing, and
// the others are listed in Expected.Planned, not in Expected.Grids. Every
// planned grid must be of table and of the quick flag's mode; planned grids
// cannot be combined with gridID, which chooses one recorded grid.
func (s *Store) ExpectedPlanned(table string, quick bool, gridID string, seeds []int64, planned []*Grid) (*Expected, error) {
	if gridID != "" && len(planned) > 0 {
		return nil, fmt.Errorf("table %s: grid %s chosen together with %d planned grids: choose one or the other", table, gridID, len(planned))
	}
	for _, g := range planned {
		if g.Spec.Table != table || g.Spec.Quick != quick {
			return nil, fmt.Errorf("planned grid %s is of table %s (%s), not of table %s (%s)", g.ID(), g.Spec.Table, modeOf(g.Spec.Quick), table, modeOf(quick))
		}
	}
	grids, err := s.LoadGrids(table)
	if err != nil {
		return nil, err
	}
	m := newMerge(table, quick, seeds)
	var others []string
	for _, g := range grids {
		if g.Spec.Quick != quick {
			continue
		}
		if gridID != "" && g.ID() != gridID {
			others = append(others, g.ID())
			continue
		}
		if ok, err := m.add(g); err != nil {
			return nil, err
		} else if ok {
			m.e.Grids = append(m.e.Grids, g.ID())
		}
	}
	recorded := len(m.e.Grids) > 0
	for _, g := range planned {
		if slices.Contains(m.e.Grids, g.ID()) || slices.Contains(m.e.Planned, g.ID()) {
			continue
		}
		if ok, err := m.add(g); err != nil {
			return nil, err
		} else if ok {
			m.e.Planned = append(m.e.Planned, g.ID())
		}
	}
	if !recorded && len(m.e.Planned) == 0 {
		if gridID != "" {
			return nil, fmt.Errorf("%w: table %s has no %s grid %s under %s (have %s)", ErrNoSweep, table, modeOf(quick), gridID, s.root, strings.Join(others, ", "))
		}
		if seeds != nil {
			return nil, fmt.Errorf("%w for table %s (%s) with seeds %v under %s", ErrNoSweep, table, modeOf(quick), seeds, s.root)
		}
		if hint := NestedHint(s.root, table); hint != "" {
			return nil, fmt.Errorf("%w for table %s (%s) under %s: %s", ErrNoSweep, table, modeOf(quick), s.root, hint)
		}
		return nil, fmt.Errorf("%w for table %s (%s) under %s: run `softshape sweep -table %s%s` first", ErrNoSweep, table, modeOf(quick), s.root, table, map[bool]string{true: " -quick", false: ""}[quick])
	}
	e := m.e
	slices.Sort(e.Folds)
	slices.Sort(e.Seeds)
	sortCells(e.Cells)
	return e, nil
}

// merge builds an Expected from grids, one at a time (add).
type merge struct {
	e        *Expected
	seeds    []int64           // nil: every seed
	owner    map[string]string // cellID → grid id
	hashes   map[string]string // cellID → hash
	variants map[string]int    // variant name → index in e.Variants
}

func newMerge(table string, quick bool, seeds []int64) *merge {
	return &merge{e: &Expected{Table: table, Quick: quick}, seeds: seeds,
		owner: map[string]string{}, hashes: map[string]string{}, variants: map[string]int{}}
}

// add merges grid g's datasets, folds, seeds, variants and cells of the
// wanted seeds into the Expected; it reports false, merging nothing, when
// none of g's seeds is wanted. A cell g runs under another configuration
// than a grid merged before is an error naming both (the merge is then of
// no further use).
func (m *merge) add(g *Grid) (bool, error) {
	e, seeds := m.e, m.seeds
	if seeds != nil && !slices.ContainsFunc(g.Spec.Seeds, func(sd int64) bool { return slices.Contains(seeds, sd) }) {
		return false, nil
	}
	for _, d := range g.Spec.Datasets {
		if !slices.Contains(e.Datasets, d) {
			e.Datasets = append(e.Datasets, d)
		}
	}
	for _, f := range g.Spec.Folds {
		if !slices.Contains(e.Folds, f) {
			e.Folds = append(e.Folds, f)
		}
	}
	for _, sd := range g.Spec.Seeds {
		if seeds != nil && !slices.Contains(seeds, sd) {
			continue
		}
		if !slices.Contains(e.Seeds, sd) {
			e.Seeds = append(e.Seeds, sd)
		}
	}
	for _, v := range g.Variants {
		if i, ok := m.variants[v.Name]; ok {
			if e.Variants[i].Blocked != "" && v.Blocked == "" {
				e.Variants[i] = v
			}
			continue
		}
		m.variants[v.Name] = len(e.Variants)
		e.Variants = append(e.Variants, v)
	}
	for _, c := range g.Cells {
		if seeds != nil && !slices.Contains(seeds, c.Seed) {
			continue
		}
		id := c.cellID()
		if h, ok := m.hashes[id]; ok {
			if h != c.Hash {
				return false, fmt.Errorf("table %s: grids %s and %s both run %s/%s/%s fold %d seed %d, under different configurations (#%s, #%s): choose one grid",
					e.Table, m.owner[id], g.ID(), c.Table, c.Dataset, c.Variant, c.Fold, c.Seed, h, c.Hash)
			}
			continue
		}
		m.hashes[id], m.owner[id] = c.Hash, g.ID()
		e.Cells = append(e.Cells, c)
	}
	return true, nil
}

// NestedResults returns the subfolders of root, sorted, that are results
// folders with a sweep of table recorded (of any table when table is ""):
// those holding <sub>/<table>/grid-*.json. They are what a user means when
// root is the folder above several results folders, such as one per protocol
// preset.
func NestedResults(root, table string) ([]string, error) {
	if table == "" {
		table = "*"
	}
	files, err := filepath.Glob(filepath.Join(root, "*", table, "grid-*.json"))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, f := range files {
		sub := filepath.Base(filepath.Dir(filepath.Dir(f)))
		if !strings.HasPrefix(sub, ".") && !slices.Contains(out, sub) {
			out = append(out, sub)
		}
	}
	sort.Strings(out)
	return out, nil
}

// NestedHint is the advice for root when it records no sweep of table (of
// any table when "") but results folders below it do (NestedResults): it
// names them and the -results flag that opens one. It is "" when there are
// none.
func NestedHint(root, table string) string {
	subs, err := NestedResults(root, table)
	if err != nil || len(subs) == 0 {
		return ""
	}
	what := "sweeps"
	if table != "" {
		what = "table " + table
	}
	return fmt.Sprintf("the results folders below it record %s: %s; name one of them, e.g. -results %s",
		what, strings.Join(subs, ", "), filepath.Join(root, subs[0]))
}
