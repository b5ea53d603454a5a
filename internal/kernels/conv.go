package kernels

import (
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // graph code reads best dot-imported, as in GoMLX's examples.
)

// NestedSameConvs runs "same" convolutions (PyTorch Conv1d, padding (k−1)/2 each
// side, no bias) of z [B, n, c] along axis 1 with the kernels ws[i] [k_i·c, o_i]
// (im2col order: window position major), whose odd sizes k_0 ≥ k_1 ≥ … nest around
// a common centre, and concatenates the results: [B, n, Σo_i].
//
// Exact products: the window positions are cut into rings, the taps of the
// smallest kernel, then the taps each larger kernel adds around the previous
// one. Each ring's windows are built once and multiplied in one rank-2 product
// by the rows of every kernel that covers the ring; the products add up per
// kernel. (One product with the smaller kernels zero-padded to k_0 multiplies
// 43% zeros at 39/19/9.) How the windows are built depends on the backend, see
// convLayout; gather says which layout.
//
// The gradient is written by hand (see WithGradient). Differentiated op by op,
// each product would transpose its windows, the largest tensors of the step,
// twice on the pure-Go backend, and take them apart again tap by tap (a
// scatter-add after a Gather). Here the weight gradients are vᵀ·windows with
// the forward windows as they are, and the input gradient is the transposed
// convolution: windows of v built the same way, times the flipped kernels.
func NestedSameConvs(z *Node, ws []*Node, kernels []int, gather bool) *Node {
	b, n, c := z.Shape().Dimensions[0], z.Shape().Dimensions[1], z.Shape().Dimensions[2]
	numK := len(kernels)
	kMax := kernels[0]
	lay := convLayout{gather: gather, b: b, n: n, pad: kMax / 2}
	// offsets[i]: first tap of kernel i in the largest kernel's window;
	// colStart[i]: first output column of kernel i.
	offsets := make([]int, numK)
	colStart := make([]int, numK+1)
	for i, k := range kernels {
		offsets[i] = (kMax - k) / 2
		colStart[i+1] = colStart[i] + ws[i].Shape().Dimensions[1]
	}
	width := colStart[numK]
	rings := nestedRings(kernels, offsets)

	// ringWeight is the weight of ring r: the rows of its taps from every
	// kernel that covers it, side by side ([len(taps)·c, colStart[users]]).
	ringWeight := func(ws []*Node, rg convRing) *Node {
		cols := make([]*Node, rg.users)
		for i := range cols {
			rows := make([]*Node, len(rg.runs))
			for j, run := range rg.runs {
				rows[j] = Slice(ws[i], AxisRange((run[0]-offsets[i])*c, (run[1]-offsets[i])*c), AxisRange())
			}
			cols[i] = concatOrSingle(rows, 0)
		}
		return concatOrSingle(cols, 1)
	}

	windows := make([]*Node, len(rings)) // [rows, len(taps)·c], kept for the weight gradients
	forward := func(in []*Node) *Node {
		zs := seqRows(in[0], lay.pad, lay.pad, 0)
		var y *Node
		// Outermost ring first: only kernel 0 covers it, so its product is the
		// narrowest; each next one is wider, and the sum grows by zero columns.
		for r := len(rings) - 1; r >= 0; r-- {
			rg := rings[r]
			windows[r] = lay.windows(zs, rg.taps)
			yr := Dot(windows[r], ringWeight(in[1:], rg)).Product() // [rows, colStart[users]]
			if y != nil {
				y = Add(widen(y, yr.Shape().Dimensions[1]), yr)
			} else {
				y = yr
			}
		}
		return lay.tokens(widen(y, width), false)
	}

	grad := func(in []*Node, _, v *Node) []*Node {
		vT := Transpose(lay.rows(v), 0, 1) // [width, rows]: left operand of the weight gradients
		var dz *Node
		dRing := make([]*Node, len(rings)) // [len(taps)·c, colStart[users]]
		for r, rg := range rings {
			cols := colStart[rg.users]
			vTr, vc := vT, v
			if cols < width {
				vTr = Slice(vT, AxisRange(0, cols), AxisRange())
				vc = Slice(v, AxisRange(), AxisRange(), AxisRange(0, cols))
			}
			// windowsᵀ·v, computed as (vᵀ·windows)ᵀ: no transpose of the windows.
			dRing[r] = Transpose(Dot(vTr, windows[r]).Product(), 0, 1)
			// Transposed convolution: windows of v (its first cols channels)
			// with mirrored taps, times each tap's weights transposed.
			w := Reshape(Transpose(Reshape(ringWeight(in[1:], rg), len(rg.taps), c, cols), 1, 2), len(rg.taps)*cols, c)
			part := Dot(lay.transposedWindows(vc, rg.taps), w).Product() // [rows, c]
			if dz != nil {
				dz = Add(dz, part)
			} else {
				dz = part
			}
		}
		grads := []*Node{lay.tokens(dz, true)}
		// Kernel i's gradient: its taps in order, each run taken from its ring.
		for i := range kernels {
			var rows []*Node
			for _, part := range kernelRuns(rings, i) {
				start := 0
				for _, run := range rings[part.ring].runs[:part.run] {
					start += run[1] - run[0]
				}
				run := rings[part.ring].runs[part.run]
				rows = append(rows, Slice(dRing[part.ring], AxisRange(start*c, (start+run[1]-run[0])*c), AxisRange(colStart[i], colStart[i+1])))
			}
			grads = append(grads, concatOrSingle(rows, 0))
		}
		return grads
	}
	return WithGradient(append([]*Node{z}, ws...), forward, grad)
}

