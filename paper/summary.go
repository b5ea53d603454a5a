package paper

import (
	"fmt"
	"strconv"
	"strings"
)

// Metric names used as keys of SummaryTable.Rows.
const (
	// MetricAvgAcc is the mean accuracy over datasets.
	MetricAvgAcc = "Avg. Acc"
	// MetricAvgRank is the mean rank over datasets (ties get the minimum rank).
	MetricAvgRank = "Avg. Rank"
	// MetricWin is the number of datasets on which a method is best.
	MetricWin = "Win"
	// MetricPValue is the printed p-value against the reference.
	MetricPValue = "P-value"
	// MetricParams is the printed parameter count, e.g. "472.5 K".
	MetricParams = "# Parameters"
	// MetricInferencePrefix prefixes the per-dataset inference-time rows of
	// "params_inference_time", e.g. "Inference Time (s): HouseTwenty".
	MetricInferencePrefix = "Inference Time (s): "
)

// SummaryTable holds summary rows as printed in the paper (Liu et al., ICML
// 2025): Rows[metric][j] is the printed value of the metric for Methods[j],
// "" or "-" where the paper prints none.
type SummaryTable struct {
	// Name is the key accepted by Summary.
	Name string
	// Title says which table of the paper this is.
	Title string
	// Methods are the columns (methods or settings), in the paper's order.
	Methods []string
	// Metrics lists the keys of Rows in display order.
	Metrics []string
	// Rows maps a metric name (MetricAvgAcc, ...) to one printed value per
	// method.
	Rows map[string][]string
	// Groups holds the method family of each method for "main" (DL-CNN,
	// DL-Trans, DL-FM, Non-DL, Ours); nil otherwise.
	Groups []string
	// Reference is the method printed with "-" in the P-value row, or ""
	// when the table has no P-value row.
	Reference string
}

// orientation tells how a summary CSV is laid out.
type orientation int

const (
	// methodRows: one row per method, one column per metric.
	methodRows orientation = iota
	// metricRows: one row per metric, one column per method.
	metricRows
)

// summarySpec describes how to read one summary table.
type summarySpec struct {
	name, file, title string
	layout            orientation
}

// summarySpecs returns the summary tables; file "" means the table exists
// only as appendix footer rows (appendix_summary_rows.csv).
func summarySpecs() []summarySpec {
	return []summarySpec{
		{"main", "summary_main.csv", "Table 1: test accuracy on 128 UCR datasets", methodRows},
		{"ablation", "summary_ablation.csv", "Table 2: ablation study on 128 UCR datasets", methodRows},
		{"lightts_shapeformer", "", "Appendix B.1: LightTS, Shapeformer and SoftShape on 18 UCR datasets (table footer)", metricRows},
		{"sparse_ratio", "summary_sparse_ratio.csv", "Table 3: sparse ratio on 18 UCR datasets", methodRows},
		{"experts_k", "summary_experts_k.csv", "Table 4: number of activated experts k on 18 UCR datasets", metricRows},
		{"stride_q", "summary_stride_q.csv", "Table 5: sliding step size q on 18 UCR datasets", metricRows},
		{"depth_L", "summary_depth_L.csv", "Table 6: model depth L on 18 UCR datasets", metricRows},
		{"shape_length_m", "summary_shape_length_m.csv", "Table 7: shape length m on 18 UCR datasets", metricRows},
		{"num_experts", "summary_num_experts.csv", "Appendix: total number of experts Ĉ on 18 UCR datasets", metricRows},
		{"moe_expert_network", "summary_moe_expert_network.csv", "Appendix: networks used as MoE experts on 18 UCR datasets", metricRows},
		{"shared_expert_network", "summary_shared_expert_network.csv", "Appendix: networks used as the shared expert on 18 UCR datasets", metricRows},
		{"lambda", "summary_lambda.csv", "Appendix: loss weight λ on 18 UCR datasets", metricRows},
		{"params_inference_time", "params_inference_time.csv", "Appendix: parameter counts and inference times (seconds)", methodRows},
	}
}

// SummaryNames returns the names accepted by Summary.
func SummaryNames() []string {
	specs := summarySpecs()
	names := make([]string, len(specs))
	for i, s := range specs {
		names[i] = s.name
	}
	return names
}

// canonicalMethod maps printed method names onto the per-dataset names, in
// the paper's notation (Notation).
func canonicalMethod(m string) string {
	m = strings.TrimSpace(m)
	if m == "SoftShape (Ours)" {
		return "SoftShape"
	}
	return Notation(m)
}

