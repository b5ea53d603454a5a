package softshape

import (
	"fmt"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // graph code reads best dot-imported, as in GoMLX's examples.
	"github.com/gomlx/gomlx/ml/layers"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/softshape-go/softshape/internal/kernels"
)

// A run axis trains R independent runs of one architecture as one model: every
// variable has a leading axis of R (run i's weights are row i), and every
// activation holds the R runs' batches one after the other along its batch
// axis (rows i·B … i·B+B−1 are run i's). One kernel then serves all R runs,
// which is what a latency-bound GPU step wants (docs/performance.md, "Many runs in
// one graph"). The model file does not change: the layer helpers below create the
// variables with the run axis and multiply run by run when the model's
// Build.Runs = R > 1, and run exactly the single-run graph otherwise.
//
// What mixes the rows of a batch is done run by run: the MoE's importance and
// load (one coefficient of variation per run), its experts (each run's tokens
// through its own experts, kernels.MLPExperts as a single run builds it) and
// dropout, drawn for each run from its own RNG state (the store variable
// runRNGStatesName, [R, state]) exactly as that run alone would draw it. A
// training step whose runs' batches are padded says which rows are real
// (runRows), and those row-mixing steps see only the real ones.

// runRNGStatesName is the root-scope variable holding the R runs' RNG states
// [R, state] of a store with a run axis.
const runRNGStatesName = "run_rng_states"

// runs returns R, the runs on the run axis, or 1 without one.
func (b Build) runs() int { return max(b.Runs, 1) }

// onRunAxis returns a copy of m that trains r runs at once on a run axis
// (Build.Runs = r).
func onRunAxis(m *Model, r int) *Model {
	c := *m
	c.Runs = r
	return &c
}

// RunAxisSupported reports whether cfg's architecture can be trained with a
// run axis: every choice of the paper's main model and of the sweeps, but not
// the appendix's Transformer shared expert (GoMLX's attention and LayerNorm
// layers) nor the FCN and ICB MoE experts, which create their variables
// themselves.
func RunAxisSupported(cfg Config) error {
	if cfg.SharedExpert == SharedExpertTransformer {
		return fmt.Errorf("%s=%s has no run axis", ParamSharedExpert, cfg.SharedExpert)
	}
	if cfg.Intra && (cfg.MoEExpert == MoEExpertFCN || cfg.MoEExpert == MoEExpertICB) {
		return fmt.Errorf("%s=%s has no run axis", ParamMoEExpert, cfg.MoEExpert)
	}
	return nil
}

// param returns the variable name of scope with the given dimensions, and a
// leading axis of R when scope has a run axis; it is created with scope's
// initializer on first use.
func (b Build) param(scope *model.Scope, name string, dtype dtypes.DType, dims ...int) *model.Variable {
	if r := b.runs(); r > 1 {
		dims = append([]int{r}, dims...)
	}
	return scope.VariableWithShape(name, shapes.Make(dtype, dims...))
}

// matMul multiplies the last axis of x by w: [in, out] (kernels.MatMul2D), or
// with a run axis w [R, in, out], each run's rows of x by its own matrix
// (kernels.BatchedMatMul); with Build.Plain their plain forms.
func (b Build) matMul(x, w *Node) *Node {
	if w.Rank() == 2 {
		return matMul2DOf(x, w, b.Plain)
	}
	r, in, out := w.Shape().Dimensions[0], w.Shape().Dimensions[1], w.Shape().Dimensions[2]
	dims := x.Shape().Dimensions
	y := batchedMatMulOf(Reshape(x, r, -1, in), w, b.Plain) // [R, rows, out]
	return Reshape(y, append(append([]int{}, dims[:len(dims)-1]...), out)...)
}

// addBias adds b [out] to the last axis of x (kernels.AddBias), or with a run
// axis b [R, out], each run's own.
func addBias(x, b *Node) *Node {
	if b.Rank() == 1 {
		return kernels.AddBias(x, b)
	}
	return onRuns(x, b, Add)
}

