package plots

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// cdEntry places one method of a critical-difference diagram.
type cdEntry struct {
	// Index is the method's position in the caller's slices.
	Index int
	// Name and Rank are the method's name and average rank.
	Name string
	Rank float64
	// Left says the method hangs from the left side of the diagram.
	Left bool
	// Row is the text row on its side, 0 being closest to the axis.
	Row int
}

// cdBar is one clique bar, in rank units.
type cdBar struct {
	// Lo and Hi are the smallest and largest average rank of the members.
	Lo, Hi float64
	// Row is the bar's row below the axis, 0 being closest to it.
	Row int
	// Members are the caller's method indices, sorted by rank.
	Members []int
}

// cdGeom is the rank-space layout of a critical-difference diagram.
type cdGeom struct {
	// Low and High are the axis end points (integers): min(1, ⌊min rank⌋)
	// and max(k, ⌈max rank⌉), as in aeon.
	Low, High int
	// Entries lists the methods sorted by rank (best first).
	Entries []cdEntry
	// Bars lists the clique bars, sorted by Lo then Hi.
	Bars []cdBar
	// BarRows is the number of bar rows used.
	BarRows int
	// SideRows is the number of text rows on the fuller side, ⌈k/2⌉.
	SideRows int
}

// cdBarGapFrac is the smallest gap between two bars sharing a row, as a
// fraction of the axis span.
const cdBarGapFrac = 0.04

// cdLayout computes the rank-space layout of a critical-difference diagram:
// methods sorted by average rank, the better half hung from the side where
// rank 1 is (left unless bestOnRight), each side's rows nested so that lines
// do not cross; cliques reduced to maximal sets of at least two methods and
// turned into bars from the best to the worst member's rank, packed into
// rows so that bars sharing a row do not overlap.
func cdLayout(methods []string, ranks []float64, cliques [][]int, bestOnRight bool) (cdGeom, error) {
	k := len(methods)
	if k == 0 {
		return cdGeom{}, fmt.Errorf("%w: CDDiagram needs at least one method", ErrEmpty)
	}
	if len(ranks) != k {
		return cdGeom{}, fmt.Errorf("%w: CDDiagram has %d methods and %d ranks", ErrLength, k, len(ranks))
	}
	if err := checkFinite("CDDiagram avgRanks", ranks); err != nil {
		return cdGeom{}, err
	}
	var g cdGeom
	lo, hi := slices.Min(ranks), slices.Max(ranks)
	g.Low = min(1, int(math.Floor(lo)))
	g.High = max(k, int(math.Ceil(hi)))
	if g.High == g.Low {
		g.High = g.Low + 1
	}

	order := make([]int, k)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case ranks[a] < ranks[b]:
			return -1
		case ranks[a] > ranks[b]:
			return 1
		}
		return 0
	})
	half := (k + 1) / 2
	g.SideRows = half
	for pos, idx := range order {
		e := cdEntry{Index: idx, Name: methods[idx], Rank: ranks[idx]}
		better := pos < half
		e.Left = better != bestOnRight
		if better {
			e.Row = pos
		} else {
			e.Row = k - 1 - pos
		}
		g.Entries = append(g.Entries, e)
	}

	// Cliques: validate, deduplicate members, keep maximal sets of ≥ 2.
	var sets [][]int
	for ci, cl := range cliques {
		var set []int
		for _, m := range cl {
			if m < 0 || m >= k {
				return cdGeom{}, fmt.Errorf("%w: CDDiagram clique %d refers to method %d of %d", ErrValue, ci, m, k)
			}
			if !slices.Contains(set, m) {
				set = append(set, m)
			}
		}
		if len(set) >= 2 {
			slices.Sort(set)
			sets = append(sets, set)
		}
	}
	var maximal [][]int
	for i, s := range sets {
		dominated := false
		for j, t := range sets {
			if i == j || len(t) < len(s) {
				continue
			}
			if isSubset(s, t) && (len(t) > len(s) || j < i) {
				dominated = true
				break
			}
		}
		if !dominated {
			maximal = append(maximal, s)
		}
	}
	for _, s := range maximal {
		b := cdBar{Lo: math.Inf(1), Hi: math.Inf(-1)}
		for _, m := range s {
			b.Lo = math.Min(b.Lo, ranks[m])
			b.Hi = math.Max(b.Hi, ranks[m])
		}
		b.Members = slices.Clone(s)
		slices.SortStableFunc(b.Members, func(x, y int) int {
			switch {
			case ranks[x] < ranks[y]:
				return -1
			case ranks[x] > ranks[y]:
				return 1
			}
			return x - y
		})
		g.Bars = append(g.Bars, b)
	}
	slices.SortStableFunc(g.Bars, func(a, b cdBar) int {
		switch {
		case a.Lo != b.Lo:
			if a.Lo < b.Lo {
				return -1
			}
			return 1
		case a.Hi != b.Hi:
			if a.Hi < b.Hi {
				return -1
			}
			return 1
		}
		return 0
	})
	gap := cdBarGapFrac * float64(g.High-g.Low)
	var rowEnd []float64
	for i := range g.Bars {
		placed := false
		for r, end := range rowEnd {
			if g.Bars[i].Lo > end+gap {
				g.Bars[i].Row = r
				rowEnd[r] = g.Bars[i].Hi
				placed = true
				break
			}
		}
		if !placed {
			g.Bars[i].Row = len(rowEnd)
			rowEnd = append(rowEnd, g.Bars[i].Hi)
		}
	}
	g.BarRows = len(rowEnd)
	return g, nil
}