// convLayout builds the windows of NestedSameConvs. Both layouts start from the
// samples laid end to end along the rows of a matrix, each followed by pad zero
// rows (seqRows), so that no window reaches into another sample.
//
// With gather, the windows have one row per token (B·n), gathered from that
// matrix in one Gather: ONNX Runtime runs it as one native kernel. Without, the
// windows are that matrix shifted down by 2·pad−t rows for tap t, side by side
// — Pads, which the pure-Go backend runs as row copies while its Gather copies
// element by element (each layout is the faster on its backend; measured in
// environment.md, "Why the kernels take their forms", and BenchmarkInception in
// package softshape times both). The products then run over all rows, the
// rows between samples included (≈20% more rows at n=122, ks=40), and the
// tokens' rows are picked from the result, 13 times narrower than the windows.
type convLayout struct {
	gather    bool
	b, n, pad int
}

// windows is the windows at the given taps (positions in the largest window,
// centre pad) of the samples laid out as xs = seqRows(x, pad, pad, 0):
// [rows, len(taps)·c]. Without gather, row r holds for tap t row r−2·pad+t of
// xs: token (b, j) is row 2·pad+b·(n+pad)+j.
func (l convLayout) windows(xs *Node, taps []int) *Node {
	offsets := make([]int, len(taps))
	for j, t := range taps {
		offsets[j] = t
		if !l.gather {
			offsets[j] = 2*l.pad - t
		}
	}
	if l.gather {
		return l.gatherRows(xs, offsets)
	}
	return shiftedRows(xs, offsets, 2*l.pad)
}

// transposedWindows is the windows of the transposed convolution of v [B, n, c']
// (the gradient with respect to the output): tap t reads v 2·pad−t rows further
// on, [rows', len(taps)·c']. Without gather, rows' are seqRows' rows shifted by
// 3·pad: token (b, j) is row 3·pad+b·(n+pad)+j.
func (l convLayout) transposedWindows(v *Node, taps []int) *Node {
	if l.gather {
		offsets := make([]int, len(taps))
		for j, t := range taps {
			offsets[j] = 2*l.pad - t
		}
		return l.gatherRows(seqRows(v, l.pad, l.pad, l.pad), offsets)
	}
	return shiftedRows(l.rows(v), taps, 2*l.pad)
}

