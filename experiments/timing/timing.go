// Package timing measures the running time of SoftShape against the series
// length, as the paper's Fig 3 does, and the parameter count and inference
// time per dataset of the paper's appendix table (params_inference_time).
//
// Series of length T = k·T₀ are built by concatenating k consecutive series of
// a real dataset of length T₀: ChlorineConcentration (T₀ = 166) when it is in
// the data folder, else the generated Cylinder-Bell-Funnel data at T₀ = 166.
// The shape length m and stride q stay those of the base dataset, so the number
// of shapes J = (T−m)/q + 1 grows linearly with T. For each length, the model
// is built afresh, one training step (forward, backward, Adam) is run to build
// and compile the graph (reported as the compile time), one more step warms up,
// and then a few steps are timed; the median is the time per step, and the time
// per epoch is that times the number of steps of an epoch of the base dataset's
// training split (60% of its series, the paper's protocol).
//
// Sparse ratios are softshape.Config.SparseRatio, the fraction of the shapes
// fused into one embedding (the "0%", "50%", "90%" of Table 3 and Fig 3): the
// sparse phase (after warm-up) runs each of them; the dense phase (warm-up)
// does not depend on the ratio and is timed once per length.
//
// CompareBatched and TimeRuns time whole protocols trained one run at a time
// against R runs per graph (softshape.TrainRuns), with the peak memory of
// each; FormatBatchTimings tabulates them (batched.go).
//
// Everything uses softshape's public API: softshape.New and
// softshape.Stepper, the training step softshape.Train runs.
package timing

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/gomlx/compute"
	"github.com/gomlx/gomlx/core/tensors"
	"gonum.org/v1/gonum/stat"

	"github.com/softshape-go/softshape/data"
	"github.com/softshape-go/softshape/experiments/stats"
	"github.com/softshape-go/softshape/internal/backends"
	"github.com/softshape-go/softshape/internal/hostinfo"
	"github.com/softshape-go/softshape/softshape"
)

// BaseDataset is the dataset whose series are concatenated (paper Fig 3).
const BaseDataset = "ChlorineConcentration"

// BaseLength is the series length T₀ of BaseDataset (and of the generated
// fallback).
const BaseLength = 166

// QuickLengths are the default lengths: k = 1, 2, 4, 8 copies of BaseLength,
// a couple of minutes on a 2-core CPU with the pure-Go backend.
func QuickLengths() []int { return []int{166, 332, 664, 1328} }

// FullLengths are the paper's range, 166 to 16,600.
func FullLengths() []int {
	return []int{166, 830, 1660, 3320, 4980, 6640, 8300, 9960, 11620, 13280, 14940, 16600}
}

// DefaultRatios are the sparse ratios of Fig 3: 0%, 50%, 90%.
func DefaultRatios() []float64 { return []float64{0, 0.5, 0.9} }

// Options configure Measure.
type Options struct {
	// Lengths are the series lengths, each a multiple of BaseLength (default
	// QuickLengths).
	Lengths []int
	// Ratios are the sparse ratios timed in the sparse phase (default
	// DefaultRatios).
	Ratios []float64
	// NoDense leaves out the dense (warm-up) phase.
	NoDense bool
	// Batch is the batch size (default 16).
	Batch int
	// Steps is the number of timed steps per point (default 3), after one
	// compile step and one warm-up step.
	Steps int
	// Config is the base model configuration (default softshape.DefaultConfig()).
	// Its sparse ratio is replaced by each of Ratios; its shape length, when 0,
	// becomes the base dataset's m (fixed for every length).
	Config *softshape.Config
	// Backend runs the graphs; nil means backends.New("").
	Backend compute.Backend
	// DataRoot is the UCR folder searched for BaseDataset; "" or a folder
	// without it means the generated CBF data.
	DataRoot string
	// EpochSeries is the training-split size used for the time per epoch
	// (default 60% of BaseDataset's 4,307 series: 2,584).
	EpochSeries int
	// Seed seeds the weights and the generated data.
	Seed int64
	// Log, when set, receives one line per measured point.
	Log io.Writer
}