// isSubset reports whether sorted s is a subset of sorted t.
func isSubset(s, t []int) bool {
	for _, v := range s {
		if _, ok := slices.BinarySearch(t, v); !ok {
			return false
		}
	}
	return true
}

// Layout constants of the CD diagram, in inches.
const (
	cdTickBig     = 0.14
	cdTickSmall   = 0.07
	cdBarStep     = 0.11
	cdBarFirst    = 0.14
	cdRowStep     = 0.26
	cdMinFirstRow = 0.38
	cdLineOver    = 0.1
	cdTextGap     = 0.06
	cdCDBlock     = 0.42
)

// cdFirstRow returns the distance in inches from the axis to the first row
// of names, below the clique bars.
func cdFirstRow(g cdGeom) float64 {
	return math.Max(cdMinFirstRow, cdBarFirst+float64(g.BarRows)*cdBarStep+0.14)
}

// CDDiagram draws a critical-difference diagram (Demšar 2006) in the layout
// of aeon's plot_critical_difference: a rank axis on top running from
// min(1, ⌊min rank⌋) to max(k, ⌈max rank⌉) with rank 1 (best) at the left,
// each method hung from the axis at its average rank by a line ending on the
// left side (better half) or the right side (worse half) with its name and
// rank, and each clique — methods whose differences are not significant —
// drawn as a thick horizontal bar below the axis joining its best- and
// worst-ranked members.
//
// cliques hold indices into methods; duplicate members are ignored, cliques
// with fewer than two distinct members and cliques contained in another are
// dropped, and bars that do not overlap may share a row. Options:
// WithBestOnRight (aeon's default orientation), WithCriticalDifference,
// WithSize, WithDPI.
func CDDiagram(meta Meta, methods []string, avgRanks []float64, cliques [][]int, opts ...Option) (*Figure, error) {
	cfg := newConfig(opts)
	g, err := cdLayout(methods, avgRanks, cliques, cfg.bestOnRight)
	if err != nil {
		return nil, err
	}
	if cfg.cd < 0 || math.IsNaN(cfg.cd) || math.IsInf(cfg.cd, 0) {
		return nil, fmt.Errorf("%w: critical difference %v", ErrValue, cfg.cd)
	}
	body := func(c draw.Canvas) error {
		drawCD(c, g, cfg)
		return nil
	}
	// Default height: padding and title, the CD bar, the axis with its
	// labels, the clique rows and the name rows.
	h := 0.6 + 0.45 + cdFirstRow(g) + float64(max(g.SideRows-1, 0))*cdRowStep + 0.25
	if meta.Quick {
		h += 0.25
	}
	if cfg.cd > 0 {
		h += cdCDBlock
	}
	return cfg.apply(newFigure(meta, "Critical difference diagram", vg.Length(cdWidth(len(g.Entries)))*vg.Inch, vg.Length(h)*vg.Inch, body)), nil
}

// cdWidth is the default width in inches of a diagram of k methods: 7.5,
// and wider from 10 methods on, so that the rank axis between the two
// columns of names keeps about 0.35 in per rank (Table 1's 18 methods and
// more stay apart).
func cdWidth(k int) float64 { return math.Max(7.5, 4+0.35*float64(k)) }

// cdLabel is the text hung at the end of a method's line.
func cdLabel(e cdEntry) string {
	return e.Name + " (" + strconv.FormatFloat(e.Rank, 'f', 2, 64) + ")"
}