// rows lays v [B, n, c'] out like the rows of windows: [rows, c'], zero on the
// rows of no token.
func (l convLayout) rows(v *Node) *Node {
	if l.gather {
		return Reshape(v, l.b*l.n, v.Shape().Dimensions[2])
	}
	return seqRows(v, 2*l.pad, l.pad, l.pad)
}

// tokens picks the tokens' rows out of y, the rows of windows (of
// transposedWindows when transposed): [B, n, c'].
func (l convLayout) tokens(y *Node, transposed bool) *Node {
	if l.gather {
		return Reshape(y, l.b, l.n, y.Shape().Dimensions[1])
	}
	first := 2 * l.pad
	if transposed {
		first = 3 * l.pad
	}
	return sampleRows(y, first, l.b, l.n, l.pad)
}

// gatherRows gathers from x [S, c'] (samples laid out by seqRows with pad zero
// rows before each) for token (b, j) and each offset o the row
// b·(n+pad)+j+o: [B·n, len(offsets)·c'].
func (l convLayout) gatherRows(x *Node, offsets []int) *Node {
	idx := make([]int32, 0, l.b*l.n*len(offsets))
	for bi := 0; bi < l.b; bi++ {
		for j := 0; j < l.n; j++ {
			for _, o := range offsets {
				idx = append(idx, int32(bi*(l.n+l.pad)+j+o))
			}
		}
	}
	indices := Reshape(Const(x.Graph(), idx), l.b*l.n, len(offsets), 1)
	return Reshape(Gather(x, indices), l.b*l.n, len(offsets)*x.Shape().Dimensions[1])
}

// seqRows lays the samples of x [B, n, c] end to end along the rows of a matrix
// [before + B·(n+gap) + after, c]: before zero rows, then each sample followed
// by gap zero rows, then after zero rows. Two Pads (block copies).
func seqRows(x *Node, before, gap, after int) *Node {
	b, n, c := x.Shape().Dimensions[0], x.Shape().Dimensions[1], x.Shape().Dimensions[2]
	zero := ScalarZero(x.Graph(), x.DType())
	rows := Reshape(Pad(x, zero, PadAxis{}, PadAxis{End: gap}, PadAxis{}), b*(n+gap), c)
	return Pad(rows, zero, PadAxis{Start: before, End: after}, PadAxis{})
}

// sampleRows is the inverse of seqRows for y [rows, c] whose sample b, token j
// is row first+b·(n+gap)+j: [B, n, c].
func sampleRows(y *Node, first, b, n, gap int) *Node {
	c := y.Shape().Dimensions[1]
	rows := Slice(y, AxisRange(first, first+b*(n+gap)), AxisRange())
	return Slice(Reshape(rows, b, n+gap, c), AxisRange(), AxisRange(0, n), AxisRange())
}

// shiftedRows concatenates along the columns copies of x [rows, c] shifted down
// by each of shifts (0 ≤ shift ≤ maxShift), as rows+maxShift rows:
// [rows+maxShift, len(shifts)·c]. Row r of copy s is x[r−s] (zero outside).
func shiftedRows(x *Node, shifts []int, maxShift int) *Node {
	zero := ScalarZero(x.Graph(), x.DType())
	parts := make([]*Node, len(shifts))
	for j, s := range shifts {
		parts[j] = Pad(x, zero, PadAxis{Start: s, End: maxShift - s}, PadAxis{})
	}
	return concatOrSingle(parts, 1)
}

// convRing is one ring of NestedSameConvs: the taps (positions in the largest
// window) that kernel users−1 has and no smaller kernel has, as runs [start, end)
// — two, left and right, except the innermost ring — covered by kernels 0…users−1.
type convRing struct {
	runs  [][2]int
	taps  []int
	users int
}

