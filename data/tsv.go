package data

import (
	"errors"
	"fmt"
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
// file with no rows) is an error
// naming the file, the line and, for values, the column (1-based, the label
// being column 1).
func ReadTSV(path string) (series [][]float64, labels []string, err error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("read UCR file: %w", err)
	}
	return parseTSV(path, string(raw))
}

// parseTSV parses the content of a UCR .tsv file; path is used in errors.
func parseTSV(path, content string) (series [][]float64, labels []string, err error) {
	width, widthLine := 0, 0
	lineNo := 0
	for len(content) > 0 {
		lineNo++
		var line string
		if i := strings.IndexByte(content, '\n'); i >= 0 {
			line, content = content[:i], content[i+1:]
		} else {
			line, content = content, ""
		}
		line = strings.TrimSuffix(line, "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		n := strings.Count(line, "\t") + 1
		if width == 0 {
			if n < 2 {
				return nil, nil, fmt.Errorf("%s:%d: found 1 column, expected a label and at least one value separated by tabs", path, lineNo)
			}
			width, widthLine = n, lineNo
		} else if n != width {
			return nil, nil, fmt.Errorf("%s:%d: ragged row: %d columns, expected %d as on line %d (UCR pads shorter series with NaN)", path, lineNo, n, width, widthLine)
		}
		row := make([]float64, width-1)
		col := 0
		for field := range strings.SplitSeq(line, "\t") {
			col++
			if col == 1 {
				label := strings.TrimSpace(field)
				if label == "" {
					return nil, nil, fmt.Errorf("%s:%d: empty class label in column 1", path, lineNo)
				}
				labels = append(labels, label)
				continue
			}
			v, err := parseValue(field)
			if err != nil {
				return nil, nil, fmt.Errorf("%s:%d: column %d: %w", path, lineNo, col, err)
			}
			row[col-2] = v
		}
		if !anyFinite(row) {
			return nil, nil, fmt.Errorf("%s:%d: %w", path, lineNo, errNoFinite)
		}
		series = append(series, row)
	}
	if len(series) == 0 {
		return nil, nil, fmt.Errorf("%s: empty file: no data rows", path)
	}
	return series, labels, nil
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

// parseValue parses one series value: a finite number, or NaN ("NaN",
// "nan", "?" or "NA") for a missing value.
func parseValue(text string) (float64, error) {
	s := strings.TrimSpace(text)
	switch s {
	case "":
		return 0, fmt.Errorf("empty value, expected a number or NaN")
	case "?", "NA":
		return math.NaN(), nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("cannot parse %q as a number (expected a number or NaN)", text)
	}
	if math.IsInf(v, 0) {
		return 0, fmt.Errorf("value %q is not finite", text)
	}
	return v, nil
}