// onRuns applies op to x [R·B, a…, k…] and v [R, k…], run by run: run i's rows
// of x with row i of v, broadcast over the rest.
func onRuns(x, v *Node, op func(a, b *Node) *Node) *Node {
	r := v.Shape().Dimensions[0]
	k := v.Shape().Dimensions[1:]
	dims := x.Shape().Dimensions
	xr := Reshape(x, append([]int{r, -1}, dims[len(dims)-len(k):]...)...)
	vr := Reshape(v, append([]int{r, 1}, k...)...)
	return Reshape(op(xr, vr), dims...)
}

// addBroadcast adds v to x as Add does (e.g. v [1, J, d] to x [B, J, d]);
// with a run axis v has a leading R (e.g. [R, 1, J, d]) and each run's rows of
// x get their own row of v.
func addBroadcast(x, v *Node) *Node {
	if v.Rank() == x.Rank() {
		return Add(x, v)
	}
	r := v.Shape().Dimensions[0]
	dims := x.Shape().Dimensions
	return Reshape(Add(Reshape(x, append([]int{r, -1}, dims[1:]...)...), v), dims...)
}

// sameConvs is kernels.NestedSameConvs (the Inception's three "same"
// convolutions of z [B, n, c], concatenated); with a run axis (ws[i]
// [R, k_i·c, o_i]), and as its plain form (Build.Plain), each convolution is
// its windows times the runs' kernels.
func (b Build) sameConvs(z *Node, ws []*Node, sizes []int, gather bool) *Node {
	if ws[0].Rank() == 2 && !b.Plain {
		return kernels.NestedSameConvs(z, ws, sizes, gather)
	}
	outs := make([]*Node, len(sizes))
	for i, k := range sizes {
		outs[i] = b.matMul(sameWindows(z, k), ws[i])
	}
	return Concatenate(outs, -1)
}

// dropout is layers.DropoutStatic; with a run axis each run's rows are dropped
// with a mask from the run's own RNG state (its real rows only, see runRows).
func (b Build) dropout(scope *model.Scope, x *Node, rate float64) *Node {
	r := b.runs()
	g := x.Graph()
	if r == 1 || rate <= 0 || !scope.IsTraining(g) {
		return layers.DropoutStatic(scope, x, rate)
	}
	real, pad := realRuns(scope, x, r)
	var parts []*Node
	for i := range real {
		if real[i] != nil {
			withRunRNG(scope, g, i, func() { parts = append(parts, layers.DropoutStatic(scope, real[i], rate)) })
		}
		if pad[i] != nil {
			parts = append(parts, pad[i])
		}
	}
	return Concatenate(parts, 0)
}

// paramRunRows is the graph parameter (of the root scope) by which a
// run-axis training step says that its runs' batches are padded: a *runRows.
const paramRunRows = "softshape_run_rows"

// runRows says which rows of a padded run-axis batch are real: run i's block
// of the batch axis holds Block samples, of which the first Real[i] are its
// batch and the rest padding. What mixes the rows of a batch (dropout's
// random stream, the MoE's experts and balance statistics) sees only the real
// ones, as the run alone would.
type runRows struct {
	Block int
	Real  []int
}

// realRuns cuts axis 0 of x into its r runs' blocks and each block into its
// real rows and its padding (nil where there are none). x's rows are samples
// or, as the MoE's tokens, a fixed number of rows per sample.
func realRuns(scope *model.Scope, x *Node, r int) (real, pad []*Node) {
	block := x.Shape().Dimensions[0] / r
	real, pad = make([]*Node, r), make([]*Node, r)
	var rr *runRows
	if v, ok := scope.Store().RootScope().GetGraphParam(x.Graph(), paramRunRows); ok {
		rr, _ = v.(*runRows)
	}
	for i := range r {
		n := block
		if rr != nil {
			n = rr.Real[i] * (block / rr.Block)
		}
		if n > 0 {
			real[i] = Slice(x, AxisRange(i*block, i*block+n))
		}
		if n < block {
			pad[i] = Slice(x, AxisRange(i*block+n, (i+1)*block))
		}
	}
	return real, pad
}