// Point is one measurement: a length, a phase and a sparse ratio.
type Point struct {
	// Length is T; Phase the path timed; Ratio the sparse ratio (NaN for the
	// dense phase, where it plays no role).
	Length int
	Phase  softshape.Phase
	Ratio  float64
	// NumShapes is J; Kept the tokens the last layer keeps.
	NumShapes, Kept int
	// Compile is the time of the first step: graph building, compilation and
	// one execution (so Compile − Step estimates the compilation alone).
	Compile time.Duration
	// Steps are the timed steps; Step their median and Min the fastest (the
	// least disturbed by other load on the machine).
	Steps     []time.Duration
	Step, Min time.Duration
	// CPUs are the process CPU times of the timed steps and CPU their
	// median.
	CPUs []time.Duration
	CPU  time.Duration
	// Epoch is Step × StepsPerEpoch.
	StepsPerEpoch int
	Epoch         time.Duration
	// Params is the number of trainable parameters.
	Params int
}

// Label names the point's series: "dense (warm-up)" or "sparse 50%".
func (p Point) Label() string { return SeriesLabel(p.Phase, p.Ratio) }

// SeriesLabel names a series of the figure and the table.
func SeriesLabel(phase softshape.Phase, ratio float64) string {
	if phase == softshape.Dense {
		return "dense (warm-up)"
	}
	return fmt.Sprintf("sparse %g%%", math.Round(ratio*1000)/10)
}

// Fit is the least-squares line time = Intercept + Slope·T of one series.
type Fit struct {
	Label            string
	Intercept, Slope float64 // seconds per step, seconds per step per time step
	R2               float64
	N                int
}

// Result is a full measurement.
type Result struct {
	// Source says where the series come from ("ChlorineConcentration" or
	// "CBF-generated"); Backend the backend's description; CPU the processor
	// that ran the steps (hostinfo.CPU): times compare only within one.
	Source, Backend, CPU string
	// Measured is when the measurement finished; Build the revision of the
	// binary that made it (BuildRevision).
	Measured time.Time
	Build    string
	// Batch, Steps and the configuration used (before the ratio is applied).
	Batch, Steps int
	Config       softshape.Config
	// ShapeLen and Stride are the fixed m and q.
	ShapeLen, Stride int
	// Lengths and Points, in measurement order (length-major).
	Lengths []int
	Points  []Point
	// Fits, one per series, in the order of Labels, of the step time on
	// Clock() (CPU time where the system measures it).
	Fits []Fit
}

// Labels returns the series labels in order: dense first, then the ratios.
func (r *Result) Labels() []string {
	var out []string
	for _, p := range r.Points {
		if !slices.Contains(out, p.Label()) {
			out = append(out, p.Label())
		}
	}
	return out
}

// Clock is the time a series or a fit of a Result is in.
type Clock int

const (
	// CPUTime is the process CPU time (user + system, all threads) of a
	// step: what the steps cost, little disturbed by other load on the
	// machine (Point.CPU).
	CPUTime Clock = iota
	// WallTime is the elapsed time of a step (Point.Step), which a load
	// spike from another process inflates.
	WallTime
)

// String names the clock: "CPU time" or "wall time".
func (c Clock) String() string {
	if c == WallTime {
		return "wall time"
	}
	return "CPU time"
}

// Clock returns the clock the figure and the fits use: CPUTime when every
// point has a CPU time (the system has a process CPU clock), else WallTime.
func (r *Result) Clock() Clock {
	for _, p := range r.Points {
		if p.CPU <= 0 {
			return WallTime
		}
	}
	return CPUTime
}

// seconds is the time of p on clock c, per step or (epoch) per epoch.
func (p Point) seconds(c Clock, epoch bool) float64 {
	d := p.Step
	if c == CPUTime {
		d = p.CPU
	}
	if epoch {
		d *= time.Duration(p.StepsPerEpoch)
	}
	return d.Seconds()
}

// spread is the fastest and the slowest of p's timed steps on clock c, per
// step or (epoch) per epoch, in seconds; NaN when the steps were not kept.
func (p Point) spread(c Clock, epoch bool) (lo, hi float64) {
	ds := p.Steps
	if c == CPUTime {
		ds = p.CPUs
	}
	if len(ds) == 0 {
		return math.NaN(), math.NaN()
	}
	k := 1.0
	if epoch {
		k = float64(p.StepsPerEpoch)
	}
	return k * slices.Min(ds).Seconds(), k * slices.Max(ds).Seconds()
}

