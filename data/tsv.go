package data

import (
	"errors"
	"fmt"
	"iter"
	"math"
	"os"
	"strconv"
	"strings"
)

// ReadTSV reads a file in the UCR 2018 format: one series per line, the
// class label in the first tab-separated column and the values after it,
// shorter series padded with NaN so that every line has the same number of
// columns. Blank lines are skipped and a trailing CR is ignored; every other
// deviation (a differing column count, a value that is not a number or is
// infinite, an empty column or label, a series with no finite value, a
// file with no rows, a value beyond the float32 range, a byte-order mark
// other than one at the very start of the file, which is ignored) is an
// error naming the file, the line and, for values, the column (1-based, the
// label being column 1).
func ReadTSV(path string) (series [][]float64, labels []string, err error) {
	return readFile(path, readTSV)
}

// readTSV reads and parses a UCR .tsv file (see ReadTSV).
func readTSV(path string) (*fileRows, error) {
	return readRows(path, "UCR file", parseTSV)
}

// readFile reads one file with read and returns its series and labels: the
// body of ReadTS and ReadTSV.
func readFile(path string, read func(string) (*fileRows, error)) (series [][]float64, labels []string, err error) {
	rows, err := read(path)
	if err != nil {
		return nil, nil, err
	}
	return rows.series, rows.labels, nil
}

// readRows reads the file at path and parses its content with parse; what
// names the kind of file in the error when it cannot be read.
func readRows(path, what string, parse func(path, content string) (*fileRows, error)) (*fileRows, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", what, err)
	}
	return parse(path, string(raw))
}

// numberedLines yields the lines of content with their 1-based numbers,
// without the '\n' that ends them, after dropping a byte-order mark at the
// very start (see bom).
func numberedLines(content string) iter.Seq2[int, string] {
	return func(yield func(int, string) bool) {
		content := strings.TrimPrefix(content, bom)
		for lineNo := 1; len(content) > 0; lineNo++ {
			var line string
			if i := strings.IndexByte(content, '\n'); i >= 0 {
				line, content = content[:i], content[i+1:]
			} else {
				line, content = content, ""
			}
			if !yield(lineNo, line) {
				return
			}
		}
	}
}

// fileRows is what a reader found in one file: its rows, their labels and
// the 1-based line of each row in the file, for messages.
type fileRows struct {
	path   string
	series [][]float64
	labels []string
	lines  []int
}

// add appends one row read from line lineNo.
func (r *fileRows) add(row []float64, label string, lineNo int) {
	r.series = append(r.series, row)
	r.labels = append(r.labels, label)
	r.lines = append(r.lines, lineNo)
}

// parseTSV parses the content of a UCR .tsv file; path is used in errors.
func parseTSV(path, content string) (*fileRows, error) {
	rows := &fileRows{path: path}
	width, widthLine := 0, 0
	for lineNo, line := range numberedLines(content) {
		line = strings.TrimSuffix(line, "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		n := strings.Count(line, "\t") + 1
		if width == 0 {
			if n < 2 {
				return nil, fmt.Errorf("%s:%d: found 1 column, expected a label and at least one value separated by tabs", path, lineNo)
			}
			width, widthLine = n, lineNo
		} else if n != width {
			return nil, fmt.Errorf("%s:%d: ragged row: %d columns, expected %d as on line %d (UCR pads shorter series with NaN)", path, lineNo, n, width, widthLine)
		}
		row := make([]float64, width-1)
		label := ""
		col := 0
		for field := range strings.SplitSeq(line, "\t") {
			col++
			if col == 1 {
				label = strings.TrimSpace(field)
				if label == "" {
					return nil, fmt.Errorf("%s:%d: empty class label in column 1", path, lineNo)
				}
				if err := checkLabel(label); err != nil {
					return nil, fmt.Errorf("%s:%d: column 1: %w", path, lineNo, err)
				}
				continue
			}
			v, err := parseValue(field)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: column %d: %w", path, lineNo, col, err)
			}
			row[col-2] = v
		}
		if !anyFinite(row) {
			return nil, fmt.Errorf("%s:%d: %w", path, lineNo, errNoFinite)
		}
		rows.add(row, label, lineNo)
	}
	if len(rows.series) == 0 {
		return nil, fmt.Errorf("%s: empty file: no data rows", path)
	}
	return rows, nil
}

// bom is the UTF-8 byte-order mark (U+FEFF) that some editors write at the
// start of a text file. The readers drop it there; anywhere else it is an
// error (errBOM), since it would silently become part of a label or value.
const bom = "\uFEFF"

// errBOM explains a byte-order mark after the start of a file.
var errBOM = errors.New("holds a byte-order mark (U+FEFF), which is ignored only as the very first character of a file: remove it")

// checkLabel rejects a class label that holds a byte-order mark: it would
// make a class of its own ("\ufeff1" beside "1").
func checkLabel(label string) error {
	if strings.Contains(label, bom) {
		return fmt.Errorf("class label %q %w", label, errBOM)
	}
	return nil
}

// maxAbsValue bounds the magnitude of a series value: the float32 range the
// model computes in. A larger finite value would overflow the conversion
// to float32 or, beyond about 1e154, the float64 z-normalisation (its
// squares are infinite), and training would end in a NaN loss.
const maxAbsValue = math.MaxFloat32

// checkValue rejects a value the model cannot take: an infinite one, or one
// beyond maxAbsValue.
func checkValue(v float64) error {
	if math.IsInf(v, 0) {
		return errors.New("is not finite")
	}
	if math.Abs(v) > maxAbsValue {
		return fmt.Errorf("is beyond ±%.1e, the float32 range the model computes in (normalisation would overflow): rescale the data", maxAbsValue)
	}
	return nil
}

// errNoFinite rejects a series whose values are all missing: imputation
// (Prepare) would replace it by the mean train series, a row of no
// information that still carries a label.
var errNoFinite = errors.New("the series has no finite value (all NaN or missing): missing values cannot be imputed from nothing; remove the row or fill it in")

// anyFinite reports whether row holds at least one value that is not NaN.
func anyFinite(row []float64) bool {
	for _, v := range row {
		if !math.IsNaN(v) {
			return true
		}
	}
	return false
}

// parseValue parses one series value: a finite number within
// ±maxAbsValue, or NaN ("NaN",
// "nan", "?" or "NA") for a missing value.
func parseValue(text string) (float64, error) {
	s := strings.TrimSpace(text)
	switch s {
	case "":
		return 0, fmt.Errorf("empty value, expected a number or NaN")
	case "?", "NA":
		return math.NaN(), nil
	}
	if strings.Contains(s, bom) {
		return 0, fmt.Errorf("value %q %w", text, errBOM)
	}
	v, err := strconv.ParseFloat(s, 64)
	if errors.Is(err, strconv.ErrRange) && math.IsInf(v, 0) {
		// A number beyond even float64 ("1e400"): too large, not unreadable.
		v, err = math.Copysign(math.MaxFloat64, v), nil
	}
	if err != nil {
		return 0, fmt.Errorf("cannot parse %q as a number (expected a number or NaN)", text)
	}
	if err := checkValue(v); err != nil {
		return 0, fmt.Errorf("value %q %w", text, err)
	}
	return v, nil
}
