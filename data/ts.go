package data

import (
	"fmt"
	"strconv"
	"strings"
)

// ReadTS reads a univariate classification file in the sktime/aeon .ts
// format of timeseriesclassification.com: '#' comment lines, '@' header
// lines up to "@data", then one series per line as comma-separated values,
// a ':' and the class label. "?" and "NaN" are missing values. Series of
// different lengths are padded with NaN to the longest, as in the UCR .tsv
// files.
//
// Header lines checked: "@univariate false" or "@dimensions N" (N > 1),
// "@timeStamps true", "@classLabel false" and "@targetLabel true" are
// rejected as unsupported; "@classLabel true L1 L2 ..." restricts the
// labels; "@equalLength true" with "@seriesLength N" requires every series
// to have N values. Values are checked as ReadTSV checks them, and a
// byte-order mark is ignored only at the very start of the file. Errors name
// the file and line.
func ReadTS(path string) (series [][]float64, labels []string, err error) {
	return readFile(path, readTS)
}

// readTS reads and parses a .ts file (see ReadTS).
func readTS(path string) (*fileRows, error) {
	return readRows(path, ".ts file", parseTS)
}

// tsHeader holds the header fields of a .ts file that parseTS checks.
type tsHeader struct {
	classLabels  map[string]bool // nil when not declared
	equalLength  bool
	seriesLength int // 0 when not declared
}

// parseTS parses the content of a .ts file; path is used in errors.
func parseTS(path, content string) (*fileRows, error) {
	rows := &fileRows{path: path}
	var h tsHeader
	inData := false
	for lineNo, line := range numberedLines(content) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if !inData {
			if !strings.HasPrefix(line, "@") {
				return nil, fmt.Errorf("%s:%d: data line before @data (expected a header line starting with '@')", path, lineNo)
			}
			done, err := h.parse(line)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %w", path, lineNo, err)
			}
			inData = done
			continue
		}
		row, label, err := h.parseRow(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, lineNo, err)
		}
		if !anyFinite(row) {
			return nil, fmt.Errorf("%s:%d: %w", path, lineNo, errNoFinite)
		}
		rows.add(row, label, lineNo)
	}
	if !inData {
		return nil, fmt.Errorf("%s: no @data line (not a .ts file, or an empty one)", path)
	}
	if len(rows.series) == 0 {
		return nil, fmt.Errorf("%s: empty file: no data rows after @data", path)
	}
	length := 0
	for _, row := range rows.series {
		length = max(length, len(row))
	}
	for i, row := range rows.series {
		if len(row) < length {
			rows.series[i] = padNaN(row, length)
		}
	}
	return rows, nil
}

// parse reads one header line; it reports whether the line was "@data".
func (h *tsHeader) parse(line string) (data bool, err error) {
	fields := strings.Fields(line)
	key := strings.ToLower(fields[0])
	arg := ""
	if len(fields) > 1 {
		arg = strings.ToLower(fields[1])
	}
	switch key {
	case "@data":
		return true, nil
	case "@univariate":
		if arg == "false" {
			return false, fmt.Errorf("multivariate .ts files are not supported (@univariate false)")
		}
	case "@dimensions", "@dimension":
		if n, err := strconv.Atoi(arg); err == nil && n > 1 {
			return false, fmt.Errorf("multivariate .ts files are not supported (@dimensions %d)", n)
		}
	case "@timestamps":
		if arg == "true" {
			return false, fmt.Errorf("time-stamped .ts files are not supported (@timeStamps true)")
		}
	case "@targetlabel":
		if arg == "true" {
			return false, fmt.Errorf("regression .ts files are not supported (@targetLabel true)")
		}
	case "@classlabel":
		switch arg {
		case "true":
			h.classLabels = map[string]bool{}
			for _, l := range fields[2:] {
				h.classLabels[l] = true
			}
		case "false":
			return false, fmt.Errorf("the file has no class labels (@classLabel false); classification needs them")
		default:
			return false, fmt.Errorf("@classLabel must be followed by true or false and the labels, got %q", line)
		}
	case "@equallength":
		h.equalLength = arg == "true"
	case "@serieslength":
		n, err := strconv.Atoi(arg)
		if err != nil || n < 1 {
			return false, fmt.Errorf("@seriesLength must be a positive integer, got %q", line)
		}
		h.seriesLength = n
	}
	return false, nil
}

// parseRow reads one data line: "v1,v2,...,vn:label".
func (h *tsHeader) parseRow(line string) ([]float64, string, error) {
	parts := strings.Split(line, ":")
	if len(parts) != 2 {
		if len(parts) > 2 {
			return nil, "", fmt.Errorf("found %d ':'-separated dimensions, expected one series and its label (multivariate .ts files are not supported)", len(parts)-1)
		}
		return nil, "", fmt.Errorf("no ':' before a class label (expected comma-separated values, ':' and the label)")
	}
	label := strings.TrimSpace(parts[1])
	if label == "" {
		return nil, "", fmt.Errorf("empty class label after ':'")
	}
	if err := checkLabel(label); err != nil {
		return nil, "", err
	}
	if h.classLabels != nil && !h.classLabels[label] {
		return nil, "", fmt.Errorf("class label %q is not among those declared by @classLabel", label)
	}
	values := strings.TrimSpace(parts[0])
	if values == "" {
		return nil, "", fmt.Errorf("no values before ':'")
	}
	row := make([]float64, 0, strings.Count(values, ",")+1)
	col := 0
	for field := range strings.SplitSeq(values, ",") {
		col++
		v, err := parseValue(field)
		if err != nil {
			return nil, "", fmt.Errorf("value %d: %w", col, err)
		}
		row = append(row, v)
	}
	if h.equalLength && h.seriesLength > 0 && len(row) != h.seriesLength {
		return nil, "", fmt.Errorf("series has %d values, expected %d (@equalLength true, @seriesLength %d)", len(row), h.seriesLength, h.seriesLength)
	}
	return row, label, nil
}
