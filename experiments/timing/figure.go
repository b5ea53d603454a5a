package timing

import (
	"fmt"

	"github.com/softshape-go/softshape/plots"
)

// Figure draws the running time against the series length (paper Fig 3):
// one line per phase and sparse ratio, the time per epoch (perEpoch) or per
// training step on Clock(), the process CPU time where the system measures
// it: a load spike from another process inflates the wall time of a step,
// not its CPU time. The caption gives the data, the model, the backend and
// the processor; quick marks a shortened measurement.
func (r *Result) Figure(perEpoch, quick bool) (*plots.Figure, error) {
	if len(r.Points) == 0 {
		return nil, fmt.Errorf("timing: no measured point to draw")
	}
	clock := r.Clock()
	what, ylabel := "Training time per step", fmt.Sprintf("%s per training step (s)", capitalised(clock))
	if perEpoch {
		what = "Training time per epoch"
		ylabel = fmt.Sprintf("%s per training epoch (s)", capitalised(clock))
	}
	steps := fmt.Sprintf("median of %d timed steps", r.Steps)
	if r.Steps == 1 {
		steps = "one timed step"
	}
	caption := fmt.Sprintf("%s series concatenated to each length; batch %d, m = %d, q = %d, d = %d, L = %d; %s",
		r.Source, r.Batch, r.ShapeLen, r.Stride, r.Config.EmbedDim, r.Config.Depth, steps)
	if perEpoch {
		caption += fmt.Sprintf(" × %d steps per epoch", r.stepsPerEpoch())
	}
	if r.Steps > 1 {
		caption += ", bars from the fastest to the slowest step"
	}
	switch clock {
	case CPUTime:
		caption += "; process CPU time, all threads (less disturbed by other load than wall time)"
	default:
		caption += "; wall time (this system gives no process CPU time)"
	}
	caption += fmt.Sprintf(". %s on %s", r.Backend, r.CPU)
	if !r.Measured.IsZero() {
		caption += ", measured " + r.Measured.Format("2006-01-02")
	}
	caption += "."
	xs := make([]float64, len(r.Lengths))
	for i, l := range r.Lengths {
		xs[i] = float64(l)
	}
	meta := plots.Meta{Title: what + " vs series length", Config: caption, Quick: quick}
	lo, hi := r.Spread(perEpoch, clock)
	return plots.RunningTime(meta, xs, r.Series(perEpoch, clock), plots.WithYLabel(ylabel), plots.WithSpread(lo, hi))
}

// capitalised is the clock's name with a capital letter.
func capitalised(c Clock) string {
	if c == WallTime {
		return "Wall time"
	}
	return "CPU time"
}
