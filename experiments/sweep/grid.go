package sweep

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/softshape-go/softshape/ablations"
	"github.com/softshape-go/softshape/softshape"
)

// Quick mode settings.
const (
	// QuickEpochs and QuickWarmUp are the schedule of quick mode (the paper's
	// is 500 epochs with 150 warm-up).
	QuickEpochs = 30
	QuickWarmUp = 15
	// QuickLabel marks every output made from quick-mode runs.
	QuickLabel = "QUICK MODE — not a reproduction"
	// NumFolds is the number of cross-validation folds of the protocol.
	NumFolds = softshape.ProtocolFolds
)

// GridSpec defines a sweep: datasets × folds × variants × seeds for one table.
type GridSpec struct {
	// Table is the paper table (ablations.TableNames).
	Table string `json:"table"`
	// Datasets are the dataset names, in display order.
	Datasets []string `json:"datasets"`
	// Variants restricts the table's variants (nil: all of them).
	Variants []string `json:"variants,omitempty"`
	// Folds are 1-based fold numbers (of NumFolds).
	Folds []int `json:"folds"`
	// Seeds are the run seeds.
	Seeds []int64 `json:"seeds"`
	// Quick selects the quick schedule (QuickEpochs, QuickWarmUp).
	Quick bool `json:"quick"`
	// Settings are hyperparameters applied after the quick schedule and
	// before each variant, in the syntax of softshape.Config.WithSettings
	// (e.g. "embed_dim=16;epochs=2").
	Settings string `json:"settings,omitempty"`
}

// BaseConfig returns the configuration every variant of a grid starts from:
// softshape.DefaultConfig, the quick schedule when quick, then settings.
func BaseConfig(quick bool, settings string) (softshape.Config, error) {
	cfg := softshape.DefaultConfig()
	if quick {
		cfg.Epochs, cfg.WarmUpEpochs = QuickEpochs, QuickWarmUp
	}
	return cfg.WithSettings(settings)
}

// GridVariant is one variant of a grid with its resolved configuration.
type GridVariant struct {
	// Name is the variant name.
	Name string `json:"name"`
	// Hash is ConfigHash of the configuration and the grid's quick flag; a
	// cell's key may differ from it by dataset (CellHash).
	Hash string `json:"config_hash,omitempty"`
	// Config is the resolved configuration string (Config.String).
	Config string `json:"config,omitempty"`
	// Blocked says why the variant cannot run (it needs model support); such
	// a variant has no cells.
	Blocked string `json:"blocked,omitempty"`
}

// Cell is one run of a grid.
type Cell struct {
	Key
	// Config is the resolved configuration of the run.
	Config softshape.Config
}

// Grid is a resolved sweep: its variants and its cells in key order.
type Grid struct {
	// Spec is the grid's definition.
	Spec GridSpec
	// Variants are the table's variants (those that need model support
	// have Blocked set and no cells).
	Variants []GridVariant
	// Cells are the runs, in key order.
	Cells []Cell
}

// NewGrid checks spec and resolves its variants and cells. Variants that
// need model support are kept in Variants with Blocked set and get no cells.
func NewGrid(spec GridSpec) (*Grid, error) {
	if err := checkSpec(spec); err != nil {
		return nil, fmt.Errorf("sweep %s: %w", spec.Table, err)
	}
	plan, err := ablations.ForTable(spec.Table)
	if err != nil {
		return nil, err
	}
	variants := plan.Variants()
	if spec.Variants != nil {
		var picked []ablations.Variant
		for _, name := range spec.Variants {
			i := slices.IndexFunc(variants, func(v ablations.Variant) bool { return v.Name == name })
			if i < 0 {
				names := make([]string, len(variants))
				for j, v := range variants {
					names[j] = v.Name
				}
				return nil, fmt.Errorf("sweep %s: variant %q is not in this table (have %s)", spec.Table, name, strings.Join(names, ", "))
			}
			picked = append(picked, variants[i])
		}
		variants = picked
	}
	base, err := BaseConfig(spec.Quick, spec.Settings)
	if err != nil {
		return nil, fmt.Errorf("sweep %s: %w", spec.Table, err)
	}
	g := &Grid{Spec: spec}
	for _, v := range variants {
		cfg, err := v.Config(base)
		if errors.Is(err, ablations.ErrNeedsModelSupport) {
			g.Variants = append(g.Variants, GridVariant{Name: v.Name, Blocked: err.Error()})
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("sweep %s: %w", spec.Table, err)
		}
		if err := sweptSetting(spec.Settings, base, cfg, v.Name); err != nil {
			return nil, fmt.Errorf("sweep %s: %w", spec.Table, err)
		}
		gv := GridVariant{Name: v.Name, Config: cfg.String(), Hash: ConfigHash(cfg, spec.Quick)}
		g.Variants = append(g.Variants, gv)
		for _, ds := range spec.Datasets {
			for _, seed := range spec.Seeds {
				for _, fold := range spec.Folds {
					g.Cells = append(g.Cells, Cell{Key: Key{Table: spec.Table, Dataset: ds, Variant: v.Name, Fold: fold,
						Seed: seed, Quick: spec.Quick, Hash: CellHash(cfg, spec.Quick, ds)}, Config: cfg})
				}
			}
		}
	}
	sortCells(g.Cells)
	return g, nil
}

