package baseline

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/stat"
)

// The methods: rocket's MiniRocket classifier and its MultiRocket-Hydra
// classifier (aeon's MultiRocketHydraClassifier).
const (
	MiniRocket       = "minirocket"
	MultiRocketHydra = "multirocket-hydra"
)

// Methods returns the known methods.
func Methods() []string { return []string{MiniRocket, MultiRocketHydra} }

// The protocols a record can be made under (see the package doc).
const (
	ProtocolFolds    = "folds"
	ProtocolStandard = "standard"
)

// FoldResult is one fold of a record: a fit and its test.
type FoldResult struct {
	// Fold is the 0-based fold (0 under ProtocolStandard).
	Fold int `json:"fold"`
	// TestAccuracy is the share of the fold's test rows classified right.
	TestAccuracy float64 `json:"test_accuracy"`
	// Alpha is the ridge regularisation leave-one-out chose.
	Alpha float64 `json:"alpha"`
	// NumFit and NumTest are the rows fitted on and tested on.
	NumFit  int `json:"num_fit"`
	NumTest int `json:"num_test"`
	// WallSeconds is the fold's wall time: input preparation, fit
	// (transform and ridge) and test.
	WallSeconds float64 `json:"wall_seconds"`
	// CPUSeconds is the process's CPU time (all threads) over the same
	// span: less disturbed than wall time by other load on the machine.
	CPUSeconds float64 `json:"cpu_seconds"`
}

// Record is one method's run on one dataset with one seed.
type Record struct {
	Method   string `json:"method"`
	Protocol string `json:"protocol"`
	Dataset  string `json:"dataset"`
	Seed     int64  `json:"seed"`
	// Fit says which rows the method was fitted on: "train+val" under
	// ProtocolFolds, "train" under ProtocolStandard.
	Fit string `json:"fit"`
	// Features is the number of features the ridge classifier sees (for
	// MultiRocketHydra, Hydra's and MultiRocket's together).
	Features int          `json:"features"`
	Folds    []FoldResult `json:"folds"`
	// WallSeconds and CPUSeconds are the sums of the folds'.
	WallSeconds float64 `json:"wall_seconds"`
	CPUSeconds  float64 `json:"cpu_seconds"`
	// Processor and Workers say where it ran (hostinfo.Processor) and on
	// how many goroutines; Commit is the code's git commit ("+dirty" when
	// its Go sources had uncommitted changes).
	Processor string `json:"processor"`
	Workers   int    `json:"workers"`
	Commit    string `json:"commit"`
}

// MeanAccuracy returns the mean test accuracy over the record's folds.
func (r Record) MeanAccuracy() float64 {
	s := 0.0
	for _, f := range r.Folds {
		s += f.TestAccuracy
	}
	return s / float64(len(r.Folds))
}

// Path returns where the record of (method, protocol, dataset, seed) is
// stored under dir.
func Path(dir, method, protocol, dataset string, seed int64) string {
	return filepath.Join(dir, method, protocol, dataset, "seed-"+strconv.FormatInt(seed, 10)+".json")
}

// Has reports whether the record of (method, protocol, dataset, seed) is
// stored under dir.
func Has(dir, method, protocol, dataset string, seed int64) bool {
	_, err := os.Stat(Path(dir, method, protocol, dataset, seed))
	return err == nil
}

// Save writes r under dir, refusing to replace a stored record: it writes
// a temporary file beside the record and links it into place, so a crash
// leaves either no record or a whole one.
func Save(dir string, r *Record) error {
	path := Path(dir, r.Method, r.Protocol, r.Dataset, r.Seed)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("baseline record: %w", err)
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("baseline record %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".seed-*.tmp")
	if err != nil {
		return fmt.Errorf("baseline record: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("baseline record %s: %w", tmp.Name(), err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("baseline record %s: %w", tmp.Name(), err)
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("baseline record %s is already stored: not overwritten", path)
		}
		return fmt.Errorf("baseline record: %w", err)
	}
	return nil
}

// Load returns the records of method on SoftShape's folds stored under dir
// (ProtocolFolds), sorted by dataset then seed: per dataset and seed, each
// fold's test accuracy and wall seconds. No records is not an error: an
// empty list.
func Load(dir, method string) ([]Record, error) {
	return LoadProtocol(dir, method, ProtocolFolds)
}

// LoadProtocol is Load for any protocol. A record that does not parse, or
// whose fields disagree with its path, is an error naming the file.
func LoadProtocol(dir, method, protocol string) ([]Record, error) {
	paths, err := filepath.Glob(filepath.Join(dir, method, protocol, "*", "seed-*.json"))
	if err != nil {
		return nil, fmt.Errorf("baseline records: %w", err)
	}
	var out []Record
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("baseline records: %w", err)
		}
		var r Record
		if err := json.Unmarshal(b, &r); err != nil {
			return nil, fmt.Errorf("baseline record %s: %w", p, err)
		}
		if want := Path(dir, r.Method, r.Protocol, r.Dataset, r.Seed); want != p {
			return nil, fmt.Errorf("baseline record %s holds %s/%s/%s seed %d, which belongs at %s", p, r.Method, r.Protocol, r.Dataset, r.Seed, want)
		}
		if len(r.Folds) == 0 {
			return nil, fmt.Errorf("baseline record %s has no folds", p)
		}
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b Record) int {
		if c := strings.Compare(a.Dataset, b.Dataset); c != 0 {
			return c
		}
		return int(a.Seed - b.Seed)
	})
	return out, nil
}

// DatasetResult is one dataset's records over its seeds.
type DatasetResult struct {
	Dataset string
	// Seeds are the seeds, and Accuracy, WallSeconds and CPUSeconds each
	// seed's mean test accuracy over its folds and its summed times, in
	// the order of Seeds.
	Seeds                             []int64
	Accuracy, WallSeconds, CPUSeconds []float64
}

// MeanAccuracy returns the mean over seeds of the per-seed accuracies.
func (d DatasetResult) MeanAccuracy() float64 { return stat.Mean(d.Accuracy, nil) }

// PerDataset groups records (as Load returns them: sorted by dataset, then
// seed) by dataset: the numbers a table's column takes.
func PerDataset(recs []Record) []DatasetResult {
	var out []DatasetResult
	for _, r := range recs {
		if len(out) == 0 || out[len(out)-1].Dataset != r.Dataset {
			out = append(out, DatasetResult{Dataset: r.Dataset})
		}
		d := &out[len(out)-1]
		d.Seeds = append(d.Seeds, r.Seed)
		d.Accuracy = append(d.Accuracy, r.MeanAccuracy())
		d.WallSeconds = append(d.WallSeconds, r.WallSeconds)
		d.CPUSeconds = append(d.CPUSeconds, r.CPUSeconds)
	}
	return out
}
