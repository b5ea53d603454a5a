package sweep

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/softshape-go/softshape/ablations"
)

// AeonRow is one dataset of an aeon results file: the accuracy of every
// resample, in resample order.
type AeonRow struct {
	// Dataset is the dataset name.
	Dataset string
	// Acc holds one accuracy (a fraction) per resample.
	Acc []float64
}

// AeonMethodName returns the estimator name of a variant in exported files:
// "SoftShape" for the default configuration, else "SoftShape-<slug>", with a
// "QUICK-" prefix for quick-mode results.
func AeonMethodName(variant string, quick bool) string {
	name := "SoftShape"
	if variant != ablations.DefaultName {
		name += "-" + Slug(variant)
	}
	if quick {
		name = "QUICK-" + name
	}
	return name
}

// WriteAeon writes <dir>/classification/accuracy/<method>_accuracy.csv in the
// layout that aeon's get_estimator_results / get_estimator_results_as_array
// read (tsml-eval's evaluation output, as on timeseriesclassification.com):
// the header "Resamples:,0,1,...,n-1", then one row per dataset with its name
// and the accuracy (a fraction) of each resample. Every row must have n
// values: aeon rejects missing resamples.
func WriteAeon(dir, method string, resamples int, rows []AeonRow) (string, error) {
	out := filepath.Join(dir, "classification", "accuracy")
	if err := os.MkdirAll(out, 0o755); err != nil {
		return "", fmt.Errorf("export: %w", err)
	}
	path := filepath.Join(out, method+"_accuracy.csv")
	var b strings.Builder
	w := csv.NewWriter(&b)
	header := []string{"Resamples:"}
	for i := range resamples {
		header = append(header, strconv.Itoa(i))
	}
	_ = w.Write(header)
	for _, r := range rows {
		if len(r.Acc) != resamples {
			return "", fmt.Errorf("export %s: dataset %s has %d resamples, want %d", path, r.Dataset, len(r.Acc), resamples)
		}
		rec := []string{r.Dataset}
		for _, a := range r.Acc {
			rec = append(rec, strconv.FormatFloat(a, 'g', -1, 64))
		}
		_ = w.Write(rec)
	}
	w.Flush()
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return "", fmt.Errorf("export: %w", err)
	}
	return path, nil
}

// AeonExport says what ExportAeon wrote and left out.
type AeonExport struct {
	// Files are the CSV files written (and README.txt).
	Files []string
	// Resamples maps each resample column to its run: "seed s fold k".
	Resamples []string
	// Incomplete lists "variant/dataset: reason" for rows left out because
	// a resample has no ok record (aeon cannot read missing resamples).
	Incomplete []string
}

// ExportAeon writes the accuracies of a recorded sweep (Expected of table and
// quick, grid gridID or all) to dir in the aeon/tsml results layout
// (WriteAeon): one file per variant, one column per resample, where resample
// r is seed index r / len(folds), fold index r mod len(folds) of the sweep.
// Datasets without an ok record for every resample are left out and listed.
func (s *Store) ExportAeon(table string, quick bool, gridID, dir string) (*AeonExport, error) {
	e, err := s.Expected(table, quick, gridID)
	if err != nil {
		return nil, err
	}
	exp := &AeonExport{}
	for _, seed := range e.Seeds {
		for _, fold := range e.Folds {
			exp.Resamples = append(exp.Resamples, fmt.Sprintf("seed %d fold %d", seed, fold))
		}
	}
	hashes := map[string]string{}
	for _, c := range e.Cells {
		hashes[c.cellID()] = c.Hash
	}
	for _, v := range e.Variants {
		if v.Blocked != "" {
			exp.Incomplete = append(exp.Incomplete, fmt.Sprintf("%s: %s", v.Name, v.Blocked))
			continue
		}
		var rows []AeonRow
		for _, ds := range e.Datasets {
			row := AeonRow{Dataset: ds}
			reason := ""
			for _, seed := range e.Seeds {
				for _, fold := range e.Folds {
					k := Key{Table: table, Dataset: ds, Variant: v.Name, Fold: fold, Seed: seed, Quick: quick}
					h, expected := hashes[k.cellID()]
					if !expected {
						reason = fmt.Sprintf("seed %d fold %d not in the sweep", seed, fold)
						continue
					}
					k.Hash = h
					rec, err := s.Read(k)
					switch {
					case errors.Is(err, fs.ErrNotExist):
						reason = fmt.Sprintf("seed %d fold %d missing", seed, fold)
					case err != nil:
						reason = err.Error()
					case rec.Status != StatusOK:
						reason = fmt.Sprintf("seed %d fold %d %s: %s", seed, fold, rec.Status, rec.Error)
					default:
						row.Acc = append(row.Acc, float64(rec.TestAccuracy))
					}
				}
			}
			if reason != "" {
				exp.Incomplete = append(exp.Incomplete, fmt.Sprintf("%s/%s: %s", v.Name, ds, reason))
				continue
			}
			rows = append(rows, row)
		}
		path, err := WriteAeon(dir, AeonMethodName(v.Name, quick), len(exp.Resamples), rows)
		if err != nil {
			return nil, err
		}
		exp.Files = append(exp.Files, path)
	}
	readme := filepath.Join(dir, "README.txt")
	var b strings.Builder
	if quick {
		fmt.Fprintf(&b, "%s\n\n", QuickLabel)
	}
	fmt.Fprintf(&b, "SoftShape-go results of table %q (grids %s), in the aeon/tsml-eval results layout:\n", table, strings.Join(e.Grids, ", "))
	fmt.Fprintf(&b, "classification/accuracy/<Method>_accuracy.csv, header \"Resamples:,0,1,...\", one row per dataset.\n")
	fmt.Fprintf(&b, "Read with aeon.benchmarking.results_loaders.get_estimator_results(path=<this folder>, num_resamples=None)\n")
	fmt.Fprintf(&b, "(estimator_alias only knows aeon's own names: read other names with pandas, or pass est_alias=False to _load_to_dict).\n\n")
	fmt.Fprintf(&b, "Resample columns (the paper's 5-fold protocol, 60/20/20):\n")
	for i, r := range exp.Resamples {
		fmt.Fprintf(&b, "  %d: %s\n", i, r)
	}
	if len(exp.Incomplete) > 0 {
		fmt.Fprintf(&b, "\nLeft out (no ok record for every resample):\n")
		for _, r := range exp.Incomplete {
			fmt.Fprintf(&b, "  %s\n", r)
		}
	}
	if err := os.WriteFile(readme, []byte(b.String()), 0o644); err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	exp.Files = append(exp.Files, readme)
	return exp, nil
}
