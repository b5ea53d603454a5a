package fit

import (
	"fmt"
	"path"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/model/initializer"
	"github.com/gomlx/gomlx/ml/train/optimizer"
)

// Adam's settings, as softshape.Train's optimiser has them (GoMLX's
// optimizer.Adam with Epsilon(1e-8)).
const (
	AdamBeta1   = 0.9
	AdamBeta2   = 0.999
	AdamEpsilon = 1e-8
)

// AdamRates is what one Adam step of a variable needs besides its gradient
// and moments: the learning rate and the debiasing factors D1 = 1/(1−β₁ᵗ)
// and D2 = 1/(1−β₂ᵗ) of the step count t. They are scalars for a variable of
// one run, or shaped to broadcast one per run along the run axis of a
// variable that holds several runs (Reshape).
type AdamRates struct{ LR, D1, D2 *graph.Node }

// NewAdamRates returns the rates of learning rate lr at step count step, the
// count including this step (1 at the first); both of one shape, a scalar
// or one per run.
func NewAdamRates(lr, step *graph.Node) AdamRates {
	g, dtype := step.Graph(), step.DType()
	b1 := graph.Const(g, shapes.CastAsDType(AdamBeta1, dtype))
	b2 := graph.Const(g, shapes.CastAsDType(AdamBeta2, dtype))
	return AdamRates{LR: lr,
		D1: graph.Reciprocal(graph.OneMinus(graph.Pow(b1, step))),
		D2: graph.Reciprocal(graph.OneMinus(graph.Pow(b2, step)))}
}

// Reshape returns the rates reshaped to dims, e.g. [R, 1, …, 1] to apply
// one run's rates to each row of a variable with a run axis.
func (r AdamRates) Reshape(dims ...int) AdamRates {
	return AdamRates{LR: graph.Reshape(r.LR, dims...), D1: graph.Reshape(r.D1, dims...), D2: graph.Reshape(r.D2, dims...)}
}

// AdamUpdate is one step of GoMLX's Adam (optimizer.Adam, the arithmetic of
// its applyAdamGraph, op for op) on every trainable variable of scope that g
// uses, grads being scope.BuildTrainableVariablesGradientsGraph's (the same
// order). A variable's moments are variables of store under the scope
// moments and its own scope (moments "/adam": /adam/layer/w_1st_moment for
// /layer/w), zero at first, in dtype, the dtype of the loss. rates(v) gives v's
// AdamRates and keep: nil updates all of v; a boolean node of v's shape
// leaves v and its moments as they were where it is false (runs of a run
// axis that sit the step out). AdamUpdate panics when the variables and
// gradients do not pair up.
func AdamUpdate(store *model.Store, moments string, scope *model.Scope, g *graph.Graph, grads []*graph.Node, dtype dtypes.DType,
	rates func(v *model.Variable) (r AdamRates, keep *graph.Node)) {
	b1 := graph.Const(g, shapes.CastAsDType(AdamBeta1, dtype))
	b2 := graph.Const(g, shapes.CastAsDType(AdamBeta2, dtype))
	eps := graph.Const(g, shapes.CastAsDType(AdamEpsilon, dtype))
	eachGradient(scope, g, grads, func(v *model.Variable, grad *graph.Node) {
		r, keep := rates(v)
		m1Var, m2Var := adamMoments(store, moments, v, dtype)
		m1Old, m2Old, old := m1Var.NodeValue(g), m2Var.NodeValue(g), v.NodeValue(g)
		value := old
		if value.DType() != dtype {
			value = graph.ConvertDType(value, dtype)
		}
		m1, m2, updated := adamArithmetic(value, grad, m1Old, m2Old, r.LR, b1, b2, r.D1, r.D2, eps)
		if v.Shape().DType != dtype {
			updated = graph.ConvertDType(updated, v.Shape().DType)
		}
		if keep != nil {
			m1, m2, updated = graph.Where(keep, m1, m1Old), graph.Where(keep, m2, m2Old), graph.Where(keep, updated, old)
		}
		m1Var.SetNodeValue(m1)
		m2Var.SetNodeValue(m2)
		v.SetNodeValue(updated)
	})
}

