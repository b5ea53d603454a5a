// Package reproduce is the thin API behind the GoNB notebooks under
// notebooks/: each notebook cell is one or two calls of this package, so the
// logic is compiled, tested and shared with the command line.
//
// A notebook starts from Params (datasets, quick mode, folds, seeds, backend,
// results and data folders), overridable from the environment with
// ParamsFromEnv (SOFTSHAPE_QUICK, SOFTSHAPE_DATASETS, ... — how CI runs every
// notebook in quick mode; EnvVars lists every variable of the notebooks, and
// ShowEnvHelp shows them under each parameter cell). Table builds the grid of one paper table
// (sweep.NewGrid), trains the cells that have no record in the results store
// (or, with TrainMissing off, lists them as missing — never skipping them
// silently), and rebuilds the table beside the paper's numbers
// (tables.Build). Re-running after a finished sweep trains nothing and only
// re-renders from the stored records. TableResult gives the Markdown and the
// standard figures (sweep chart, rank bars, critical-difference diagram).
//
// TrainModel trains (or reloads from its checkpoint) one fold, a
// TrainedFold, for the quick-start and interpretability notebooks; Compat
// compares the reference_compat protocol with the default one; Slider is the
// one interactive panel, with a timeout so that headless runs never wait for
// a person.
//
// Outputs made in quick mode carry sweep.QuickLabel.
package reproduce