// Spread returns, for each label, the fastest (lo) and the slowest (hi) of
// the timed steps at each of Lengths on clock c, per step or (epoch) per
// epoch, in seconds: the bars of Figure around Series's medians (NaN where
// not measured).
func (r *Result) Spread(epoch bool, c Clock) (lo, hi map[string][]float64) {
	lo, hi = map[string][]float64{}, map[string][]float64{}
	for _, l := range r.Labels() {
		lo[l], hi[l] = nanSlice(len(r.Lengths)), nanSlice(len(r.Lengths))
	}
	for _, p := range r.Points {
		i := slices.Index(r.Lengths, p.Length)
		lo[p.Label()][i], hi[p.Label()][i] = p.spread(c, epoch)
	}
	return lo, hi
}

// nanSlice is n NaNs.
func nanSlice(n int) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = math.NaN()
	}
	return xs
}

// Series returns, for each label, the time per step (or per epoch) in
// seconds on clock c at each of Lengths (NaN where not measured).
func (r *Result) Series(epoch bool, c Clock) map[string][]float64 {
	out := map[string][]float64{}
	for _, l := range r.Labels() {
		out[l] = nanSlice(len(r.Lengths))
	}
	for _, p := range r.Points {
		i := slices.Index(r.Lengths, p.Length)
		out[p.Label()][i] = p.seconds(c, epoch)
	}
	return out
}

// Exponent is the growth exponent b of the step time t ∝ T^b of a series
// over its points at lengths ≥ minLength: the slope of the least-squares line
// of log t against log T, on Clock() (1 for linear growth, 2 for quadratic;
// below 1 where a fixed cost still counts). NaN with fewer than two points.
func (r *Result) Exponent(label string, minLength int) float64 {
	clock := r.Clock()
	var xs, ys []float64
	for _, p := range r.Points {
		if p.Label() == label && p.Length >= minLength {
			xs = append(xs, math.Log(float64(p.Length)))
			ys = append(ys, math.Log(p.seconds(clock, false)))
		}
	}
	return LinearFit(label, xs, ys).Slope
}

// Point returns the point of a label at length T.
func (r *Result) Point(label string, length int) (Point, bool) {
	for _, p := range r.Points {
		if p.Label() == label && p.Length == length {
			return p, true
		}
	}
	return Point{}, false
}

func (o *Options) fill() error {
	if len(o.Lengths) == 0 {
		o.Lengths = QuickLengths()
	}
	for _, t := range o.Lengths {
		if t < BaseLength || t%BaseLength != 0 {
			return fmt.Errorf("length %d: want a multiple of %d (series are concatenations of %d-step series)", t, BaseLength, BaseLength)
		}
	}
	if o.Ratios == nil {
		o.Ratios = DefaultRatios()
	}
	for _, r := range o.Ratios {
		if math.IsNaN(r) || r < 0 || r >= 1 {
			return fmt.Errorf("sparse ratio %g: want a value in [0, 1)", r)
		}
	}
	if len(o.Ratios) == 0 && o.NoDense {
		return fmt.Errorf("nothing to time: no sparse ratio and no dense phase")
	}
	if o.Batch == 0 {
		o.Batch = 16
	}
	if o.Batch < 1 {
		return fmt.Errorf("batch %d: must be ≥ 1", o.Batch)
	}
	if o.Steps == 0 {
		o.Steps = 3
	}
	if o.Steps < 1 {
		return fmt.Errorf("steps %d: must be ≥ 1", o.Steps)
	}
	if o.EpochSeries == 0 {
		info, err := data.Lookup(BaseDataset)
		if err != nil {
			return err
		}
		o.EpochSeries = int(0.6 * float64(info.Total()))
	}
	if o.Backend == nil {
		b, err := backends.New("")
		if err != nil {
			return err
		}
		o.Backend = b
	}
	return nil
}

