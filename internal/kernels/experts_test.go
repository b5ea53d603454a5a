package kernels

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
)

// TestDispatchBlock checks when the routed form is chosen, the block sizes
// for each minimum, and that the padded buffer always holds every expert's
// rows rounded up to whole blocks.
func TestDispatchBlock(t *testing.T) {
	for _, c := range []struct {
		t, e, k, minBlock int
		mode              DispatchMode
		want              int
		why               string
	}{
		{1000, 2, 2, 8, DispatchAuto, 0, "k = Ĉ: every expert runs anyway"},
		{1000, 3, 1, 8, DispatchDense, 0, "forced dense"},
		{4, 2, 1, 8, DispatchAuto, 0, "4 tokens: padding would cost more than it saves"},
		{4, 2, 1, 8, DispatchRouted, 8, "forced routed: the smallest block"},
		{4, 2, 1, 256, DispatchRouted, 256, "forced routed: the minimum block"},
		{1952, 2, 1, 8, DispatchAuto, 128, "rows 0.59 of dense"},
		{1952, 2, 1, 256, DispatchAuto, 0, "256-row blocks: rows 0.66 of dense"},
		{1952, 3, 1, 256, DispatchAuto, 256, "256-row blocks: rows 0.48 of dense"},
		{1008, 2, 1, 256, DispatchAuto, 0, "the benchmark's sparse layer on pure Go: rows 0.76 of dense"},
		{7968, 3, 1, 256, DispatchAuto, 256, "Fig 3 at T=3984, 50%: rows 0.37 of dense"},
		{1952, 5, 1, 8, DispatchAuto, 64, "Ĉ=5: a quarter of the 390 rows per expert, rounded down"},
		{100000, 60, 1, 1024, DispatchRouted, 1024, "minimum above 256"},
	} {
		if got := DispatchBlock(c.t, c.e, c.k, c.minBlock, c.mode); got != c.want {
			t.Errorf("%d tokens, Ĉ=%d, k=%d, min %d: block %d, want %d (%s)", c.t, c.e, c.k, c.minBlock, got, c.want, c.why)
		}
	}
	for _, c := range []struct{ t, e, k int }{{1952, 2, 1}, {992, 3, 1}, {5000, 10, 3}, {100000, 60, 1}} {
		for _, minBlock := range []int{8, 256} {
			blk := DispatchBlock(c.t, c.e, c.k, minBlock, DispatchRouted)
			a := c.t * c.k
			// Worst case: every expert but one has one row, each padded to a block.
			worst := (a-(c.e-1)+blk-1)/blk*blk + (c.e-1)*blk
			if rows := routedRows(a, c.e, blk); rows < worst || rows < a {
				t.Errorf("%+v: %d rows cannot hold the worst case %d", c, rows, worst)
			}
			if blk < minBlock || blk > max(256, minBlock) || blk&(blk-1) != 0 {
				t.Errorf("%+v, min %d: block %d", c, minBlock, blk)
			}
		}
	}
}

// TestMinDispatchBlock: on the pure-Go backend a block's product must reach
// 4 Mi multiply-adds (GoMLX's packed matmul kernel).
func TestMinDispatchBlock(t *testing.T) {
	g := graph.NewGraph(testBackend(t), "min-block")
	for _, c := range []struct{ d, dh, want int }{{128, 128, 256}, {64, 64, 1024}, {256, 256, 64}, {512, 512, 16}} {
		if got := MinDispatchBlock(g, c.d, c.dh); got != c.want {
			t.Errorf("d=%d, dh=%d: %d, want %d", c.d, c.dh, got, c.want)
		}
	}
}