// runRow returns row i of v [R, …]: run i's value of a variable.
func runRow(v *Node, i int) *Node {
	return Squeeze(Slice(v, AxisElem(i)), 0)
}

// withRunRNG runs build with the store's RNG state replaced by run i's (the
// root-scope variable runRNGStates), so that the random numbers build draws
// are run i's, and stores the advanced state back in row i. Outside training
// (no dropout) it only runs build.
func withRunRNG(scope *model.Scope, g *Graph, i int, build func()) {
	if !scope.IsTraining(g) { // no dropout: nothing is drawn
		build()
		return
	}
	store := scope.Store()
	rng := store.GetVariable(model.JoinPath("/", model.RNGStateVariableName))
	states := store.GetVariable(model.JoinPath("/", runRNGStatesName))
	if rng == nil || states == nil {
		panic(fmt.Sprintf("softshape: a run axis draws random numbers, but the store has no %s and %s", model.RNGStateVariableName, runRNGStatesName))
	}
	saved := rng.NodeValue(g)
	all := states.NodeValue(g)
	rng.SetNodeValue(runRow(all, i))
	build()
	rows := make([]*Node, all.Shape().Dimensions[0])
	for k := range rows {
		rows[k] = Slice(all, AxisElem(k))
	}
	rows[i] = InsertAxes(rng.NodeValue(g), 0)
	states.SetNodeValue(Concatenate(rows, 0))
	rng.SetNodeValue(saved)
}

// sumTokens sums x [T, E] over its tokens: [E]; with a run axis (the tokens
// of run i the i-th block of rows) each run's real tokens: [R, E].
func (b Build) sumTokens(scope *model.Scope, x *Node) *Node {
	r := b.runs()
	if r == 1 {
		return ReduceSum(x, 0)
	}
	real, _ := realRuns(scope, x, r)
	sums := make([]*Node, r)
	for i, xi := range real {
		if xi == nil {
			sums[i] = Zeros(x.Graph(), shapes.Make(x.DType(), x.Shape().Dimensions[1]))
		} else {
			sums[i] = ReduceSum(xi, 0)
		}
	}
	return Stack(sums, 0)
}

// expertsByRun runs experts on tokens [T, d] with their gates and mask
// [T, E] and weights w; with a run axis (w's variables [R, …]) it runs each
// run's real tokens through its own weights, drawing the run's own random
// numbers (its padding gets zeros), and concatenates the results.
func expertsByRun(scope *model.Scope, tokens, gates, mask *Node, w kernels.ExpertWeights,
	experts func(tokens, gates, mask *Node, w kernels.ExpertWeights) *Node) *Node {
	if w.W1.Rank() == 2 {
		return experts(tokens, gates, mask, w)
	}
	r := w.W1.Shape().Dimensions[0]
	ts, pad := realRuns(scope, tokens, r)
	gs, _ := realRuns(scope, gates, r)
	ms, _ := realRuns(scope, mask, r)
	var outs []*Node
	for i := range r {
		if ts[i] != nil {
			wi := kernels.ExpertWeights{W1: runRow(w.W1, i), B1: runRow(w.B1, i), W2: runRow(w.W2, i), B2: runRow(w.B2, i)}
			withRunRNG(scope, tokens.Graph(), i, func() { outs = append(outs, experts(ts[i], gs[i], ms[i], wi)) })
		}
		if pad[i] != nil {
			outs = append(outs, ZerosLike(pad[i]))
		}
	}
	return Concatenate(outs, 0)
}

// perRunCV2 is cv2 of each run's row of x [R, E]: [R].
func perRunCV2(x *Node) *Node {
	e := x.Shape().Dimensions[1]
	if e < 2 {
		return Zeros(x.Graph(), shapes.Make(x.DType(), x.Shape().Dimensions[0]))
	}
	mean := ReduceAndKeep(x, ReduceMean, 1)
	variance := DivScalar(ReduceSum(Square(Sub(x, mean)), 1), float64(e-1))
	return Div(variance, AddScalar(Square(Reshape(mean, -1)), 1e-10))
}
