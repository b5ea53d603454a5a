package ablations

import (
	"errors"
	"fmt"
	"math"

	"github.com/softshape-go/softshape/data"
	"github.com/softshape-go/softshape/softshape"
)

// ErrNoCandidate is wrapped by ValSelect when no candidate has a finite
// validation loss.
var ErrNoCandidate = errors.New("val-select: no candidate with a finite validation loss")

// ValSelect returns the index of the candidate with the lowest validation
// loss (FoldResult.ValLoss) among the results of one fold; its TestAcc is the
// Val-Select accuracy of that fold. Candidates with a NaN or infinite
// validation loss are ignored; ties go to the earlier candidate (the shorter
// m in ValSelectCandidates order).
func ValSelect(candidates []softshape.FoldResult) (int, error) {
	best := -1
	for i, c := range candidates {
		if math.IsNaN(c.ValLoss) || math.IsInf(c.ValLoss, 0) {
			continue
		}
		if best < 0 || c.ValLoss < candidates[best].ValLoss {
			best = i
		}
	}
	if best < 0 {
		return -1, fmt.Errorf("%w (%d candidates)", ErrNoCandidate, len(candidates))
	}
	return best, nil
}

// Selection is the outcome of RunValSelect on one fold.
type Selection struct {
	// Chosen is the selected candidate's variant name, and Result its fold result.
	Chosen string
	Result softshape.FoldResult
	// Tried lists the candidates trained and Results their fold results;
	// Skipped holds those rejected for this dataset (e.g. m > T) with the reason.
	Tried   []string
	Results []softshape.FoldResult
	Skipped map[string]error
}

// RunValSelect trains every candidate shape length (nil means
// ValSelectCandidates) on one fold of ds with softshape.Train (opts.Folds is
// replaced by the fold, 0-based), skipping candidates the dataset rejects
// (m > T), and returns the candidate with the lowest validation loss.
func RunValSelect(ds *data.Dataset, base softshape.Config, fold int, opts softshape.RunOptions, candidates []Variant) (*Selection, error) {
	if candidates == nil {
		candidates = ValSelectCandidates()
	}
	sel := &Selection{Skipped: map[string]error{}}
	opts.Folds = []int{fold}
	for _, v := range candidates {
		cfg, err := v.Config(base)
		if err != nil {
			return nil, err
		}
		if _, err := cfg.Resolve(ds.Length, ds.NumClasses(), opts.RefShapeLen); err != nil {
			sel.Skipped[v.Name] = err
			continue
		}
		res, err := softshape.Train(ds, cfg, opts)
		if err != nil {
			return nil, fmt.Errorf("val-select candidate %s: %w", v.Name, err)
		}
		sel.Tried = append(sel.Tried, v.Name)
		sel.Results = append(sel.Results, res.Folds[0])
	}
	best, err := ValSelect(sel.Results)
	if err != nil {
		return nil, fmt.Errorf("dataset %s fold %d: %w", ds.Name, fold, err)
	}
	sel.Chosen, sel.Result = sel.Tried[best], sel.Results[best]
	return sel, nil
}