// TestRoutedExpertsMatchDense runs the MLP experts each way (dense, routed and,
// for top-1, Top1MLP) on random tokens,
// weights and router probabilities (top-1 and top-2 of 3 and 5 experts,
// including experts that receive no token) and compares the outputs and the
// gradients with respect to the tokens, every weight and the router logits, in
// float64 (top-1 gates p/(p+1e-6) make the logits' gradient a difference of
// near-equal terms, too noisy in float32 to compare two summation orders).
func TestRoutedExpertsMatchDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	randn := func(dims ...int) *tensors.Tensor {
		n := 1
		for _, d := range dims {
			n *= d
		}
		v := make([]float64, n)
		for i := range v {
			v[i] = rng.NormFloat64()
		}
		return tensors.FromFlatDataAndDimensions(v, dims...)
	}
	for _, c := range []struct{ t, e, k, d int }{{37, 3, 1, 6}, {64, 5, 2, 4}, {50, 5, 1, 4}, {9, 4, 3, 5}} {
		dh := c.d
		inputs := []*tensors.Tensor{randn(c.t, c.d), randn(c.t, c.e), randn(c.d, c.e*dh), randn(c.e * dh), randn(c.e*dh, c.d), randn(c.e, c.d)}
		outs := map[string][]float64{}
		var scales []float64
		forms := []string{"dense", "routed"}
		if c.k == 1 {
			forms = append(forms, "top1")
		}
		for _, form := range forms {
			routed := form != "dense"
			exec, err := graph.NewExec(testBackend(t), func(x []*graph.Node) []*graph.Node {
				tokens, logits := x[0], x[1]
				if c.e == 5 && c.k == 1 { // leave experts 3 and 4 without any token
					logits = graph.Add(logits, graph.Const(logits.Graph(), [][]float64{{0, 0, 0, -30, -30}}))
				}
				p := graph.Softmax(logits, -1)
				gates, mask := testTopKGates(p, c.k)
				w := ExpertWeights{W1: x[2], B1: x[3], W2: x[4], B2: x[5]}
				noDropout := func(h *graph.Node) *graph.Node { return h }
				var y *graph.Node
				switch form {
				case "routed":
					y = DispatchedMLP(tokens, gates, mask, c.k, DispatchBlock(c.t, c.e, c.k, 8, DispatchRouted), w, noDropout)
				case "top1":
					y = Top1MLP(tokens, gates, mask, w, noDropout)
				default:
					y = DenseMLP(tokens, gates, w, noDropout)
				}
				wts := graph.Iota(y.Graph(), y.Shape(), 0)
				loss := graph.ReduceAllSum(graph.Mul(graph.Square(y), graph.AddScalar(wts, 1)))
				return append([]*graph.Node{y}, graph.Gradient(loss, x[0], x[1], x[2], x[3], x[4], x[5])...)
			})
			if err != nil {
				t.Fatal(err)
			}
			args := make([]any, len(inputs))
			for i, in := range inputs {
				args[i] = in
			}
			res, err := exec.Call(args...)
			if err != nil {
				t.Fatal(err)
			}
			name := form
			for _, r := range res {
				outs[name] = append(outs[name], tensors.MustCopyFlatData[float64](r)...)
				if !routed { // each output compared at the scale of its largest value
					v := tensors.MustCopyFlatData[float64](r)
					scale := 1.0
					for _, x := range v {
						scale = math.Max(scale, math.Abs(x))
					}
					for range v {
						scales = append(scales, scale)
					}
				}
			}
		}
		for _, form := range forms[1:] {
			nonZero := 0
			for i, v := range outs[form] {
				want := outs["dense"][i]
				if math.IsNaN(v) || math.Abs(v-want) > 1e-9*scales[i] {
					t.Fatalf("%+v: %s differs from dense at %d: %v vs %v", c, form, i, v, want)
				}
				if v != 0 {
					nonZero++
				}
			}
			if nonZero < len(outs[form])/2 {
				t.Errorf("%+v: %s: only %d of %d values non-zero", c, form, nonZero, len(outs[form]))
			}
		}
	}
}

// testTopKGates is the model's router gating (softshape's topKGates, Eq. 6–7):
// the k largest probabilities of each row of p [T, E] renormalised,
// p_i / (Σ_selected p + 1e-6), zero elsewhere, and the 0/1 mask of the
// selected experts; ties go to the lower index. Gradients flow through p only.
func testTopKGates(p *graph.Node, k int) (gates, mask *graph.Node) {
	g := p.Graph()
	rows, e := p.Shape().Dimensions[0], p.Shape().Dimensions[1]
	if k == 1 {
		mask = graph.OneHot(graph.ArgMax(graph.StopGradient(p), -1), e, p.DType())
	} else {
		x := graph.StopGradient(p)
		xi := graph.BroadcastToDims(graph.Reshape(x, rows, e, 1), rows, e, e)
		xj := graph.BroadcastToDims(graph.Reshape(x, rows, 1, e), rows, e, e)
		iota := func(axis int) *graph.Node { return graph.Iota(g, shapes.Make(dtypes.Int32, rows, e, e), axis) }
		beats := graph.LogicalOr(graph.GreaterThan(xj, xi), graph.LogicalAnd(graph.Equal(xj, xi), graph.LessThan(iota(2), iota(1))))
		rank := graph.ReduceSum(graph.ConvertDType(beats, dtypes.Int32), 2)
		mask = graph.ConvertDType(graph.LessThan(rank, graph.Scalar(g, dtypes.Int32, k)), p.DType())
	}
	selected := graph.Mul(p, mask)
	gates = graph.Div(selected, graph.AddScalar(graph.ReduceAndKeep(selected, graph.ReduceSum, -1), 1e-6))
	return gates, mask
}