// nestedRings cuts the largest window of the nested kernels (sizes kernels,
// decreasing, first taps offsets) into rings, innermost first. A kernel as large
// as the next smaller one adds no ring.
func nestedRings(kernels, offsets []int) []convRing {
	var rings []convRing
	for i := len(kernels) - 1; i >= 0; i-- {
		lo, hi := offsets[i], offsets[i]+kernels[i]
		var runs [][2]int
		if i == len(kernels)-1 {
			runs = [][2]int{{lo, hi}}
		} else if inLo, inHi := offsets[i+1], offsets[i+1]+kernels[i+1]; inLo > lo {
			runs = [][2]int{{lo, inLo}, {inHi, hi}} // odd sizes, common centre: as many taps each side
		}
		if len(runs) == 0 {
			continue
		}
		rg := convRing{runs: runs, users: i + 1}
		for _, run := range runs {
			for t := run[0]; t < run[1]; t++ {
				rg.taps = append(rg.taps, t)
			}
		}
		rings = append(rings, rg)
	}
	return rings
}

// ringRun names run number run of ring number ring.
type ringRun struct{ ring, run int }

// kernelRuns lists, in tap order, where kernel i's taps are among the rings:
// the left runs from the outermost ring covering i inwards, the innermost ring,
// then the right runs outwards.
func kernelRuns(rings []convRing, i int) []ringRun {
	var left, right []ringRun
	for r, rg := range rings {
		if rg.users <= i {
			continue
		}
		if r == 0 {
			left = append(left, ringRun{0, 0})
			continue
		}
		left = append([]ringRun{{r, 0}}, left...)
		right = append(right, ringRun{r, 1})
	}
	return append(left, right...)
}

// widen pads the columns of y [rows, cols] with zeros up to width.
func widen(y *Node, width int) *Node {
	rows, cols := y.Shape().Dimensions[0], y.Shape().Dimensions[1]
	if cols >= width {
		return y
	}
	return Concatenate([]*Node{y, Zeros(y.Graph(), shapes.Make(y.DType(), rows, width-cols))}, 1)
}

// concatOrSingle concatenates parts along axis, or returns the only part.
func concatOrSingle(parts []*Node, axis int) *Node {
	if len(parts) == 1 {
		return parts[0]
	}
	return Concatenate(parts, axis)
}

// MaxPool3 is MaxPool1d(3, stride 1, padding 1) along axis 1 of x [B, n, c]:
// the maximum of each token and its two neighbours, −∞ beyond the ends.
//
// Its gradient is written by hand (see WithGradient): each output's gradient
// goes to the first maximum of its window (previous, own, next token), as
// PyTorch's and as GoMLX's differentiation of Max(Max(prev, x), next) — which
// builds it from Sign-based indicators and takes the shifted copies apart again.
func MaxPool3(x *Node) *Node {
	b, n, c := x.Shape().Dimensions[0], x.Shape().Dimensions[1], x.Shape().Dimensions[2]
	if n == 1 {
		return x
	}
	var prev, next, inner *Node
	return WithGradient([]*Node{x},
		func(in []*Node) *Node {
			edge := BroadcastToDims(Infinity(x.Graph(), x.DType(), -1), b, 1, c)
			prev = Concatenate([]*Node{edge, Slice(in[0], AxisRange(), AxisRange(0, n-1))}, 1)
			next = Concatenate([]*Node{Slice(in[0], AxisRange(), AxisRange(1, n)), edge}, 1)
			inner = Max(prev, in[0])
			return Max(inner, next)
		},
		func(in []*Node, _, v *Node) []*Node {
			// Where the maximum is the previous (next) token; −∞ never is.
			toNext := LessThan(inner, next)
			toPrev := LogicalAnd(GreaterOrEqual(prev, in[0]), LogicalNot(toNext))
			zeros := ZerosLike(v)
			gPrev := Where(toPrev, v, zeros)
			gNext := Where(toNext, v, zeros)
			own := Sub(Sub(v, gPrev), gNext)
			edge := Zeros(x.Graph(), shapes.Make(v.DType(), b, 1, c))
			fromNext := Concatenate([]*Node{Slice(gPrev, AxisRange(), AxisRange(1, n)), edge}, 1)   // token t's share of output t+1
			fromPrev := Concatenate([]*Node{edge, Slice(gNext, AxisRange(), AxisRange(0, n-1))}, 1) // token t's share of output t−1
			return []*Node{Add(Add(own, fromNext), fromPrev)}
		})
}
