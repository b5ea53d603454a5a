package data

import (
	"fmt"
	"math"
	"math/big"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Dataset is a whole labelled dataset (TRAIN and TEST merged, TRAIN rows
// first), its series possibly NaN-padded to a common length.
type Dataset struct {
	// Name is the dataset name, e.g. "GunPoint" or "CBF-generated".
	Name string
	// Series holds n rows, each exactly Length long; NaN marks a missing
	// value or the padding after the end of a shorter series.
	Series [][]float64
	// Labels holds the class id of each row, 0..NumClasses()-1. Ids are
	// assigned in sorted order of the distinct original labels: numerically
	// when every label is a finite number, lexically otherwise.
	Labels []int
	// ClassNames holds the original label text of each class id.
	ClassNames []string
	// Length is the number of values in every row (the longest series).
	Length int
	// NumTrain is the number of leading rows that came from the TRAIN file;
	// the remaining rows came from the TEST file. It is 0 for generated data.
	NumTrain int
	// Source says where the data came from: the file paths, or a
	// description such as "generated: CBF ...".
	Source string
	// Warnings holds what NewDataset or Load accepted but the user should
	// know, one sentence each, naming the file and lines (or rows): series
	// that are constant, labels of different spellings read as one class.
	// LoadOrDownload writes them to its Log.
	Warnings []string
}

// NewDataset builds a Dataset from rows and their label text, remapping the
// labels to class ids (see Dataset.Labels). Rows shorter than the longest
// one are padded with NaN (the UCR convention for variable-length series);
// the rows are used in place, not copied. It fails on no rows, a count
// mismatch, an empty row or label, an infinite value or one beyond the
// float32 range, a row with no finite value (all NaN: nothing to impute
// from), fewer than two classes, or a dataset whose every series is constant
// (see constantRows). Some constant series, or labels of different spellings
// merged into one class, give Warnings that name the rows by 0-based index.
func NewDataset(name, source string, series [][]float64, labels []string) (*Dataset, error) {
	return newDataset(name, source, series, labels, func(i int) (string, int) { return "", i })
}

// newDataset is NewDataset; place locates the rows in warnings.
func newDataset(name, source string, series [][]float64, labels []string, place rowPlacer) (*Dataset, error) {
	if len(series) == 0 {
		return nil, fmt.Errorf("dataset %s: no rows", name)
	}
	if len(series) != len(labels) {
		return nil, fmt.Errorf("dataset %s: %d rows but %d labels", name, len(series), len(labels))
	}
	length := 0
	for i, row := range series {
		if len(row) == 0 {
			return nil, fmt.Errorf("dataset %s: row %d has no values", name, i)
		}
		if labels[i] == "" {
			return nil, fmt.Errorf("dataset %s: row %d has an empty label", name, i)
		}
		for j, v := range row {
			if err := checkValue(v); err != nil {
				return nil, fmt.Errorf("dataset %s: row %d, time step %d: value %v %w", name, i, j, v, err)
			}
		}
		if !anyFinite(row) {
			return nil, fmt.Errorf("dataset %s: row %d: %w", name, i, errNoFinite)
		}
		length = max(length, len(row))
	}
	for i, row := range series {
		if len(row) < length {
			series[i] = padNaN(row, length)
		}
	}
	ids, names := remapLabels(labels)
	if len(names) < 2 {
		return nil, fmt.Errorf("dataset %s: all %d rows have the label %q; classification needs at least 2 classes", name, len(series), names[0])
	}
	var warnings []string
	if flat := constantRows(series); len(flat) == len(series) {
		what := "every series is constant (all its values are equal)"
		if length == 1 {
			what = "every series has a single value"
		}
		return nil, fmt.Errorf("dataset %s: %s: z-normalised on its own, as for training, each becomes all zeros and nothing is left to learn", name, what)
	} else if len(flat) > 0 {
		warnings = append(warnings, fmt.Sprintf("dataset %s: %s (%s): z-normalised on its own, as for training, each becomes all zeros and carries no information",
			name, countOf(len(flat), len(series), "series is constant", "series are constant"), place.list(flat)))
	}
	if w := mergedSpellings(labels, ids, place); w != "" {
		warnings = append(warnings, fmt.Sprintf("dataset %s: labels compared as numbers, so differently spelt labels are one class: %s", name, w))
	}
	return &Dataset{
		Name:       name,
		Series:     series,
		Labels:     ids,
		ClassNames: names,
		Length:     length,
		Source:     source,
		Warnings:   warnings,
	}, nil
}

// constantRows returns the rows that hold no missing value and whose values
// are all equal (every row, when the series have a single value): Prepare's
// per-series z-normalisation turns each into zeros. A row with missing
// values is not counted, since imputation fills them from other rows.
func constantRows(series [][]float64) []int {
	var flat []int
	for i, row := range series {
		constant := true
		for _, v := range row {
			if v != row[0] { // also true for NaN
				constant = false
				break
			}
		}
		if constant {
			flat = append(flat, i)
		}
	}
	return flat
}

// countOf says "k of n <one>" or "k of n <many>" by k.
func countOf(k, n int, one, many string) string {
	if k == 1 {
		return fmt.Sprintf("1 of %d %s", n, one)
	}
	return fmt.Sprintf("%d of %d %s", k, n, many)
}

// mergedSpellings describes the classes (ids, from remapLabels) whose rows
// spell their label in more than one way, e.g. "1" and "1.0": each spelling
// with the place of its first row, `"1" (a:1) = "1.0" (b:1)`, classes
// separated by "; ". It returns "" when every class has one spelling.
func mergedSpellings(labels []string, ids []int, place rowPlacer) string {
	first := map[string]int{} // spelling -> its first row
	var spellings [][]string  // per class id, in order of first appearance
	for i, l := range labels {
		if _, ok := first[l]; ok {
			continue
		}
		first[l] = i
		for len(spellings) <= ids[i] {
			spellings = append(spellings, nil)
		}
		spellings[ids[i]] = append(spellings[ids[i]], l)
	}
	var classes []string
	for _, sp := range spellings {
		if len(sp) < 2 {
			continue
		}
		parts := make([]string, len(sp))
		for k, l := range sp {
			parts[k] = fmt.Sprintf("%q (%s)", l, place.at(first[l]))
		}
		classes = append(classes, strings.Join(parts, " = "))
	}
	return strings.Join(classes, "; ")
}

// padNaN returns row extended to length with NaN.
func padNaN(row []float64, length int) []float64 {
	out := make([]float64, length)
	copy(out, row)
	for j := len(row); j < length; j++ {
		out[j] = math.NaN()
	}
	return out
}

// remapLabels maps label text to class ids 0..C-1 in sorted order of the
// distinct labels: numeric order when all labels parse as finite numbers
// (so "1" and "1.0" are the same class, named by its first spelling),
// lexical order otherwise. Numbers are compared exactly, as the decimals
// they spell (math/big.Rat), not as float64: 9007199254740993 and
// 9007199254740992 are two classes. It returns the ids and the class names.
func remapLabels(labels []string) (ids []int, names []string) {
	values := make([]*big.Rat, len(labels))
	numeric := true
	for i, l := range labels {
		v, ok := labelValue(l)
		if !ok {
			numeric = false
			break
		}
		values[i] = v
	}
	ids = make([]int, len(labels))
	if numeric {
		first := map[string]int{} // exact value → its first row
		var keys []*big.Rat
		for i, v := range values {
			if _, ok := first[v.RatString()]; !ok {
				first[v.RatString()] = i
				keys = append(keys, v)
			}
		}
		slices.SortFunc(keys, (*big.Rat).Cmp)
		index := make(map[string]int, len(keys))
		for c, v := range keys {
			index[v.RatString()] = c
			names = append(names, labels[first[v.RatString()]])
		}
		for i, v := range values {
			ids[i] = index[v.RatString()]
		}
		return ids, names
	}
	seen := map[string]bool{}
	for _, l := range labels {
		if !seen[l] {
			seen[l] = true
			names = append(names, l)
		}
	}
	sort.Strings(names)
	index := make(map[string]int, len(names))
	for c, n := range names {
		index[n] = c
	}
	for i, l := range labels {
		ids[i] = index[l]
	}
	return ids, names
}

// labelValue returns the exact value of a label that is a finite number in
// Go's syntax (strconv.ParseFloat: "3", "-1.5", "2e3"), and false for any
// other label.
func labelValue(l string) (*big.Rat, bool) {
	f, err := strconv.ParseFloat(l, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, false
	}
	v, ok := new(big.Rat).SetString(strings.ReplaceAll(l, "_", ""))
	return v, ok
}

// rowPlacer locates row i of a dataset for messages: the file and 1-based
// line it was read from, or "" and i for rows given to NewDataset.
type rowPlacer func(i int) (file string, line int)

// at names row i: "file:line", or "row i".
func (p rowPlacer) at(i int) string {
	file, line := p(i)
	if file == "" {
		return fmt.Sprintf("row %d", line)
	}
	return fmt.Sprintf("%s:%d", file, line)
}

// maxPlaces is the number of rows a warning names before "…".
const maxPlaces = 5

// list names the first maxPlaces of rows, grouped by file, e.g.
// "a.tsv lines 3, 7; b.tsv line 2" or "rows 0, 4", ending in ", …" when
// there are more.
func (p rowPlacer) list(rows []int) string {
	var groups []string
	var nums []string
	group := ""
	flush := func() {
		if len(nums) == 0 {
			return
		}
		what := "row"
		if group != "" {
			what = group + " line"
		}
		if len(nums) > 1 {
			what += "s"
		}
		groups = append(groups, what+" "+strings.Join(nums, ", "))
	}
	for k, r := range rows[:min(len(rows), maxPlaces)] {
		file, line := p(r)
		if k == 0 || file != group {
			flush()
			group, nums = file, nil
		}
		nums = append(nums, strconv.Itoa(line))
	}
	flush()
	out := strings.Join(groups, "; ")
	if len(rows) > maxPlaces {
		out += ", …"
	}
	return out
}

// NumClasses returns the number of classes.
func (d *Dataset) NumClasses() int { return len(d.ClassNames) }

// NumTest returns the number of rows that came from the TEST file.
func (d *Dataset) NumTest() int {
	if d.NumTrain == 0 {
		return 0
	}
	return len(d.Series) - d.NumTrain
}

// HasMissing reports whether any value is NaN (missing or padding).
func (d *Dataset) HasMissing() bool {
	for _, row := range d.Series {
		for _, v := range row {
			if math.IsNaN(v) {
				return true
			}
		}
	}
	return false
}

// ClassCounts returns the number of rows of each class id.
func (d *Dataset) ClassCounts() []int {
	counts := make([]int, d.NumClasses())
	for _, y := range d.Labels {
		counts[y]++
	}
	return counts
}

// ObservedLength returns the length of row i without its trailing NaN
// padding: the index of its last non-NaN value plus one (0 for an all-NaN
// row).
func (d *Dataset) ObservedLength(i int) int {
	row := d.Series[i]
	n := len(row)
	for n > 0 && math.IsNaN(row[n-1]) {
		n--
	}
	return n
}

// LengthRange returns the shortest and longest observed series length (see
// ObservedLength). Both equal Length for a fixed-length dataset without
// trailing missing values.
func (d *Dataset) LengthRange() (minLen, maxLen int) {
	minLen = math.MaxInt
	for i := range d.Series {
		n := d.ObservedLength(i)
		minLen = min(minLen, n)
		maxLen = max(maxLen, n)
	}
	if len(d.Series) == 0 {
		minLen = 0
	}
	return minLen, maxLen
}

// MissingCount counts the NaN values: missing values inside the observed
// part of a series, and trailing padding after its last observed value.
func (d *Dataset) MissingCount() (missing, padding int) {
	for i, row := range d.Series {
		n := d.ObservedLength(i)
		padding += len(row) - n
		for _, v := range row[:n] {
			if math.IsNaN(v) {
				missing++
			}
		}
	}
	return missing, padding
}

// validate checks the invariants that Folds and Prepare rely on, for a
// Dataset built by hand rather than by NewDataset or Load.
func (d *Dataset) validate() error {
	if len(d.Series) != len(d.Labels) {
		return fmt.Errorf("dataset %s: %d rows but %d labels", d.Name, len(d.Series), len(d.Labels))
	}
	for i, row := range d.Series {
		if len(row) != d.Length {
			return fmt.Errorf("dataset %s: row %d has %d values, Length is %d", d.Name, i, len(row), d.Length)
		}
		if y := d.Labels[i]; y < 0 || y >= d.NumClasses() {
			return fmt.Errorf("dataset %s: row %d has class id %d, want 0..%d", d.Name, i, y, d.NumClasses()-1)
		}
	}
	return nil
}