// baseSeries returns the z-normalised series of the base dataset (at most
// need of them, cycling if there are fewer) and the source name.
func baseSeries(root string, need int, seed int64) ([][]float64, []int, string, error) {
	var ds *data.Dataset
	if root != "" && data.Present(root, BaseDataset) {
		d, err := data.Load(root, BaseDataset)
		if err != nil {
			return nil, nil, "", err
		}
		ds = d
	} else {
		ds = data.CBF(max(1, (need+2)/3), BaseLength, seed)
	}
	if ds.Length != BaseLength {
		return nil, nil, "", fmt.Errorf("%s has length %d, want %d", ds.Name, ds.Length, BaseLength)
	}
	xs := make([][]float64, 0, need)
	ys := make([]int, 0, need)
	for i := 0; len(xs) < need; i++ {
		r := i % len(ds.Series)
		xs = append(xs, zNorm(ds.Series[r]))
		ys = append(ys, ds.Labels[r])
	}
	return xs, ys, ds.Name, nil
}

// zNorm z-normalises a series, replacing NaN by 0.
func zNorm(s []float64) []float64 {
	out := make([]float64, len(s))
	var sum, sq float64
	n := 0
	for _, v := range s {
		if !math.IsNaN(v) {
			sum += v
			n++
		}
	}
	mean := 0.0
	if n > 0 {
		mean = sum / float64(n)
	}
	for _, v := range s {
		if !math.IsNaN(v) {
			sq += (v - mean) * (v - mean)
		}
	}
	sd := 1.0
	if n > 0 && sq > 0 {
		sd = math.Sqrt(sq / float64(n))
	}
	for i, v := range s {
		if !math.IsNaN(v) {
			out[i] = (v - mean) / sd
		}
	}
	return out
}

// concatBatch builds batch series of length k·BaseLength: row i concatenates
// base series i·k … i·k+k−1, labelled by the first.
func concatBatch(base [][]float64, labels []int, batch, k int) (*tensors.Tensor, *tensors.Tensor) {
	t := k * BaseLength
	flat := make([]float32, 0, batch*t)
	lab := make([]int32, batch)
	for i := 0; i < batch; i++ {
		for j := 0; j < k; j++ {
			for _, v := range base[(i*k+j)%len(base)] {
				flat = append(flat, float32(v))
			}
		}
		lab[i] = int32(labels[(i*k)%len(labels)])
	}
	return tensors.FromFlatDataAndDimensions(flat, batch, t), tensors.FromFlatDataAndDimensions(lab, batch, 1)
}

// Trainer is one SoftShape model and its training step, the step a run of
// softshape.Train executes (softshape.Stepper), for timing training steps.
type Trainer struct {
	Model   *softshape.Model
	stepper *softshape.Stepper
	// LastCPU is the process CPU time (user + system, all threads) of the
	// last Step: less disturbed than the wall time by other processes
	// competing for the cores (0 where not measured).
	LastCPU time.Duration
}

// NewTrainer builds the model of cfg for series of length T and C classes
// (refShapeLen as in softshape.New) and its training step, its weights,
// Adam state and RNG stream those of fold 1 of a run of softshape.Train
// seeded by seed.
func NewTrainer(backend compute.Backend, cfg softshape.Config, seriesLen, numClasses, refShapeLen int, seed int64) (*Trainer, error) {
	m, err := softshape.New(cfg, seriesLen, numClasses, refShapeLen)
	if err != nil {
		return nil, err
	}
	s, err := softshape.NewStepper(backend, m, seed, refShapeLen)
	if err != nil {
		return nil, err
	}
	return &Trainer{Model: m, stepper: s}, nil
}

// Step runs one training step (forward, backward, Adam update) of phase on
// (x [B,T] float32, y [B,1] int32) and returns its wall time; the loss is read
// back, so the time includes the whole computation. A loss that is not
// finite is an error.
func (t *Trainer) Step(phase softshape.Phase, x, y *tensors.Tensor) (time.Duration, error) {
	cpu0 := hostinfo.ProcessCPU()
	start := time.Now()
	l, err := t.stepper.Step(phase, x, y)
	d := time.Since(start)
	t.LastCPU = hostinfo.ProcessCPU() - cpu0
	if err != nil {
		return d, err
	}
	if math.IsNaN(l) || math.IsInf(l, 0) {
		return d, fmt.Errorf("training step: loss is %v", l)
	}
	return d, nil
}

// Params is the number of trainable parameters of the phases stepped.
func (t *Trainer) Params() int { return t.stepper.Params() }

// Close frees the compiled graphs and the variables.
func (t *Trainer) Close() { t.stepper.Close() }

