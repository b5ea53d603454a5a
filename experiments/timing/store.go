package timing

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"time"

	"github.com/softshape-go/softshape/internal/buildinfo"
	"github.com/softshape-go/softshape/softshape"
)

// File names of a measurement saved under a folder (Save, SavePaired): what
// "softshape timing -out DIR" writes and the reproduction commits.
const (
	ResultFile = "timing.json"
	PairedFile = "paired.json"
)

// fileSchema is the version of the saved files' layout.
const fileSchema = 1

// BuildRevision is the revision the running binary was built from
// (buildinfo.Revision: its commit, with "+dirty" when its tracked files had
// uncommitted changes), or "unknown" for a build without VCS information (go
// run, -buildvcs=false).
func BuildRevision() string {
	if rev := buildinfo.Revision(); rev != "" {
		return rev
	}
	return "unknown"
}

// resultFile is the saved form of a Result: every timed step is kept, so a
// reader recomputes the medians, the spread and the fits.
type resultFile struct {
	Schema   int         `json:"schema"`
	Source   string      `json:"source"`
	Backend  string      `json:"backend"`
	CPU      string      `json:"cpu"`
	Measured time.Time   `json:"measured"`
	Build    string      `json:"build"`
	Batch    int         `json:"batch"`
	Steps    int         `json:"steps"`
	Config   string      `json:"config"`
	ShapeLen int         `json:"shape_length"`
	Stride   int         `json:"stride"`
	Lengths  []int       `json:"lengths"`
	Points   []pointFile `json:"points"`
}

// pointFile is the saved form of a Point; SparseRatio is absent for the
// dense phase.
type pointFile struct {
	Length        int       `json:"length"`
	Phase         string    `json:"phase"`
	SparseRatio   *float64  `json:"sparse_ratio,omitempty"`
	NumShapes     int       `json:"num_shapes"`
	Kept          int       `json:"kept_tokens"`
	Params        int       `json:"params"`
	CompileS      float64   `json:"first_step_s"`
	StepsS        []float64 `json:"steps_wall_s"`
	CPUS          []float64 `json:"steps_cpu_s"`
	StepsPerEpoch int       `json:"steps_per_epoch"`
}

// Save writes r as JSON to path (ResultFile under a folder by convention),
// every timed step included.
func (r *Result) Save(path string) error {
	f := resultFile{Schema: fileSchema, Source: r.Source, Backend: r.Backend, CPU: r.CPU, Measured: r.Measured, Build: r.Build,
		Batch: r.Batch, Steps: r.Steps, Config: r.Config.String(), ShapeLen: r.ShapeLen, Stride: r.Stride, Lengths: r.Lengths}
	for _, p := range r.Points {
		pf := pointFile{Length: p.Length, Phase: p.Phase.String(), NumShapes: p.NumShapes, Kept: p.Kept, Params: p.Params,
			CompileS: p.Compile.Seconds(), StepsS: seconds(p.Steps), CPUS: seconds(p.CPUs), StepsPerEpoch: p.StepsPerEpoch}
		if p.Phase == softshape.Sparse {
			pf.SparseRatio = &p.Ratio
		}
		f.Points = append(f.Points, pf)
	}
	return writeJSON(path, f)
}

// Load reads a Result written by Save: the medians, spreads, epochs and fits
// are recomputed from the steps it holds.
func Load(path string) (*Result, error) {
	var f resultFile
	if err := readJSON(path, &f); err != nil {
		return nil, err
	}
	cfg, err := softshape.DefaultConfig().WithSettings(f.Config)
	if err != nil {
		return nil, fmt.Errorf("%s: config: %w", path, err)
	}
	r := &Result{Source: f.Source, Backend: f.Backend, CPU: f.CPU, Measured: f.Measured, Build: f.Build, Batch: f.Batch, Steps: f.Steps,
		Config: cfg, ShapeLen: f.ShapeLen, Stride: f.Stride, Lengths: f.Lengths}
	for i, pf := range f.Points {
		p := Point{Length: pf.Length, NumShapes: pf.NumShapes, Kept: pf.Kept, Params: pf.Params, Ratio: math.NaN(),
			Compile: duration(pf.CompileS), Steps: durations(pf.StepsS), CPUs: durations(pf.CPUS), StepsPerEpoch: pf.StepsPerEpoch}
		switch pf.Phase {
		case softshape.Dense.String():
			p.Phase = softshape.Dense
		case softshape.Sparse.String():
			p.Phase = softshape.Sparse
			if pf.SparseRatio == nil {
				return nil, fmt.Errorf("%s: point %d (T=%d): sparse phase without a sparse_ratio", path, i+1, pf.Length)
			}
			p.Ratio = *pf.SparseRatio
		default:
			return nil, fmt.Errorf("%s: point %d (T=%d): phase %q, want %q or %q", path, i+1, pf.Length, pf.Phase, softshape.Dense, softshape.Sparse)
		}
		if len(p.Steps) == 0 || (len(p.CPUs) != 0 && len(p.CPUs) != len(p.Steps)) {
			return nil, fmt.Errorf("%s: point %d (T=%d): %d wall and %d CPU step times, want the same positive number", path, i+1, pf.Length, len(p.Steps), len(p.CPUs))
		}
		if !slices.Contains(r.Lengths, p.Length) {
			return nil, fmt.Errorf("%s: point %d: length %d is not among the lengths %v", path, i+1, p.Length, r.Lengths)
		}
		p.Step, p.Min = median(p.Steps), slices.Min(p.Steps)
		if len(p.CPUs) > 0 {
			p.CPU = median(p.CPUs)
		}
		p.Epoch = time.Duration(p.StepsPerEpoch) * p.Step
		r.Points = append(r.Points, p)
	}
	if len(r.Points) == 0 {
		return nil, fmt.Errorf("%s: no measured point", path)
	}
	r.fit()
	return r, nil
}

