package tables

import (
	"errors"
	"fmt"
	"io/fs"
	"math"

	"gonum.org/v1/gonum/stat"

	"github.com/softshape-go/softshape/experiments/sweep"
)

// cellIndex holds the expected cells of a table and their records.
type cellIndex struct {
	exp     *sweep.Expected
	keys    map[string]sweep.Key // runID → expected key
	records map[sweep.Key]*sweep.Record
	missing []MissingRun
	invalid []MissingRun
}

// runID identifies a run of a variant on a dataset.
func runID(dataset, variant string, seed int64, fold int) string {
	return fmt.Sprintf("%s\x00%s\x00%d\x00%d", dataset, variant, seed, fold)
}

// newCellIndex reads the record of every expected cell and lists those
// without an ok record: recorded invalid apart from the others.
func newCellIndex(store *sweep.Store, exp *sweep.Expected) *cellIndex {
	ix := &cellIndex{exp: exp, keys: map[string]sweep.Key{}, records: map[sweep.Key]*sweep.Record{}}
	for _, c := range exp.Cells {
		ix.keys[runID(c.Dataset, c.Variant, c.Seed, c.Fold)] = c.Key
		rec, err := store.Read(c.Key)
		if err == nil {
			ix.records[c.Key] = rec
			if rec.Status == sweep.StatusOK {
				continue
			}
		}
		st := store.CellStatus(c.Key)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			st.Detail = err.Error()
		}
		m := MissingRun{Key: c.Key, State: st.State, Detail: st.Detail}
		if st.State == sweep.StateInvalid {
			ix.invalid = append(ix.invalid, m)
		} else {
			ix.missing = append(ix.missing, m)
		}
	}
	return ix
}

// run returns the record of one run: expected is false when the sweeps do
// not include it; rec is nil when it has no record.
func (ix *cellIndex) run(dataset, variant string, seed int64, fold int) (rec *sweep.Record, expected bool) {
	k, ok := ix.keys[runID(dataset, variant, seed, fold)]
	if !ok {
		return nil, false
	}
	return ix.records[k], true
}

// value computes our result for a dataset and column.
func (ix *cellIndex) value(dataset string, c Column) Value {
	v := Value{Acc: math.NaN(), Params: math.NaN(), Inference: math.NaN()}
	switch c.Kind {
	case Ours:
		ix.oursValue(&v, dataset, c.Variant)
	}
	return v
}

// oursValue averages the ok runs of a variant.
func (ix *cellIndex) oursValue(v *Value, dataset, variant string) {
	var acc, params, inf []float64
	invalid, reason := 0, ""
	for _, seed := range ix.exp.Seeds {
		for _, fold := range ix.exp.Folds {
			rec, expected := ix.run(dataset, variant, seed, fold)
			if !expected {
				continue
			}
			v.Expected++
			switch {
			case rec == nil:
			case rec.Status == sweep.StatusOK:
				acc = append(acc, float64(rec.TestAccuracy))
				v.PerRun = append(v.PerRun, RunAcc{Seed: seed, Fold: fold, Acc: float64(rec.TestAccuracy)})
				if rec.SelectedWarmUp {
					v.WarmUp++
				}
				params = append(params, float64(rec.Params))
				if x := float64(rec.InferenceSeconds); !math.IsNaN(x) {
					inf = append(inf, x)
				}
			case rec.Status == sweep.StatusInvalid:
				invalid++
				reason = rec.Error
			}
		}
	}
	v.Runs = len(acc)
	v.Acc, v.Params, v.Inference = Mean(acc), Mean(params), Mean(inf)
	if v.Expected > 0 && invalid == v.Expected {
		v.Invalid = reason
	}
}

// SE is the standard error of Acc over the averaged runs (every fold and
// seed recorded): their sample standard deviation over √Runs; NaN with fewer
// than two runs.
func (v Value) SE() float64 {
	acc := make([]float64, len(v.PerRun))
	for i, r := range v.PerRun {
		acc[i] = r.Acc
	}
	return StandardError(acc)
}

// StandardError is the standard error of the mean of x: the sample standard
// deviation over √N; NaN for fewer than two values.
func StandardError(x []float64) float64 {
	if len(x) < 2 {
		return math.NaN()
	}
	return stat.StdDev(x, nil) / math.Sqrt(float64(len(x)))
}

// Mean is the mean of x, summed in order; NaN when x is empty.
func Mean(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}