// sweptSetting returns an error when variant, which turned base into cfg,
// changes a setting that settings (the grid's, applied before every
// variant) names: the table sweeps that setting, so the variant would
// override the value given without a word, an invalid one included. The
// protocol preset is left out: it names no one field.
func sweptSetting(settings string, base, cfg softshape.Config, variant string) error {
	names, err := softshape.SettingNames(settings)
	if err != nil {
		return err
	}
	for _, p := range softshape.Settings() {
		if p.Name == softshape.ParamProtocol || !slices.Contains(names, p.Name) {
			continue
		}
		if given, swept := p.Value(base), p.Value(cfg); given != swept {
			return fmt.Errorf("settings %s=%v and variant %q, which sets %s=%v, conflict: the table sweeps %s, so leave it out of the settings (-set, $SOFTSHAPE_SETTINGS) and choose its values with the variants",
				p.Name, given, variant, p.Name, swept, p.Name)
		}
	}
	return nil
}

// checkSpec rejects empty, repeated or malformed grid dimensions.
func checkSpec(spec GridSpec) error {
	if !slices.Contains(ablations.TableNames(), spec.Table) {
		return fmt.Errorf("unknown table %q (have %s)", spec.Table, strings.Join(ablations.TableNames(), ", "))
	}
	if len(spec.Datasets) == 0 || len(spec.Folds) == 0 || len(spec.Seeds) == 0 {
		return fmt.Errorf("%d datasets, %d folds, %d seeds: each needs at least one", len(spec.Datasets), len(spec.Folds), len(spec.Seeds))
	}
	seen := map[string]bool{}
	for _, d := range spec.Datasets {
		if d == "" || d == "." || d == ".." || strings.ContainsAny(d, `/\:`) || strings.TrimSpace(d) != d {
			return fmt.Errorf("invalid dataset name %q", d)
		}
		if seen[d] {
			return fmt.Errorf("dataset %s listed twice", d)
		}
		seen[d] = true
	}
	folds := map[int]bool{}
	for _, f := range spec.Folds {
		if f < 1 || f > NumFolds || folds[f] {
			return fmt.Errorf("folds %v: want distinct folds in 1..%d", spec.Folds, NumFolds)
		}
		folds[f] = true
	}
	seeds := map[int64]bool{}
	for _, s := range spec.Seeds {
		if seeds[s] {
			return fmt.Errorf("seed %d listed twice", s)
		}
		seeds[s] = true
	}
	return nil
}

// sortCells orders cells by key.
func sortCells(cells []Cell) {
	sort.Slice(cells, func(i, j int) bool { return cells[i].sortKey() < cells[j].sortKey() })
}

// Keys returns the keys of the grid's cells, in order.
func (g *Grid) Keys() []Key {
	keys := make([]Key, len(g.Cells))
	for i, c := range g.Cells {
		keys[i] = c.Key
	}
	return keys
}

// Blocked returns the variants that need model support.
func (g *Grid) Blocked() []GridVariant {
	var out []GridVariant
	for _, v := range g.Variants {
		if v.Blocked != "" {
			out = append(out, v)
		}
	}
	return out
}

// ID identifies the grid: a short hash of its table, datasets, folds, seeds,
// quick flag, settings and resolved variants. Shards of one sweep share it.
func (g *Grid) ID() string {
	spec := g.Spec
	spec.Datasets = slices.Sorted(slices.Values(spec.Datasets))
	b, _ := json.Marshal(struct {
		Spec     GridSpec
		Variants []GridVariant
	}{spec, g.Variants})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])[:10]
}
