package plots

import (
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg/draw"
)

// slantLongLabels slants the tick labels of a categorical x axis when they
// would run into each other written level: more than six of them, or more
// than 48 characters in all.
func slantLongLabels(ax *plot.Axis, labels []string) {
	longest := 0
	for _, l := range labels {
		longest = max(longest, len([]rune(l)))
	}
	if len(labels) > 6 || longest*len(labels) > 48 {
		ax.Tick.Label.Rotation = math.Pi / 5
		ax.Tick.Label.XAlign = draw.XRight
		ax.Tick.Label.YAlign = draw.YCenter
	}
}

// readableTicks is the tick marker of every linear axis of this package:
// gonum's DefaultTicks positions, labelled with the fewest decimals that
// write each labelled value exactly, so that no two labels of an axis read
// the same ("1.1, 1.1, 1.1" on a narrow loss axis) and none carries digits
// the range does not need ("0.00, 25.00" on an index axis). Values of
// magnitude 10⁶ or more, or below 10⁻⁶, keep gonum's labels.
type readableTicks struct {
	// integers drops the labels of non-integer positions (an index axis).
	integers bool
}

// maxTickDecimals is the most decimals readableTicks writes.
const maxTickDecimals = 8

// Ticks implements plot.Ticker.
func (r readableTicks) Ticks(min, max float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(min, max)
	var labelled []float64
	for _, t := range ticks {
		if t.Label != "" {
			labelled = append(labelled, t.Value)
		}
	}
	prec, ok := tickDecimals(labelled)
	for i, t := range ticks {
		if t.Label == "" {
			continue
		}
		switch {
		case r.integers && t.Value != math.Round(t.Value):
			ticks[i].Label = ""
		case ok:
			ticks[i].Label = strconv.FormatFloat(t.Value, 'f', prec, 64)
		}
	}
	return ticks
}

// tickDecimals returns the fewest decimals (at most maxTickDecimals) that
// write every value of vs so that it reads back within a millionth of the
// spacing of the values, and the labels all differ; ok is false when the
// values are too large or too small for fixed-point labels.
func tickDecimals(vs []float64) (prec int, ok bool) {
	if len(vs) == 0 {
		return 0, false
	}
	lo, hi := math.Inf(1), 0.0
	for _, v := range vs {
		a := math.Abs(v)
		hi = math.Max(hi, a)
		if a > 0 {
			lo = math.Min(lo, a)
		}
	}
	if hi >= 1e6 || (lo < 1e-6 && !math.IsInf(lo, 1)) {
		return 0, false
	}
	spacing := math.Inf(1)
	for i := 1; i < len(vs); i++ {
		if d := math.Abs(vs[i] - vs[i-1]); d > 0 {
			spacing = math.Min(spacing, d)
		}
	}
	if math.IsInf(spacing, 1) {
		spacing = math.Max(hi, 1)
	}
	for prec = 0; prec <= maxTickDecimals; prec++ {
		seen := map[string]bool{}
		exact := true
		for _, v := range vs {
			s := strconv.FormatFloat(v, 'f', prec, 64)
			back, _ := strconv.ParseFloat(s, 64)
			if math.Abs(back-v) > spacing*1e-6 || seen[s] {
				exact = false
				break
			}
			seen[s] = true
		}
		if exact {
			return prec, true
		}
	}
	return maxTickDecimals, true
}
