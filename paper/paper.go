package paper

import (
	"embed"
	"encoding/csv"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// tablesFS holds the paper's result tables (read-only).
//
//go:embed tables/*.csv
var tablesFS embed.FS

// ErrUnknownTable is returned (wrapped) for a table name that is not offered.
var ErrUnknownTable = errors.New("paper: unknown table")

// ErrUnknownMethod is returned (wrapped) for a method (column) name that a
// table does not have.
var ErrUnknownMethod = errors.New("paper: unknown method")

// Table is a per-dataset accuracy table: Datasets[i] is a row, Methods[j] a
// column and Acc[i][j] the test accuracy (a fraction in [0, 1]) of method j on
// dataset i, as published by Liu et al. (ICML 2025).
type Table struct {
	// Name is the key accepted by PerDataset, e.g. "main".
	Name string
	// Title says which table of the paper this is.
	Title string
	// Caption is the paper's caption of the per-dataset table.
	Caption string
	// Datasets are the UCR dataset names, one per row.
	Datasets []string
	// Methods are the column names (methods or hyperparameter settings).
	Methods []string
	// Acc[i][j] is the accuracy of Methods[j] on Datasets[i].
	Acc [][]float64
	// Reference is the column the paper compares the others against (the
	// column printed with "-" in the P-value row). Where the paper prints no
	// p-values it is the setting used in the main experiments (Default).
	Reference string
	// Default is the column that corresponds to the SoftShape configuration of
	// the main experiments. Its accuracies equal the main table's SoftShape
	// column on these datasets, except that every 18-dataset table prints
	// EOGVerticalSignal 0.9007 and WordSynonyms 0.9161 where Table 1 has
	// 0.8814 and 0.9175.
	Default string
	// Parameter names the hyperparameter swept by the columns ("sparse_ratio"
	// = 1−η, the fraction of shapes fused; "k"; "q"; "L"; "m"), or "" for
	// tables whose columns are methods.
	Parameter string
	// Values holds the machine value of each column's hyperparameter
	// (len(Values) == len(Methods)), NaN where a column has no single numeric
	// value (e.g. "q=m"); nil for tables whose columns are methods.
	Values []float64
}

// perDatasetSpec describes how to read one per-dataset table.
type perDatasetSpec struct {
	name, file, title, caption string
	reference, def, parameter  string
	// firstCol is the index of the first accuracy column in the CSV.
	firstCol int
	// label maps a CSV header to the paper's column label and its value.
	label func(header string) (string, float64, error)
}

// perDatasetSpecs returns the per-dataset tables in the paper's order.
func perDatasetSpecs() []perDatasetSpec {
	return []perDatasetSpec{
		{
			name:  "main",
			file:  "main_results_128.csv",
			title: "Table 1 (appendix Table B.1): test accuracy of SoftShape and 17 baselines on 128 UCR datasets",
			caption: "The detailed test classification accuracy comparisons on 128 UCR time series datasets. " +
				"Among these, Incep refers to the InceptionTime method, and MoTCN refers to the ModernTCN method.",
			reference: "SoftShape", def: "SoftShape", firstCol: 2,
		},
		{
			name:  "ablation",
			file:  "ablation_128.csv",
			title: "Table 2 (appendix version): ablation study on 128 UCR datasets",
			caption: "The detailed test classification accuracy of the ablation study on 128 UCR datasets. " +
				"Among these, w/o II refers to the w/o Intra & Inter method.",
			reference: "SoftShape", def: "SoftShape", firstCol: 2,
		},
		{
			name:      "lightts_shapeformer",
			file:      "lightts_shapeformer_18.csv",
			title:     "Appendix B.1: LightTS and Shapeformer against SoftShape on 18 UCR datasets",
			caption:   "The detailed test classification accuracy of LightTS, Shapeformer, and SoftShape on 18 UCR datasets.",
			reference: "SoftShape", def: "SoftShape", firstCol: 1,
		},
		{
			name:      "sparse_ratio",
			file:      "sparse_ratio_18.csv",
			title:     "Table 3 (appendix version): sparse ratio 1−η on 18 UCR datasets",
			caption:   "The detailed test classification accuracy of sparse ratios on 18 UCR datasets.",
			reference: "0%", def: "50%", parameter: "sparse_ratio", firstCol: 1,
			label: func(h string) (string, float64, error) {
				v, err := strconv.ParseFloat(h, 64)
				if err != nil {
					return "", 0, err
				}
				return strconv.Itoa(int(math.Round(100*v))) + "%", v, nil
			},
		},
		{
			name:      "experts_k",
			file:      "experts_k_18.csv",
			title:     "Table 4 (appendix version): number of activated experts k on 18 UCR datasets",
			caption:   "The detailed test accuracy of the number of activated experts on 18 UCR datasets.",
			reference: "k=1", def: "k=1", parameter: "k", firstCol: 1,
			label: prefixed("k="),
		},
		{
			name:      "stride_q",
			file:      "stride_q_18.csv",
			title:     "Table 5 (appendix version): sliding step size q on 18 UCR datasets",
			caption:   "The detailed test classification accuracy of sliding step size q on 18 UCR datasets.",
			reference: "q=4", def: "q=4", parameter: "q", firstCol: 1,
			label: prefixed("q="),
		},
		{
			name:      "depth_L",
			file:      "depth_L_18.csv",
			title:     "Table 6 (appendix version): model depth L on 18 UCR datasets",
			caption:   "The detailed test classification accuracy of model depth L on 18 UCR datasets.",
			reference: "L=2", def: "L=2", parameter: "L", firstCol: 1,
			label: prefixed("L="),
		},
		{
			name:      "shape_length_m",
			file:      "shape_length_m_18.csv",
			title:     "Table 7 (appendix version): shape length m on 18 UCR datasets",
			caption:   "The detailed test classification accuracy of shape length m on 18 UCR datasets.",
			reference: "Multi-Seq", def: "Val-Select", parameter: "m", firstCol: 1,
			label: func(h string) (string, float64, error) {
				if h == "Fixed-8" {
					return h, 8, nil
				}
				return h, math.NaN(), nil
			},
		},
	}
}

// prefixed labels a numeric header h as prefix+h; a non-numeric header
// (such as "m") gets the value NaN.
func prefixed(prefix string) func(string) (string, float64, error) {
	return func(h string) (string, float64, error) {
		v, err := strconv.ParseFloat(h, 64)
		if err != nil {
			v = math.NaN()
		}
		return prefix + h, v, nil
	}
}

// PerDatasetNames returns the names accepted by PerDataset, in the paper's
// order.
func PerDatasetNames() []string {
	specs := perDatasetSpecs()
	names := make([]string, len(specs))
	for i, s := range specs {
		names[i] = s.name
	}
	return names
}

// Names returns every table name offered by this package: the per-dataset
// tables followed by the summary-only tables. Every name is accepted by
// Summary; the first len(PerDatasetNames()) are also accepted by PerDataset.
func Names() []string {
	names := PerDatasetNames()
	for _, s := range summarySpecs() {
		found := false
		for _, n := range names {
			if n == s.name {
				found = true
				break
			}
		}
		if !found {
			names = append(names, s.name)
		}
	}
	return names
}

// PerDataset returns a fresh copy of the named per-dataset accuracy table;
// see the package documentation for the names.
func PerDataset(name string) (*Table, error) {
	for _, s := range perDatasetSpecs() {
		if s.name == name {
			t, err := loadPerDataset(s)
			if err != nil {
				return nil, fmt.Errorf("paper: table %q: %w", name, err)
			}
			return t, nil
		}
	}
	return nil, fmt.Errorf("%w %q (have %s)", ErrUnknownTable, name, strings.Join(PerDatasetNames(), ", "))
}

// readCSV reads an embedded CSV file.
func readCSV(file string) ([][]string, error) {
	f, err := tablesFS.Open("tables/" + file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return recs, nil
}

// loadPerDataset parses one per-dataset table.
func loadPerDataset(s perDatasetSpec) (*Table, error) {
	recs, err := readCSV(s.file)
	if err != nil {
		return nil, err
	}
	if len(recs) < 2 {
		return nil, fmt.Errorf("%s: no data rows", s.file)
	}
	header := recs[0]
	if len(header) <= s.firstCol {
		return nil, fmt.Errorf("%s: header has %d columns, want more than %d", s.file, len(header), s.firstCol)
	}
	t := &Table{
		Name:      s.name,
		Title:     s.title,
		Caption:   s.caption,
		Reference: s.reference,
		Default:   s.def,
		Parameter: s.parameter,
	}
	for _, h := range header[s.firstCol:] {
		if s.label == nil {
			t.Methods = append(t.Methods, h)
			continue
		}
		lab, v, err := s.label(h)
		if err != nil {
			return nil, fmt.Errorf("%s: column %q: %w", s.file, h, err)
		}
		t.Methods = append(t.Methods, lab)
		t.Values = append(t.Values, v)
	}
	for i, rec := range recs[1:] {
		if len(rec) != len(header) {
			return nil, fmt.Errorf("%s: row %d has %d fields, want %d", s.file, i+2, len(rec), len(header))
		}
		row := make([]float64, len(t.Methods))
		for j, f := range rec[s.firstCol:] {
			v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
			if err != nil {
				return nil, fmt.Errorf("%s: row %d column %q: %w", s.file, i+2, header[s.firstCol+j], err)
			}
			row[j] = v
		}
		t.Datasets = append(t.Datasets, rec[s.firstCol-1])
		t.Acc = append(t.Acc, row)
	}
	return t, nil
}

// Index returns the column index of method, or -1 if the table lacks it.
func (t *Table) Index(method string) int {
	for j, m := range t.Methods {
		if m == method {
			return j
		}
	}
	return -1
}

// Column returns a copy of the accuracies of method, one per dataset.
func (t *Table) Column(method string) ([]float64, error) {
	j := t.Index(method)
	if j < 0 {
		return nil, fmt.Errorf("%w %q in table %q (have %s)", ErrUnknownMethod, method, t.Name, strings.Join(t.Methods, ", "))
	}
	col := make([]float64, len(t.Acc))
	for i, row := range t.Acc {
		col[i] = row[j]
	}
	return col, nil
}

// Value returns the hyperparameter value of column method: ok is false when
// the table is not a sweep, when the method is unknown, or when the column
// has no single numeric value (NaN).
func (t *Table) Value(method string) (v float64, ok bool) {
	j := t.Index(method)
	if j < 0 || j >= len(t.Values) || math.IsNaN(t.Values[j]) {
		return math.NaN(), false
	}
	return t.Values[j], true
}

// Subset returns a deep copy of the table restricted to the given datasets,
// in the order given. Datasets the table lacks are skipped, as are repeats.
func (t *Table) Subset(datasets []string) *Table {
	pos := make(map[string]int, len(t.Datasets))
	for i, d := range t.Datasets {
		pos[d] = i
	}
	out := t.clone(false)
	seen := make(map[string]bool, len(datasets))
	for _, d := range datasets {
		i, ok := pos[d]
		if !ok || seen[d] {
			continue
		}
		seen[d] = true
		out.Datasets = append(out.Datasets, d)
		out.Acc = append(out.Acc, append([]float64(nil), t.Acc[i]...))
	}
	return out
}

// Clone returns a deep copy of the table.
func (t *Table) Clone() *Table { return t.clone(true) }

// clone copies the table, with its rows when rows is true.
func (t *Table) clone(rows bool) *Table {
	out := *t
	out.Methods = append([]string(nil), t.Methods...)
	if t.Values != nil {
		out.Values = append([]float64(nil), t.Values...)
	}
	out.Datasets, out.Acc = nil, nil
	if rows {
		out.Datasets = append([]string(nil), t.Datasets...)
		out.Acc = make([][]float64, len(t.Acc))
		for i, r := range t.Acc {
			out.Acc[i] = append([]float64(nil), r...)
		}
	}
	return &out
}
