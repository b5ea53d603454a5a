package plots

import (
	"fmt"
	"math"

	"gonum.org/v1/plot/vg"
)

// Aggregation says how AttentionMap turns the scores of the shapes covering a
// time step into one score for that step.
type Aggregation int

const (
	// AggMean averages the scores of the covering shapes (the default).
	AggMean Aggregation = iota
	// AggMax takes the largest score of the covering shapes.
	AggMax
)

// String returns "mean" or "max".
func (a Aggregation) String() string {
	switch a {
	case AggMean:
		return "mean"
	case AggMax:
		return "max"
	default:
		return fmt.Sprintf("Aggregation(%d)", int(a))
	}
}

// Option adjusts a figure constructor. Options that do not apply to a given
// constructor are ignored.
type Option func(*config)

// config collects the settings Options can change.
type config struct {
	width, height vg.Length
	dpi           int
	embedFonts    bool

	agg        Aggregation
	scoreRange [2]float64
	hasRange   bool
	kept       []bool

	bestOnRight bool
	cd          float64

	gridRows, gridCols int

	logY   bool
	yLabel string
	noAvg  bool
	// unordered: SweepChart's categories have no order (WithUnorderedX).
	unordered bool

	avgOurs, avgPaper *SweepAverage

	spreadLo, spreadHi map[string][]float64
}

// newConfig applies opts to the zero config.
func newConfig(opts []Option) config {
	var c config
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	return c
}

// apply sets the size and DPI chosen by options on f.
func (c config) apply(f *Figure) *Figure {
	if c.width > 0 && c.height > 0 {
		f.SetSize(c.width, c.height)
	}
	if c.dpi > 0 {
		f.SetDPI(c.dpi)
	}
	if c.embedFonts {
		f.SetEmbedFonts(true)
	}
	return f
}

// WithSize sets the figure's default size (used by Display).
func WithSize(width, height vg.Length) Option {
	return func(c *config) { c.width, c.height = width, height }
}

// WithDPI sets the figure's PNG resolution.
func WithDPI(dpi int) Option {
	return func(c *config) { c.dpi = dpi }
}

// WithEmbeddedFonts makes SVG output embed its fonts (see
// Figure.SetEmbedFonts).
func WithEmbeddedFonts() Option {
	return func(c *config) { c.embedFonts = true }
}

// WithAggregation chooses how AttentionMap combines the scores of
// overlapping shapes for each time step (AggMean by default).
func WithAggregation(a Aggregation) Option {
	return func(c *config) { c.agg = a }
}

// WithScoreRange fixes the score range mapped onto AttentionMap's colour
// scale (blue at lo, white at the middle, red at hi). By default the range of
// the scores is used. Ignored unless lo < hi.
func WithScoreRange(lo, hi float64) Option {
	return func(c *config) {
		if lo < hi && !math.IsInf(lo, 0) && !math.IsInf(hi, 0) {
			c.scoreRange, c.hasRange = [2]float64{lo, hi}, true
		}
	}
}

// WithKept marks which shapes AttentionMap's model keeps as tokens of their
// own (true) and which it fuses into one token (false): kept shapes' bars are
// filled, fused ones hollow, and the caption counts both. kept needs one entry
// per shape score.
func WithKept(kept []bool) Option {
	return func(c *config) { c.kept = kept }
}

// WithBestOnRight puts rank 1 at the right end of CDDiagram's axis, as
// aeon's plot_critical_difference does by default (reverse=True). Without it
// rank 1 is at the left, as in Demšar (2006).
func WithBestOnRight() Option {
	return func(c *config) { c.bestOnRight = true }
}

// WithCriticalDifference draws a bar of the given length (in rank units)
// labelled "CD" above CDDiagram's axis, as for a Nemenyi test.
func WithCriticalDifference(cd float64) Option {
	return func(c *config) { c.cd = cd }
}

// WithGrid lays ScatterPanels out on a rows × cols grid instead of one row.
func WithGrid(rows, cols int) Option {
	return func(c *config) { c.gridRows, c.gridCols = rows, cols }
}

// WithLogY uses a logarithmic y axis (RunningTime, SweepChart); all values
// must then be positive.
func WithLogY() Option {
	return func(c *config) { c.logY = true }
}

// WithYLabel replaces the default y-axis label.
func WithYLabel(label string) Option {
	return func(c *config) { c.yLabel = label }
}

// WithSpread draws RunningTime's spread of repeated measurements: a bar
// from lo[k][i] to hi[k][i] at each point of series k (e.g. the fastest and
// the slowest of the timed steps). Series absent from lo or hi get no bars;
// each given series needs one value per length.
func WithSpread(lo, hi map[string][]float64) Option {
	return func(c *config) { c.spreadLo, c.spreadHi = lo, hi }
}

// WithoutAverage leaves out the average lines of SweepChart, even those
// given with WithAverage and WithPaperAverage.
func WithoutAverage() Option {
	return func(c *config) { c.noAvg = true }
}

// WithUnorderedX says that SweepChart's categories have no order (an
// ablation's variants, the networks tried as MoE experts): no line joins
// them. Ours are drawn as markers with their error bars, the paper's values
// as short dashes in the same colours, and the averages as black markers,
// ours with a bar of ± its SE instead of a band.
func WithUnorderedX() Option {
	return func(c *config) { c.unordered = true }
}

// WithAverage draws a as SweepChart's thick solid average line (ours), with
// a band of ± a.SE. SweepChart draws no average it is not given: the caller
// passes the average its table prints.
func WithAverage(a SweepAverage) Option {
	return func(c *config) { c.avgOurs = &a }
}

// WithPaperAverage draws a as SweepChart's thick dashed average line (the
// paper's), with a band of ± a.SE.
func WithPaperAverage(a SweepAverage) Option {
	return func(c *config) { c.avgPaper = &a }
}
