// Package reproduce is the thin API behind the GoNB notebooks under
// notebooks/: each notebook cell is one or two calls of this package, so the
// logic is compiled, tested and shared with the command line.
//
// A notebook starts from Params: its one parameter cell,
//
//	var P = reproduce.NotebookParams("experts_k", func(p *reproduce.Params) {})
//
// the same in every notebook but for the name, takes the notebook's defaults
// (Defaults), applies what the function changes, and then the environment
// (ParamsFromEnv: SOFTSHAPE_QUICK, SOFTSHAPE_DATASETS, ... — how CI runs
// every notebook in quick mode; EnvVars lists every variable of the
// notebooks, and ShowParams shows the parameters and the variables under the
// cell). Table runs one paper table through experiments/pipeline, as the
// command line does: it builds the grid, trains the cells that have no record
// in the results store (or, with TrainMissing off or in full mode without
// Train, lists them as missing — never skipping them silently), and rebuilds
// the table beside the paper's numbers. Re-running after a finished sweep
// trains nothing and only re-renders from the stored records. TableResult
// gives the Markdown and the standard figures (sweep chart, rank bars,
// critical-difference diagram).
//
// TrainModel trains (or reloads from its checkpoint) one fold, a
// TrainedFold, for the quick-start and interpretability notebooks; Compat
// compares the reference_compat protocol with the default one, through the
// same pipeline and store; Slider is the
// one interactive panel, with a timeout so that headless runs never wait for
// a person.
//
// Outputs made in quick mode carry sweep.QuickLabel.
package reproduce
