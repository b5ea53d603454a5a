package softshape

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
)

// TestDispatchBlock checks when the routed form is chosen and that its padded
// buffer always holds every expert's rows rounded up to whole blocks.
func TestDispatchBlock(t *testing.T) {
	if b := dispatchBlock(1000, 2, 2, dispatchAuto); b != 0 {
		t.Errorf("k = Ĉ: block %d, want dense (0)", b)
	}
	if b := dispatchBlock(1000, 3, 1, dispatchDense); b != 0 {
		t.Errorf("forced dense: block %d", b)
	}
	if b := dispatchBlock(4, 2, 1, dispatchAuto); b != 0 {
		t.Errorf("4 tokens, 2 experts: block %d, want dense (padding would cost more than it saves)", b)
	}
	if b := dispatchBlock(4, 2, 1, dispatchRouted); b != 8 {
		t.Errorf("forced routed on 4 tokens: block %d, want the smallest, 8", b)
	}
	if b := dispatchBlock(1952, 2, 1, dispatchAuto); b != 0 {
		t.Errorf("1952 tokens, Ĉ=2, k=1: block %d, want dense (0): routed would save too little", b)
	}
	if b := dispatchBlock(1952, 3, 1, dispatchAuto); b != 0 {
		t.Errorf("1952 tokens, Ĉ=3, k=1: block %d, want dense (0)", b)
	}
	if b := dispatchBlock(1952, 5, 1, dispatchAuto); b != 64 {
		t.Errorf("1952 tokens, Ĉ=5, k=1: block %d, want 64", b)
	}
	for _, c := range []struct{ t, e, k int }{{1952, 2, 1}, {992, 3, 1}, {5000, 10, 3}, {100000, 60, 1}} {
		blk := dispatchBlock(c.t, c.e, c.k, dispatchRouted)
		a := c.t * c.k
		// Worst case: every expert but one has one row, each padded to a block.
		worst := (a-(c.e-1)+blk-1)/blk*blk + (c.e-1)*blk
		if rows := routedRows(a, c.e, blk); rows < worst || rows < a {
			t.Errorf("%+v: %d rows cannot hold the worst case %d", c, rows, worst)
		}
		if blk < 8 || blk > 256 || blk&(blk-1) != 0 {
			t.Errorf("%+v: block %d", c, blk)
		}
	}
}

// TestRoutedExpertsMatchDense runs the MLP experts each way (dense, routed and,
// for top-1, top1MLP) on random tokens,
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
				gates, mask := topKGates(p, c.k)
				w := expertWeights{w1: x[2], b1: x[3], w2: x[4], b2: x[5]}
				noDropout := func(h *graph.Node) *graph.Node { return h }
				var y *graph.Node
				switch form {
				case "routed":
					y = dispatchedMLP(tokens, gates, mask, c.k, dispatchBlock(c.t, c.e, c.k, dispatchRouted), w, noDropout)
				case "top1":
					y = top1MLP(tokens, gates, mask, w, noDropout)
				default:
					y = denseMLP(tokens, gates, w, noDropout)
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