// asciiSymbols are the ASCII spellings of the paper's symbols that the
// summary CSVs (and the ablations' variant names, which name the sweep
// store's records) use in column labels, and the symbols the paper prints.
var asciiSymbols = []struct{ ascii, symbol string }{
	{"hatC=", "Ĉ="},       // $\hat{C}$=$C/2$: the total number of experts
	{"lambda = ", "λ = "}, // $\lambda$ = 0.001: the MoE loss weight
}

// Notation returns a column label in the paper's notation: a label spelt in
// ASCII, as in the CSVs and the variant names ("hatC=C/2", "lambda = 0.01"),
// becomes the paper's ("Ĉ=C/2", "λ = 0.01"); any other label comes back
// unchanged. Summary's columns are in this notation, so tables and figures
// drawn from them show what the paper prints.
func Notation(label string) string {
	for _, a := range asciiSymbols {
		if rest, ok := strings.CutPrefix(label, a.ascii); ok {
			return a.symbol + rest
		}
	}
	return label
}

// canonicalMetric maps the printed or CSV metric names onto the Metric*
// constants.
func canonicalMetric(m string) string {
	switch strings.TrimSpace(m) {
	case "avg_acc", "Avg. Acc":
		return MetricAvgAcc
	case "avg_rank", "Avg. Rank":
		return MetricAvgRank
	case "win", "Win":
		return MetricWin
	case "p_value", "P-value":
		return MetricPValue
	}
	return strings.TrimSpace(m)
}

// Summary returns a fresh copy of the named summary table as printed; see the
// package documentation for the names and for the rows merged in from
// appendix table footers.
func Summary(name string) (*SummaryTable, error) {
	for _, s := range summarySpecs() {
		if s.name == name {
			t, err := loadSummary(s)
			if err != nil {
				return nil, fmt.Errorf("paper: summary %q: %w", name, err)
			}
			return t, nil
		}
	}
	return nil, fmt.Errorf("%w %q (have %s)", ErrUnknownTable, name, strings.Join(SummaryNames(), ", "))
}

// loadSummary reads one summary table and merges its appendix rows.
func loadSummary(s summarySpec) (*SummaryTable, error) {
	t := &SummaryTable{Name: s.name, Title: s.title, Rows: map[string][]string{}}
	if s.file != "" {
		recs, err := readCSV(s.file)
		if err != nil {
			return nil, err
		}
		switch {
		case s.name == "main":
			err = t.readMain(recs)
		case s.name == "params_inference_time":
			err = t.readParams(recs)
		case s.layout == methodRows:
			err = t.readMethodRows(recs)
		default:
			err = t.readMetricRows(recs)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.file, err)
		}
	}
	if err := t.mergeAppendix(); err != nil {
		return nil, err
	}
	if ps, ok := t.Rows[MetricPValue]; ok {
		for j, p := range ps {
			if p == "-" {
				t.Reference = t.Methods[j]
			}
		}
	}
	return t, nil
}

// addMetric appends an empty metric row if it is new and returns it.
func (t *SummaryTable) addMetric(metric string) []string {
	if _, ok := t.Rows[metric]; !ok {
		t.Metrics = append(t.Metrics, metric)
		t.Rows[metric] = make([]string, len(t.Methods))
	}
	return t.Rows[metric]
}

// readMain reads summary_main.csv (group,method,avg_acc,avg_rank,win,p_value).
func (t *SummaryTable) readMain(recs [][]string) error {
	if len(recs) < 2 || len(recs[0]) < 3 {
		return fmt.Errorf("want a header and rows")
	}
	for _, r := range recs[1:] {
		if len(r) != len(recs[0]) {
			return fmt.Errorf("row %v has %d fields, want %d", r, len(r), len(recs[0]))
		}
		t.Groups = append(t.Groups, r[0])
	}
	return t.readMethodRows(dropFirstColumn(recs))
}

// dropFirstColumn returns recs without their first field.
func dropFirstColumn(recs [][]string) [][]string {
	out := make([][]string, len(recs))
	for i, r := range recs {
		out[i] = r[1:]
	}
	return out
}