// Measure times training steps for every length, phase and ratio of opts.
func Measure(opts Options) (*Result, error) {
	if err := opts.fill(); err != nil {
		return nil, err
	}
	cfg := softshape.DefaultConfig()
	if opts.Config != nil {
		cfg = *opts.Config
	}
	maxK := slices.Max(opts.Lengths) / BaseLength
	base, labels, source, err := baseSeries(opts.DataRoot, max(opts.Batch*maxK, 3), opts.Seed)
	if err != nil {
		return nil, err
	}
	numClasses := 0
	for _, l := range labels {
		numClasses = max(numClasses, l+1)
	}
	numClasses = max(numClasses, 2)
	if cfg.ShapeLength == 0 && cfg.ShapeLengthRatio == 0 {
		// Fixed m for every length: ChlorineConcentration's (64), also for the
		// generated fallback, so that the sizes timed do not depend on which
		// data was found (CBF has 3 classes, as ChlorineConcentration).
		cfg.ShapeLength = softshape.RefShapeLength(BaseDataset, BaseLength)
	}
	res := &Result{Source: source, Backend: opts.Backend.Description(), CPU: hostinfo.CPU(), Batch: opts.Batch, Steps: opts.Steps,
		Config: cfg, Lengths: slices.Clone(opts.Lengths)}
	type job struct {
		phase softshape.Phase
		ratio float64
	}
	var jobs []job
	if !opts.NoDense {
		jobs = append(jobs, job{softshape.Dense, math.NaN()})
	}
	for _, r := range opts.Ratios {
		jobs = append(jobs, job{softshape.Sparse, r})
	}
	stepsPerEpoch := (opts.EpochSeries + opts.Batch - 1) / opts.Batch
	for _, T := range opts.Lengths {
		x, y := concatBatch(base, labels, opts.Batch, T/BaseLength)
		for _, j := range jobs {
			c := cfg
			if j.phase == softshape.Sparse {
				c.SparseRatio = j.ratio
			}
			p, err := measurePoint(opts, c, T, numClasses, j.phase, x, y)
			if err != nil {
				x.FinalizeAll()
				y.FinalizeAll()
				return nil, fmt.Errorf("T=%d, %s: %w", T, SeriesLabel(j.phase, j.ratio), err)
			}
			p.Ratio = j.ratio
			p.StepsPerEpoch = stepsPerEpoch
			p.Epoch = time.Duration(stepsPerEpoch) * p.Step
			res.ShapeLen, res.Stride = p.shapeLen, p.stride
			res.Points = append(res.Points, p.Point)
			if opts.Log != nil {
				fmt.Fprintf(opts.Log, "T=%-6d %-16s J=%-5d step %8.1f ms  compile %6.2f s\n", T, p.Label(), p.NumShapes,
					float64(p.Step.Microseconds())/1000, p.Compile.Seconds())
			}
		}
		x.FinalizeAll()
		y.FinalizeAll()
	}
	res.Measured, res.Build = time.Now().UTC(), BuildRevision()
	res.fit()
	return res, nil
}

// fit sets r.Fits: one line per series of the step time on Clock() against
// the length.
func (r *Result) fit() {
	clock := r.Clock()
	r.Fits = nil
	for _, l := range r.Labels() {
		var xs, ys []float64
		for _, p := range r.Points {
			if p.Label() == l {
				xs = append(xs, float64(p.Length))
				ys = append(ys, p.seconds(clock, false))
			}
		}
		r.Fits = append(r.Fits, LinearFit(l, xs, ys))
	}
}

type measured struct {
	Point
	shapeLen, stride int
}

func measurePoint(opts Options, cfg softshape.Config, T, numClasses int, phase softshape.Phase, x, y *tensors.Tensor) (measured, error) {
	tr, err := NewTrainer(opts.Backend, cfg, T, numClasses, 0, opts.Seed)
	if err != nil {
		return measured{}, err
	}
	defer tr.Close()
	sh := tr.Model.Shape
	p := measured{Point: Point{Length: T, Phase: phase, NumShapes: sh.NumShapes}, shapeLen: sh.ShapeLen, stride: sh.Stride}
	kept := sh.NumShapes
	if phase == softshape.Sparse {
		for _, r := range cfg.RemainFractions() {
			kept = softshape.KeptTokens(r, kept)
		}
	}
	p.Kept = kept
	if p.Compile, err = tr.Step(phase, x, y); err != nil {
		return p, err
	}
	if _, err = tr.Step(phase, x, y); err != nil { // warm-up
		return p, err
	}
	var cpus []time.Duration
	for range opts.Steps {
		d, err := tr.Step(phase, x, y)
		if err != nil {
			return p, err
		}
		p.Steps = append(p.Steps, d)
		cpus = append(cpus, tr.LastCPU)
	}
	p.CPUs = cpus
	p.CPU = median(cpus)
	p.Step = median(p.Steps)
	p.Min = slices.Min(p.Steps)
	p.Params = tr.Params()
	return p, nil
}

