package data

import (
	_ "embed"
	"encoding/csv"
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// ucr128CSV is the paper's table of the 128 UCR datasets
// (id,dataset,train,test,total,classes,length; length "Vary" = variable).
//
//go:embed ucr128_datasets.csv
var ucr128CSV string

// shapeLengthCSV is the authors' per-dataset shape length table
// (dataset,use_ratio,ratio,m).
//
//go:embed reference_shape_length_m.csv
var shapeLengthCSV string

// Info describes one of the paper's 128 UCR datasets.
type Info struct {
	// ID is the 1-based row number in the paper's table.
	ID int
	// Name is the archive name, e.g. "GunPoint".
	Name string
	// Train and Test are the archive's TRAIN and TEST sizes as the paper
	// gives them; Classes is the number of classes.
	Train, Test, Classes int
	// Length is the series length, 0 for a variable-length dataset.
	Length int
	// VariableLength reports a variable-length dataset (length "Vary").
	VariableLength bool
	// ShapeUseRatio, ShapeRatio and ShapeM are the authors' shape length
	// table entry: m = int(ShapeRatio·T) when ShapeUseRatio, else ShapeM.
	ShapeUseRatio bool
	ShapeRatio    float64
	ShapeM        int
	// RefShapeLength is the shape length m the authors' code uses for the
	// paper's main table: int(ShapeRatio·Length) for a fixed-length dataset
	// with ShapeUseRatio, ShapeM otherwise (including variable-length
	// datasets, whose length the table does not know; see ShapeLengthFor).
	RefShapeLength int
}

// Total returns Train + Test.
func (i Info) Total() int { return i.Train + i.Test }

// ShapeLengthFor returns the shape length m for series of the given
// (padded) length: int(ShapeRatio·length) when ShapeUseRatio, else ShapeM.
// It is at least 1.
func (i Info) ShapeLengthFor(length int) int {
	if !i.ShapeUseRatio {
		return i.ShapeM
	}
	return max(1, int(i.ShapeRatio*float64(length)))
}

// FileSizes returns the number of TRAIN and TEST rows in the archive's
// files. They equal Train and Test except for MelbournePedestrian, whose
// files hold 1200 and 2450 rows while the archive's summary table, and so
// the paper, give 1194 and 2439.
func (i Info) FileSizes() (train, test int) {
	if i.Name == "MelbournePedestrian" && i.Train == 1194 && i.Test == 2439 {
		return 1200, 2450
	}
	return i.Train, i.Test
}

// Verify checks a loaded dataset against the registry: TRAIN and TEST row
// counts (either the paper's sizes or the documented FileSizes), the number
// of classes and, for a fixed-length dataset, the series length. A dataset
// without a TRAIN/TEST division (NumTrain 0) is checked on its total.
func (i Info) Verify(d *Dataset) error {
	fileTrain, fileTest := i.FileSizes()
	if d.NumTrain == 0 {
		if n := len(d.Series); n != i.Total() && n != fileTrain+fileTest {
			return fmt.Errorf("%s: %d rows, the registry says %d", i.Name, n, i.Total())
		}
	} else {
		train, test := d.NumTrain, d.NumTest()
		paper := train == i.Train && test == i.Test
		files := train == fileTrain && test == fileTest
		if !paper && !files {
			want := fmt.Sprintf("%d/%d", i.Train, i.Test)
			if fileTrain != i.Train || fileTest != i.Test {
				want += fmt.Sprintf(" (or %d/%d as in the archive's files)", fileTrain, fileTest)
			}
			return fmt.Errorf("%s: %d TRAIN / %d TEST rows, the registry says %s", i.Name, train, test, want)
		}
	}
	if d.NumClasses() != i.Classes {
		return fmt.Errorf("%s: %d classes, the registry says %d", i.Name, d.NumClasses(), i.Classes)
	}
	if !i.VariableLength && d.Length != i.Length {
		return fmt.Errorf("%s: series length %d, the registry says %d", i.Name, d.Length, i.Length)
	}
	return nil
}

// registry parses the embedded tables once.
var registry = sync.OnceValue(func() []Info {
	infos, err := parseRegistry(ucr128CSV, shapeLengthCSV)
	if err != nil {
		panic(fmt.Sprintf("data: embedded registry is malformed: %v", err))
	}
	return infos
})

// Registry returns the paper's 128 UCR datasets in the order of its table,
// each with its shape length. The slice is a fresh copy.
func Registry() []Info {
	return append([]Info(nil), registry()...)
}

// Lookup returns the registry entry of a dataset. The name must match
// exactly; an unknown name gives an error that names it and suggests close
// registry names.
func Lookup(name string) (Info, error) {
	for _, info := range registry() {
		if info.Name == name {
			return info, nil
		}
	}
	return Info{}, fmt.Errorf("unknown dataset %q: not one of the paper's 128 UCR datasets%s", name, suggestion(name, registryNames()))
}

// registryNames returns the names of the registry datasets.
func registryNames() []string {
	infos := registry()
	names := make([]string, len(infos))
	for i, info := range infos {
		names[i] = info.Name
	}
	return names
}

// parseRegistry joins the dataset table and the shape length table.
func parseRegistry(datasets, shapes string) ([]Info, error) {
	rows, err := readCSV(datasets, []string{"id", "dataset", "train", "test", "total", "classes", "length"})
	if err != nil {
		return nil, fmt.Errorf("ucr128_datasets.csv: %w", err)
	}
	shapeRows, err := readCSV(shapes, []string{"dataset", "use_ratio", "ratio", "m"})
	if err != nil {
		return nil, fmt.Errorf("reference_shape_length_m.csv: %w", err)
	}
	shapeByName := make(map[string][]string, len(shapeRows))
	for _, r := range shapeRows {
		shapeByName[r[0]] = r
	}
	infos := make([]Info, 0, len(rows))
	for n, r := range rows {
		line := n + 2
		ints := make([]int, 5)
		for k, col := range []int{0, 2, 3, 4, 5} {
			if ints[k], err = strconv.Atoi(r[col]); err != nil {
				return nil, fmt.Errorf("ucr128_datasets.csv:%d: column %d: %w", line, col+1, err)
			}
		}
		info := Info{ID: ints[0], Name: r[1], Train: ints[1], Test: ints[2], Classes: ints[4]}
		if ints[1]+ints[2] != ints[3] {
			return nil, fmt.Errorf("ucr128_datasets.csv:%d: train %d + test %d != total %d", line, ints[1], ints[2], ints[3])
		}
		if strings.EqualFold(r[6], "Vary") {
			info.VariableLength = true
		} else if info.Length, err = strconv.Atoi(r[6]); err != nil {
			return nil, fmt.Errorf("ucr128_datasets.csv:%d: length: %w", line, err)
		}
		s, ok := shapeByName[info.Name]
		if !ok {
			return nil, fmt.Errorf("reference_shape_length_m.csv: no row for %s", info.Name)
		}
		info.ShapeUseRatio = s[1] == "1"
		if info.ShapeRatio, err = strconv.ParseFloat(s[2], 64); err != nil {
			return nil, fmt.Errorf("reference_shape_length_m.csv: %s: ratio: %w", info.Name, err)
		}
		if info.ShapeM, err = strconv.Atoi(s[3]); err != nil {
			return nil, fmt.Errorf("reference_shape_length_m.csv: %s: m: %w", info.Name, err)
		}
		info.RefShapeLength = info.ShapeM
		if info.ShapeUseRatio && !info.VariableLength {
			info.RefShapeLength = info.ShapeLengthFor(info.Length)
		}
		infos = append(infos, info)
	}
	if len(shapeByName) != len(infos) {
		return nil, fmt.Errorf("reference_shape_length_m.csv has %d rows, ucr128_datasets.csv %d", len(shapeByName), len(infos))
	}
	return infos, nil
}

// readCSV parses a CSV table, checks its header and returns the data rows.
func readCSV(text string, header []string) ([][]string, error) {
	r := csv.NewReader(strings.NewReader(text))
	r.FieldsPerRecord = len(header)
	rows, err := r.ReadAll()
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 || strings.Join(rows[0], ",") != strings.Join(header, ",") {
		return nil, fmt.Errorf("header is not %s", strings.Join(header, ","))
	}
	return rows[1:], nil
}