// readMethodRows reads a table with one row per method; the header's first
// field labels the method column.
func (t *SummaryTable) readMethodRows(recs [][]string) error {
	if len(recs) < 2 || len(recs[0]) < 2 {
		return fmt.Errorf("want a header and rows")
	}
	for _, r := range recs[1:] {
		if len(r) != len(recs[0]) {
			return fmt.Errorf("row %v has %d fields, want %d", r, len(r), len(recs[0]))
		}
		t.Methods = append(t.Methods, canonicalMethod(r[0]))
	}
	for k, h := range recs[0][1:] {
		row := t.addMetric(canonicalMetric(h))
		for j, r := range recs[1:] {
			row[j] = strings.TrimSpace(r[k+1])
		}
	}
	return nil
}

// readMetricRows reads a table with one row per metric; the header holds the
// method names after a label field.
func (t *SummaryTable) readMetricRows(recs [][]string) error {
	if len(recs) < 2 || len(recs[0]) < 2 {
		return fmt.Errorf("want a header and rows")
	}
	for _, m := range recs[0][1:] {
		t.Methods = append(t.Methods, canonicalMethod(m))
	}
	for _, r := range recs[1:] {
		if len(r) != len(recs[0]) {
			return fmt.Errorf("row %v has %d fields, want %d", r, len(r), len(recs[0]))
		}
		row := t.addMetric(canonicalMetric(r[0]))
		for j, v := range r[1:] {
			row[j] = strings.TrimSpace(v)
		}
	}
	return nil
}

// readParams reads params_inference_time.csv, whose second header line names
// the datasets of the inference-time columns.
func (t *SummaryTable) readParams(recs [][]string) error {
	if len(recs) < 3 || len(recs[0]) < 3 || len(recs[1]) != 4 {
		return fmt.Errorf("want two header lines (the second with 4 fields) and rows")
	}
	header := []string{strings.TrimSpace(recs[0][0]), MetricParams,
		MetricInferencePrefix + strings.TrimSpace(recs[1][2]),
		MetricInferencePrefix + strings.TrimSpace(recs[1][3])}
	return t.readMethodRows(append([][]string{header}, recs[2:]...))
}

// mergeAppendix adds the appendix footer rows for this table that the
// main-text summary lacks.
func (t *SummaryTable) mergeAppendix() error {
	recs, err := readCSV("appendix_summary_rows.csv")
	if err != nil {
		return err
	}
	for _, r := range recs[1:] {
		if len(r) != 4 {
			return fmt.Errorf("appendix_summary_rows.csv: row %v has %d fields, want 4", r, len(r))
		}
		if r[0] != t.Name {
			continue
		}
		metric, method, value := canonicalMetric(r[1]), canonicalMethod(r[2]), strings.TrimSpace(r[3])
		j := t.Index(method)
		if j < 0 {
			t.Methods = append(t.Methods, method)
			for _, m := range t.Metrics {
				t.Rows[m] = append(t.Rows[m], "")
			}
			j = len(t.Methods) - 1
		}
		row := t.addMetric(metric)
		if row[j] == "" {
			row[j] = value
		}
	}
	return nil
}

// Index returns the column of method, or -1 if the table lacks it.
func (t *SummaryTable) Index(method string) int {
	for j, m := range t.Methods {
		if m == method {
			return j
		}
	}
	return -1
}

// Value returns the printed value of metric for method; ok is false when
// the table lacks either, or prints "" or "-" there.
func (t *SummaryTable) Value(metric, method string) (string, bool) {
	j := t.Index(method)
	row, found := t.Rows[metric]
	if j < 0 || !found || j >= len(row) {
		return "", false
	}
	v := row[j]
	if v == "" || v == "-" {
		return v, false
	}
	return v, true
}

// Float returns the printed value of metric for method parsed as a number;
// ok is false when it is absent or not a plain number (e.g. "422.5 K").
func (t *SummaryTable) Float(metric, method string) (float64, bool) {
	s, ok := t.Value(metric, method)
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, false
	}
	return v, true
}

// AvgAcc returns the printed average accuracy of method.
func (t *SummaryTable) AvgAcc(method string) (float64, bool) {
	return t.Float(MetricAvgAcc, method)
}

// AvgRank returns the printed average rank of method.
func (t *SummaryTable) AvgRank(method string) (float64, bool) {
	return t.Float(MetricAvgRank, method)
}

// Win returns the printed number of wins of method.
func (t *SummaryTable) Win(method string) (int, bool) {
	s, ok := t.Value(MetricWin, method)
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, false
	}
	return n, true
}

// PValue returns the printed P-value of method (false for the reference,
// printed "-"). The printed values are half the two-sided paired t-test
// p-value, although the paper labels them Wilcoxon signed-rank.
func (t *SummaryTable) PValue(method string) (float64, bool) {
	return t.Float(MetricPValue, method)
}