// pairedFile is the saved form of the comparisons of CompareToBaseline.
type pairedFile struct {
	Schema   int          `json:"schema"`
	CPU      string       `json:"cpu"`
	Measured time.Time    `json:"measured"`
	Build    string       `json:"build"`
	Batch    int          `json:"batch"`
	Pairs    []pairedPair `json:"pairs"`
}

// pairedPair is one saved Paired; the summary is recomputed on reading.
type pairedPair struct {
	Backend string    `json:"backend"`
	Length  int       `json:"length"`
	RatioA  float64   `json:"sparse_ratio_a"`
	RatioB  float64   `json:"sparse_ratio_b"`
	WallA   []float64 `json:"steps_wall_a_s"`
	WallB   []float64 `json:"steps_wall_b_s"`
	CPUA    []float64 `json:"steps_cpu_a_s"`
	CPUB    []float64 `json:"steps_cpu_b_s"`
}

// PairedRun is a saved paired timing: the comparisons of CompareToBaseline
// and where and when they were measured.
type PairedRun struct {
	CPU      string
	Measured time.Time
	Build    string
	Batch    int
	Pairs    []*Paired
}

// SavePaired writes the comparisons pairs, measured on cpu at batch size
// batch by this binary now, as JSON to path (PairedFile by convention).
func SavePaired(path, cpu string, batch int, pairs []*Paired) error {
	f := pairedFile{Schema: fileSchema, CPU: cpu, Measured: time.Now().UTC(), Build: BuildRevision(), Batch: batch}
	for _, p := range pairs {
		f.Pairs = append(f.Pairs, pairedPair{Backend: p.Backend, Length: p.Length, RatioA: p.RatioA, RatioB: p.RatioB,
			WallA: seconds(p.StepsA), WallB: seconds(p.StepsB), CPUA: seconds(p.CPUA), CPUB: seconds(p.CPUB)})
	}
	return writeJSON(path, f)
}

// LoadPaired reads a file written by SavePaired; each comparison's cost
// ratios, median, wins and p-value are recomputed from its steps.
func LoadPaired(path string) (*PairedRun, error) {
	var f pairedFile
	if err := readJSON(path, &f); err != nil {
		return nil, err
	}
	run := &PairedRun{CPU: f.CPU, Measured: f.Measured, Build: f.Build, Batch: f.Batch}
	for i, pp := range f.Pairs {
		n := len(pp.WallA)
		if n == 0 || len(pp.WallB) != n || len(pp.CPUA) != n || len(pp.CPUB) != n {
			return nil, fmt.Errorf("%s: comparison %d: %d, %d, %d and %d step times, want the same positive number", path, i+1,
				len(pp.WallA), len(pp.WallB), len(pp.CPUA), len(pp.CPUB))
		}
		p := &Paired{Backend: pp.Backend, Length: pp.Length, RatioA: pp.RatioA, RatioB: pp.RatioB,
			StepsA: durations(pp.WallA), StepsB: durations(pp.WallB), CPUA: durations(pp.CPUA), CPUB: durations(pp.CPUB)}
		p.summarise()
		run.Pairs = append(run.Pairs, p)
	}
	if len(run.Pairs) == 0 {
		return nil, fmt.Errorf("%s: no comparison", path)
	}
	return run, nil
}

// writeJSON writes v, indented, to path.
func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("timing: %w", err)
	}
	return nil
}

// readJSON reads path into v, with a schema check; unknown fields are errors.
func readJSON(path string, v any) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("timing: %w", err)
	}
	defer f.Close()
	dec := json.NewDecoder(f)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("timing: reading %s: %w", path, err)
	}
	var schema int
	switch x := v.(type) {
	case *resultFile:
		schema = x.Schema
	case *pairedFile:
		schema = x.Schema
	}
	if schema != fileSchema {
		return fmt.Errorf("timing: %s has schema %d, this build reads %d", path, schema, fileSchema)
	}
	return nil
}

// seconds converts durations to seconds.
func seconds(ds []time.Duration) []float64 {
	out := make([]float64, len(ds))
	for i, d := range ds {
		out[i] = d.Seconds()
	}
	return out
}

// durations converts seconds to durations (to the nanosecond).
func durations(xs []float64) []time.Duration {
	out := make([]time.Duration, len(xs))
	for i, x := range xs {
		out[i] = duration(x)
	}
	return out
}

// duration converts seconds to a duration (to the nanosecond).
func duration(x float64) time.Duration { return time.Duration(math.Round(x * 1e9)) }