// drawCD renders the layout g onto c.
func drawCD(c draw.Canvas, g cdGeom, cfg config) {
	in := func(x float64) vg.Length { return vg.Length(x) * vg.Inch }
	nameSty := textStyle(legendSize, rgb(hexBlack))
	tickSty := textStyle(smallSize, rgb(hexBlack))

	var leftW, rightW vg.Length
	for _, e := range g.Entries {
		w := nameSty.Width(cdLabel(e))
		if e.Left {
			leftW = max(leftW, w)
		} else {
			rightW = max(rightW, w)
		}
	}
	margin := in(cdLineOver + cdTextGap + 0.05)
	x0 := c.Min.X + leftW + margin
	x1 := c.Max.X - rightW - margin
	if x1-x0 < in(1) { // very long names: keep a usable scale
		mid := (c.Min.X + c.Max.X) / 2
		x0, x1 = mid-in(0.5), mid+in(0.5)
	}
	pos := func(r float64) vg.Length {
		a := (r - float64(g.Low)) / float64(g.High-g.Low)
		if cfg.bestOnRight {
			a = 1 - a
		}
		return x0 + vg.Length(a)*(x1-x0)
	}

	y := c.Max.Y
	axisSty := lineStyle(rgb(hexBlack), 1.5, nil)
	if cfg.cd > 0 {
		// CD bar at the top, starting at the best end of the axis.
		yb := y - in(cdCDBlock) + in(0.1)
		start := float64(g.Low)
		end := start + cfg.cd
		if cfg.bestOnRight {
			start, end = float64(g.High)-cfg.cd, float64(g.High)
		}
		xa, xb := pos(start), pos(end)
		c.StrokeLine2(axisSty, xa, yb, xb, yb)
		c.StrokeLine2(axisSty, xa, yb-in(0.04), xa, yb+in(0.04))
		c.StrokeLine2(axisSty, xb, yb-in(0.04), xb, yb+in(0.04))
		s := tickSty
		s.XAlign, s.YAlign = draw.XCenter, draw.YBottom
		c.FillText(s, vg.Point{X: (xa + xb) / 2, Y: yb + in(0.05)}, "CD = "+strconv.FormatFloat(cfg.cd, 'f', 2, 64))
		y -= in(cdCDBlock)
	}
	// Tick labels, ticks and the axis.
	labelH := tickSty.FontExtents().Height
	yAxis := y - labelH - in(cdTickBig) - in(0.04)
	c.StrokeLine2(axisSty, x0, yAxis, x1, yAxis)
	for v := float64(g.Low); v <= float64(g.High)+1e-9; v += 0.5 {
		t := cdTickSmall
		if v == math.Trunc(v) {
			t = cdTickBig
		}
		c.StrokeLine2(axisSty, pos(v), yAxis, pos(v), yAxis+in(t))
	}
	ls := tickSty
	ls.XAlign, ls.YAlign = draw.XCenter, draw.YBottom
	// Label every integer, or every other one (and so on) when the labels
	// would collide.
	labelStep := 1
	if spacing := (x1 - x0) / vg.Length(g.High-g.Low); spacing > 0 {
		need := tickSty.Width(strconv.Itoa(g.High)) + vg.Points(4)
		labelStep = max(1, int(math.Ceil(float64(need/spacing))))
	}
	for v := g.Low; v <= g.High; v++ {
		if (v-g.Low)%labelStep != 0 {
			continue
		}
		c.FillText(ls, vg.Point{X: pos(float64(v)), Y: yAxis + in(cdTickBig) + in(0.03)}, strconv.Itoa(v))
	}

	// Clique bars.
	barSty := lineStyle(rgb(hexBlack), 3.5, nil)
	side := in(0.03)
	for _, b := range g.Bars {
		yb := yAxis - in(cdBarFirst) - vg.Length(b.Row)*in(cdBarStep)
		xa, xb := pos(b.Lo), pos(b.Hi)
		if xa > xb {
			xa, xb = xb, xa
		}
		c.StrokeLine2(barSty, xa-side, yb, xb+side, yb)
	}

	// Method lines and names; rows shrink when the canvas is short.
	first := in(cdFirstRow(g))
	step := in(cdRowStep)
	if g.SideRows > 1 {
		avail := yAxis - first - c.Min.Y - nameSty.FontExtents().Height/2
		if need := vg.Length(g.SideRows-1) * step; need > avail && avail > 0 {
			step = avail / vg.Length(g.SideRows-1)
		}
	}
	lineSty := lineStyle(rgb(hexBlack), 1, nil)
	for _, e := range g.Entries {
		yr := yAxis - first - vg.Length(e.Row)*step
		xr := pos(e.Rank)
		var xe vg.Length
		sty := nameSty
		sty.YAlign = draw.YCenter
		var xt vg.Length
		if e.Left {
			xe = x0 - in(cdLineOver)
			xt = xe - in(cdTextGap)
			sty.XAlign = draw.XRight
		} else {
			xe = x1 + in(cdLineOver)
			xt = xe + in(cdTextGap)
			sty.XAlign = draw.XLeft
		}
		c.StrokeLines(lineSty, []vg.Point{{X: xr, Y: yAxis}, {X: xr, Y: yr}, {X: xe, Y: yr}})
		c.FillText(sty, vg.Point{X: xt, Y: yr}, cdLabel(e))
	}
}