// median returns the median of xs (durations or ratios; the mean of the
// middle two for an even count).
func median[T time.Duration | float64](xs []T) T {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// LinearFit fits y = a + b·x by least squares (gonum stat.LinearRegression)
// and returns it with R²; with fewer than two points, Slope and R2 are NaN.
func LinearFit(label string, xs, ys []float64) Fit {
	f := Fit{Label: label, N: len(xs), Intercept: math.NaN(), Slope: math.NaN(), R2: math.NaN()}
	if len(xs) < 2 {
		return f
	}
	f.Intercept, f.Slope = stat.LinearRegression(xs, ys, nil, false)
	if len(xs) > 2 {
		f.R2 = stat.RSquared(xs, ys, nil, f.Intercept, f.Slope)
	}
	return f
}

// Title says what was measured, for tables and figures.
func (r *Result) Title() string {
	return fmt.Sprintf("SoftShape training time vs series length (%s series concatenated, C=3, batch %d, m=%d, q=%d, d=%d, L=%d; %s)",
		r.Source, r.Batch, r.ShapeLen, r.Stride, r.Config.EmbedDim, r.Config.Depth, r.Backend)
}

// Markdown writes the table of points and the fits.
func (r *Result) Markdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### %s\n\n", r.Title())
	fmt.Fprintf(&b, "CPU: %s.\n\n", r.CPU)
	fmt.Fprintf(&b, "Median of %d timed steps after one compile step and one warm-up step (wall time; step CPU = process CPU time, less disturbed by other load, its median and, in brackets, the fastest and the slowest step); epoch = step × %d steps (%d-series training split).\n\n",
		r.Steps, r.stepsPerEpoch(), r.stepsPerEpoch()*r.Batch)
	if !r.Measured.IsZero() {
		fmt.Fprintf(&b, "Measured %s by build %s.\n\n", r.Measured.Format("2006-01-02 15:04 MST"), r.Build)
	}
	b.WriteString("| T | phase | sparse ratio | shapes J | kept tokens | params | first step incl. compile (s) | step median (ms) | step min (ms) | step CPU (ms) [min–max] | epoch (s) |\n")
	b.WriteString("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, p := range r.Points {
		ratio := "–"
		if p.Phase == softshape.Sparse {
			ratio = fmt.Sprintf("%g%%", math.Round(p.Ratio*1000)/10)
		}
		cpu := fmt.Sprintf("%.1f", ms(p.CPU))
		if len(p.CPUs) > 1 {
			cpu += fmt.Sprintf(" [%.1f–%.1f]", ms(slices.Min(p.CPUs)), ms(slices.Max(p.CPUs)))
		}
		fmt.Fprintf(&b, "| %d | %s | %s | %d | %d | %d | %.2f | %.1f | %.1f | %s | %.1f |\n", p.Length, p.Phase, ratio, p.NumShapes, p.Kept,
			p.Params, p.Compile.Seconds(), ms(p.Step), ms(p.Min), cpu, p.Epoch.Seconds())
	}
	fmt.Fprintf(&b, "\nLinear fit of the step %s against T (the figure's):\n\n", r.Clock())
	b.WriteString("| series | intercept (ms) | slope (ms per 1000 steps of T) | R² | points |\n|---|---:|---:|---:|---:|\n")
	for _, f := range r.Fits {
		fmt.Fprintf(&b, "| %s | %.1f | %.1f | %.4f | %d |\n", f.Label, f.Intercept*1e3, f.Slope*1e6, f.R2, f.N)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// CSV writes one row per point.
func (r *Result) CSV(w io.Writer) error {
	var b strings.Builder
	b.WriteString("length,phase,sparse_ratio,num_shapes,kept_tokens,params,first_step_s,step_ms,step_min_ms,step_cpu_ms,epoch_s,steps_per_epoch,source,batch,backend,cpu\n")
	for _, p := range r.Points {
		ratio := ""
		if p.Phase == softshape.Sparse {
			ratio = fmt.Sprintf("%g", p.Ratio)
		}
		fmt.Fprintf(&b, "%d,%s,%s,%d,%d,%d,%.4f,%.3f,%.3f,%.3f,%.3f,%d,%s,%d,%q,%q\n", p.Length, p.Phase, ratio, p.NumShapes, p.Kept, p.Params,
			p.Compile.Seconds(), ms(p.Step), ms(p.Min), ms(p.CPU), p.Epoch.Seconds(), p.StepsPerEpoch, r.Source, r.Batch, r.Backend, r.CPU)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func (r *Result) stepsPerEpoch() int {
	if len(r.Points) == 0 {
		return 0
	}
	return r.Points[0].StepsPerEpoch
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// Paired is the outcome of CompareRatios: the steps of two sparse ratios
// timed alternately on the same batch, so that load from other processes
// falls on both alike, and compared round by round.
type Paired struct {
	// Backend names the backend that ran the steps.
	Backend string
	Length  int
	RatioA  float64
	RatioB  float64
	StepsA  []time.Duration
	StepsB  []time.Duration
	// CPUA and CPUB are the process CPU times of the steps.
	CPUA, CPUB []time.Duration
	// Ratios holds, per round, B's cost over A's: process CPU time, or wall
	// time where the system has no CPU clock. MedianRatio is their median,
	// the robust estimate of B's relative cost (a single slow step, e.g. a
	// garbage collection, moves the minimum or the mean but not the median).
	Ratios      []float64
	MedianRatio float64
	// Wins counts the rounds in which B cost less than A.
	Wins int
	// PValue is the one-sided Wilcoxon signed-rank test (stats package) of
	// the log ratios against "B costs less than A": small when B is
	// consistently cheaper, 1 when there is a single round. PValueDearer is
	// the same test against "B costs more than A".
	PValue, PValueDearer float64
}

// CompareRatios times the sparse phase at sparse ratios a and b on series of
// length T, alternating one step of each for rounds rounds (after compiling
// and warming up both). opts gives the batch, backend, configuration, data
// and seed (its Lengths, Ratios and Steps are ignored).
func CompareRatios(opts Options, T int, a, b float64, rounds int) (*Paired, error) {
	o := opts
	o.Lengths, o.Ratios, o.Steps = []int{T}, []float64{a, b}, max(1, rounds)
	if err := o.fill(); err != nil {
		return nil, err
	}
	cfg := softshape.DefaultConfig()
	if o.Config != nil {
		cfg = *o.Config
	}
	if cfg.ShapeLength == 0 && cfg.ShapeLengthRatio == 0 {
		cfg.ShapeLength = softshape.RefShapeLength(BaseDataset, BaseLength)
	}
	base, labels, _, err := baseSeries(o.DataRoot, o.Batch*(T/BaseLength), o.Seed)
	if err != nil {
		return nil, err
	}
	x, y := concatBatch(base, labels, o.Batch, T/BaseLength)
	defer x.FinalizeAll()
	defer y.FinalizeAll()
	trs := make([]*Trainer, 2)
	for i, r := range []float64{a, b} {
		c := cfg
		c.SparseRatio = r
		tr, err := NewTrainer(o.Backend, c, T, 3, 0, o.Seed)
		if err != nil {
			return nil, err
		}
		defer tr.Close()
		for range 2 { // compile, warm up
			if _, err := tr.Step(softshape.Sparse, x, y); err != nil {
				return nil, err
			}
		}
		trs[i] = tr
	}
	p := &Paired{Backend: o.Backend.Name(), Length: T, RatioA: a, RatioB: b}
	for range o.Steps {
		da, err := trs[0].Step(softshape.Sparse, x, y)
		if err != nil {
			return nil, err
		}
		db, err := trs[1].Step(softshape.Sparse, x, y)
		if err != nil {
			return nil, err
		}
		p.StepsA, p.StepsB = append(p.StepsA, da), append(p.StepsB, db)
		p.CPUA, p.CPUB = append(p.CPUA, trs[0].LastCPU), append(p.CPUB, trs[1].LastCPU)
	}
	p.summarise()
	return p, nil
}

// summarise sets p's per-round cost ratios and their summary from its
// steps: B's process CPU time over A's, or the wall times' ratio in a round
// without a CPU time (a system without a process CPU clock).
func (p *Paired) summarise() {
	p.Ratios = make([]float64, len(p.StepsA))
	for i := range p.Ratios {
		a, b := p.CPUA[i], p.CPUB[i]
		if a <= 0 || b <= 0 {
			a, b = p.StepsA[i], p.StepsB[i]
		}
		p.Ratios[i] = b.Seconds() / a.Seconds()
	}
	p.MedianRatio, p.Wins, p.PValue = compareRounds(p.Ratios)
	p.PValueDearer = wilcoxonLogs(p.Ratios, stats.Greater)
}

// CompareToBaseline runs CompareRatios of ratios[0] against each later
// ratio at length T, in order: the comparisons behind "softshape timing
// -paired" and the notebooks' paired timing.
func CompareToBaseline(opts Options, T int, ratios []float64, rounds int) ([]*Paired, error) {
	if len(ratios) < 2 {
		return nil, fmt.Errorf("paired timing: %d sparse ratios, want the baseline and at least one more", len(ratios))
	}
	var out []*Paired
	for _, r := range ratios[1:] {
		p, err := CompareRatios(opts, T, ratios[0], r, rounds)
		if err != nil {
			return nil, fmt.Errorf("paired timing at T=%d: %w", T, err)
		}
		out = append(out, p)
	}
	return out, nil
}

// compareRounds summarises per-round cost ratios B/A: their median, the
// number below 1, and the one-sided Wilcoxon signed-rank p-value of their
// logarithms against "B is cheaper" (1 for fewer than two rounds).
func compareRounds(ratios []float64) (med float64, wins int, p float64) {
	n := len(ratios)
	if n == 0 {
		return math.NaN(), 0, 1
	}
	for _, r := range ratios {
		if r < 1 {
			wins++
		}
	}
	return median(ratios), wins, wilcoxonLogs(ratios, stats.Less)
}

// wilcoxonLogs is the one-sided Wilcoxon signed-rank p-value of the
// logarithms of the cost ratios against alt (stats.Less: B cheaper), 1 for
// fewer than two rounds.
func wilcoxonLogs(ratios []float64, alt stats.Alternative) float64 {
	if len(ratios) < 2 {
		return 1
	}
	logs := make([]float64, len(ratios))
	for i, r := range ratios {
		logs[i] = math.Log(r)
	}
	res, err := stats.WilcoxonDiffs(logs, alt, stats.WilcoxonOptions{})
	if err != nil {
		return 1
	}
	return res.PValue
}

// Markdown writes the comparison: a title line, one table row per round
// (wall and CPU time of each ratio, and the cost ratio B/A) and a summary
// line with the median ratio, the wins and the Wilcoxon p-value.
func (p *Paired) Markdown(w io.Writer) error {
	a, b := fmt.Sprintf("%.0f%%", p.RatioA*100), fmt.Sprintf("%.0f%%", p.RatioB*100)
	var s strings.Builder
	fmt.Fprintf(&s, "Sparse ratio %s against %s, T = %d, %s: one training step of each per round, alternated.\n\n", b, a, p.Length, p.Backend)
	fmt.Fprintf(&s, "| round | %s wall (ms) | %s wall (ms) | %s CPU (ms) | %s CPU (ms) | %s / %s |\n|---:|---:|---:|---:|---:|---:|\n", a, b, a, b, b, a)
	for i := range p.Ratios {
		fmt.Fprintf(&s, "| %d | %.1f | %.1f | %.1f | %.1f | %.3f |\n", i+1, ms(p.StepsA[i]), ms(p.StepsB[i]), ms(p.CPUA[i]), ms(p.CPUB[i]), p.Ratios[i])
	}
	fmt.Fprintf(&s, "\nMedian round: %s costs %.3f× %s; cheaper in %d of %d rounds; one-sided Wilcoxon signed-rank p = %.4g.\n",
		b, p.MedianRatio, a, p.Wins, len(p.Ratios), p.PValue)
	_, err := io.WriteString(w, s.String())
	return err
}