// eachGradient calls fn with each trainable variable that g uses and its
// gradient, grads being BuildTrainableVariablesGradientsGraph's (the same
// order); it panics when the two do not pair up.
func eachGradient(scope *model.Scope, g *graph.Graph, grads []*graph.Node, fn func(v *model.Variable, grad *graph.Node)) {
	i := 0
	for v := range scope.IterVariables() {
		if !v.Trainable || !v.InUseByGraph(g) {
			continue
		}
		if i >= len(grads) {
			panic("Adam: more trainable variables than gradients")
		}
		fn(v, grads[i])
		i++
	}
	if i != len(grads) {
		panic(fmt.Sprintf("Adam: %d gradients for %d trainable variables", len(grads), i))
	}
}

// adamMoments returns Adam's first and second moment variables of v in store
// (under the scope moments, zero-initialised), in dtype.
func adamMoments(store *model.Store, moments string, v *model.Variable, dtype dtypes.DType) (m1, m2 *model.Variable) {
	shape := v.Shape().Clone()
	shape.DType = dtype
	ms := store.Scope(path.Join(moments, v.Scope())).WithInitializer(initializer.Zero)
	return ms.VariableWithShape(v.Name()+"_1st_moment", shape).SetTrainable(false),
		ms.VariableWithShape(v.Name()+"_2nd_moment", shape).SetTrainable(false)
}

// adamArithmetic is one Adam update of value by grad with moments m1Old and
// m2Old, GoMLX's applyAdamGraph op for op: the new moments and value. lr and
// the debiasing factors d1, d2 are scalars, or shaped to broadcast one per
// run.
func adamArithmetic(value, grad, m1Old, m2Old, lr, b1, b2, d1, d2, eps *graph.Node) (m1, m2, updated *graph.Node) {
	if grad.DType() != value.DType() {
		grad = graph.ConvertDType(grad, value.DType())
	}
	m1 = graph.Add(graph.Mul(b1, m1Old), graph.Mul(graph.OneMinus(b1), grad))
	debiased1 := graph.Mul(m1, d1)
	m2 = graph.Add(graph.Mul(b2, m2Old), graph.Mul(graph.OneMinus(b2), graph.Square(grad)))
	denominator := graph.Add(graph.Sqrt(graph.Mul(m2, d2)), eps)
	step := graph.Div(graph.Mul(lr, debiased1), denominator)
	return m1, m2, graph.Sub(value, step)
}

// Adam is the Adam step of a run training alone (the single-run model):
// GoMLX's optimizer.Adam with LearningRate and Epsilon(AdamEpsilon), its
// update AdamUpdate's. Its variables are those of GoMLX's Adam (the
// learning rate, the global step, the step count and moments under
// AdamOptimizer), so the stores and checkpoints of either one are the
// other's.
type Adam struct {
	LearningRate float64
}

// UpdateGraph adds to g one Adam step of the trainable variables of scope
// on loss, a scalar.
func (a Adam) UpdateGraph(scope *model.Scope, g *graph.Graph, loss *graph.Node) {
	if !loss.Shape().IsScalar() {
		panic(fmt.Sprintf("Adam: the loss must be a scalar, not %s", loss.Shape()))
	}
	grads := scope.BuildTrainableVariablesGradientsGraph(loss)
	if len(grads) == 0 {
		panic("Adam: no trainable variables")
	}
	dtype := loss.DType()
	lr := optimizer.LearningRateVar(scope, dtype, a.LearningRate).NodeValue(g)
	optimizer.IncrementGlobalStep(g, dtype)
	step := optimizer.IncrementCounter(scope.At("%s", optimizer.AdamDefaultScope), g, "step", dtype)
	rates := NewAdamRates(lr, step)
	AdamUpdate(scope.Store(), path.Join("/", optimizer.AdamDefaultScope), scope, g, grads, dtype,
		func(*model.Variable) (AdamRates, *graph.Node) { return rates, nil })
}
