package reproduce

import (
	"fmt"
	"slices"
	"strings"

	"github.com/softshape-go/softshape/ablations"
	"github.com/softshape-go/softshape/internal/backends"
)

// Names of the notebooks that are not about one paper table, for Defaults.
const (
	NotebookQuickstart       = "quickstart"       // 00: one model trained live
	NotebookAppendix         = "appendix"         // 08: the appendix tables
	NotebookInterpretability = "interpretability" // 09: attention maps and t-SNE
	NotebookReproducibility  = "reproducibility"  // 10: presets, fold leak, p-values
)

// singleFold are the notebooks that train single models of one fold
// (TrainModel) rather than a table's grid.
var singleFold = []string{NotebookQuickstart, NotebookInterpretability}

// Defaults returns the parameters a notebook starts from, before its
// parameter cell and the environment change them (NotebookParams): quick
// mode, seed 42, the fastest backend installed (backends.Fastest),
// training what the results store lacks (in full mode only with Train),
// folders as Resolve fills them. Datasets are the table's (nil) and the folds
// all five, except in the notebooks that train single models
// (NotebookQuickstart, NotebookInterpretability): fold 1. name is a paper
// table (ablations.TableNames) or one of the Notebook* names.
func Defaults(name string) (Params, error) {
	known := append(ablations.TableNames(), NotebookQuickstart, NotebookAppendix, NotebookInterpretability, NotebookReproducibility)
	if !slices.Contains(known, name) {
		return Params{}, fmt.Errorf("notebook defaults %q: unknown, want a table or notebook name: %s", name, strings.Join(known, ", "))
	}
	p := DefaultParams()
	p.BackendName = backends.Fastest
	if slices.Contains(singleFold, name) {
		p.Folds = []int{1}
	}
	return p, nil
}

// NotebookParams is a notebook's parameter cell: Defaults(name), changed by
// edit (nil: no change), then overridden by the environment
// (ParamsFromEnv). It panics on an unknown name or a malformed environment
// variable, naming it.
func NotebookParams(name string, edit func(p *Params)) Params {
	p, err := Defaults(name)
	if err != nil {
		panic(err)
	}
	if edit != nil {
		edit(&p)
	}
	return MustParamsFromEnv(p)
}

// ShowParams shows under a notebook's parameter cell the parameters in force
// and the backend the runs take (Markdown: Params.String and BackendLine),
// then the environment variables that override them (ShowEnvHelp).
func ShowParams(p Params) {
	Markdownf("**Parameters** — %s\n\n%s", p, BackendLine(p))
	ShowEnvHelp()
}
