// Package flops counts the arithmetic of a SoftShape training run, for
// "softshape flops" (docs/performance.md, "Whole runs: where the time goes").
// Two counts of the matrix products, in FLOPs (a
// multiply-add is 2):
//   - as the graph computes it: every DotGeneral (and ConvGeneral) of the compiled training-step
//     and validation graphs, 2·(output size)·(contracted size), read from the
//     graphs themselves, so it includes what the graph multiplies by zeros
//     (convolution taps over padding, experts a token was not routed to,
//     products padded to 8 columns on pure Go);
//   - as the paper's operations need it (UsefulFLOPs): the same layers with
//     only the convolution taps that meet a token and only the k selected
//     experts of each token, and the gradients a training step needs.
//
// Element-wise work, copies and the optimizer are not FLOPs of products; the
// graph count lists them per operation (OpCount) as elements written.
//
// SaveStepModels writes the same epoch's graphs as ONNX models, for ONNX
// Runtime's per-operator profile ("softshape flops -onnx",
// scripts/ort-profile.sh).
package flops

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/shapes"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/train/loss"

	"github.com/softshape-go/softshape/data"
	"github.com/softshape-go/softshape/softshape"
	"github.com/softshape-go/softshape/softshape/fit"
)

// GraphCount is the arithmetic of one compiled graph.
type GraphCount struct {
	// DotFLOPs is 2·(output size)·(contracted size) summed over the graph's
	// matrix products (DotGeneral nodes) and convolutions (ConvGeneral nodes,
	// the speed forms' convolutions; the contracted size is the
	// kernel's size per output channel); Dots counts them.
	DotFLOPs int64
	Dots     int
	// Ops counts the graph's nodes and the elements they write, per operation.
	Ops map[string]OpCount
}

// OpCount is the nodes of one operation in a graph and the elements they write.
type OpCount struct {
	Nodes    int
	Elements int64
}

// dotAxesRe reads the contracting axes of a DotGeneral node from its
// description (graph.Node.String), the only place GoMLX exposes them.
var dotAxesRe = regexp.MustCompile(`lhsContractingAxes=\[([0-9 ]*)\]`)

// CountGraph counts the products and operations of a graph: the nodes the
// outputs need (a backend runs no others; a hand-written gradient leaves the
// automatic one unused, see kernels.WithGradient).
func CountGraph(outputs ...*graph.Node) (GraphCount, error) {
	c := GraphCount{Ops: map[string]OpCount{}}
	seen := map[*graph.Node]bool{}
	stack := slices.Clone(outputs)
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n == nil || seen[n] {
			continue
		}
		seen[n] = true
		stack = append(stack, n.Inputs()...)
		op := n.Type().String()
		oc := c.Ops[op]
		oc.Nodes++
		if n.NumOutputs() == 1 {
			oc.Elements += int64(n.Shape().Size())
		}
		c.Ops[op] = oc
		var k int64
		var err error
		switch n.Type() {
		case graph.NodeTypeDotGeneral:
			k, err = contractedSize(n)
		case graph.NodeTypeConvGeneral:
			k, err = kernelSizePerOutput(n)
		default:
			continue
		}
		if err != nil {
			return c, err
		}
		c.Dots++
		c.DotFLOPs += 2 * int64(n.Shape().Size()) * k
	}
	return c, nil
}

// contractedSize is the product of the contracted dimensions of a DotGeneral node.
func contractedSize(n *graph.Node) (int64, error) {
	m := dotAxesRe.FindStringSubmatch(n.String())
	if m == nil || len(n.Inputs()) < 1 {
		return 0, fmt.Errorf("counting FLOPs: cannot read the contracting axes of %s", n)
	}
	lhs := n.Inputs()[0].Shape()
	k := int64(1)
	for _, f := range strings.Fields(m[1]) {
		a, err := strconv.Atoi(f)
		if err != nil || a < 0 || a >= lhs.Rank() {
			return 0, fmt.Errorf("counting FLOPs: contracting axis %q of %s", f, n)
		}
		k *= int64(lhs.Dimensions[a])
	}
	return k, nil
}

// convOutRe reads the kernel's output-channel axis of a ConvGeneral node from
// its description (graph.Node.String).
var convOutRe = regexp.MustCompile(`KernelOutputChannels:([0-9]+)`)

// kernelSizePerOutput is the multiply-adds of one output element of a
// ConvGeneral node: its kernel's size over its output channels (with channel
// or batch groups too).
func kernelSizePerOutput(n *graph.Node) (int64, error) {
	m := convOutRe.FindStringSubmatch(n.String())
	if m == nil || len(n.Inputs()) < 2 {
		return 0, fmt.Errorf("counting FLOPs: cannot read the kernel axes of %s", n)
	}
	kernel := n.Inputs()[1].Shape()
	a, err := strconv.Atoi(m[1])
	if err != nil || a >= kernel.Rank() {
		return 0, fmt.Errorf("counting FLOPs: kernel output axis %q of %s", m[1], n)
	}
	return int64(kernel.Size() / kernel.Dimensions[a]), nil
}

// EpochCount is the arithmetic of one epoch of a phase: the training steps
// (batches TrainBatches) and the validation pass (ValBatches, evaluated on
// EvalPhase), as the graphs compute them and as the paper's operations need.
type EpochCount struct {
	Phase, EvalPhase           softshape.Phase
	TrainBatches, ValBatches   []int
	Train, Val                 int64 // graph DotFLOPs
	UsefulTrain, UsefulVal     int64
	TrainGraph, ValGraph       GraphCount // of the first training and validation batch
	TrainGraphBatch, ValGraphB int
}

// Report is the arithmetic of one run's epochs (Count).
type Report struct {
	Dataset string
	Backend string
	Shape   softshape.Shape
	// Tokens lists the tokens each layer's blocks see in the dense and in the
	// sparse phase (after the layer's merge).
	TokensDense, TokensSparse []int
	Kernels                   []int // the Inception's kernel sizes
	NumTrain, NumVal          int
	BatchSize                 int
	Epochs                    []EpochCount // dense, then sparse
}

// Count counts the matrix-product FLOPs of one epoch of each phase of a
// run of cfg on ds (fold 1 of opts' folds: its training and validation sizes
// and batch size), as the compiled graphs of opts.Backend compute them
// (CountGraph; it builds and compiles the graphs without running them) and
// as the paper's operations need them (UsefulFLOPs). The model is the one
// opts.Fast selects.
func Count(ds *data.Dataset, cfg softshape.Config, opts softshape.RunOptions) (*Report, error) {
	backend, m, fd, bs, err := softshape.FirstFold(ds, cfg, opts)
	if err != nil {
		return nil, err
	}
	if m.Scales != nil {
		return nil, fmt.Errorf("counting FLOPs: %s is not counted", softshape.ParamMultiSeq)
	}
	rep := &Report{Dataset: ds.Name, Backend: backend.Description(), Shape: m.Shape,
		TokensDense: layerTokens(m, softshape.Dense), TokensSparse: layerTokens(m, softshape.Sparse),
		Kernels: softshape.InceptionKernels(cfg.InceptionKernel), NumTrain: len(fd.TrainY), NumVal: len(fd.ValY), BatchSize: bs}
	store := model.NewStore()
	m.Config.Apply(store)
	if err := store.SetRNGStateFromSeed(opts.Seed); err != nil {
		return nil, fmt.Errorf("seeding the model: %w", err)
	}
	for _, phase := range []softshape.Phase{softshape.Dense, softshape.Sparse} {
		ec := EpochCount{Phase: phase, EvalPhase: cfg.EvalPhase(phase),
			TrainBatches: chunks(len(fd.TrainY), bs), ValBatches: chunks(len(fd.ValY), fit.EvalChunk)}
		counted := map[int]GraphCount{}
		for _, b := range ec.TrainBatches {
			gc, ok := counted[b]
			if !ok {
				if gc, err = countStep(backend, store, m, b, phase, true); err != nil {
					return nil, fmt.Errorf("counting the %s training step at batch %d: %w", phase, b, err)
				}
				counted[b] = gc
			}
			if ec.TrainGraph.Ops == nil {
				ec.TrainGraph, ec.TrainGraphBatch = gc, b
			}
			ec.Train += gc.DotFLOPs
			u, err := UsefulFLOPs(m, b, phase, true)
			if err != nil {
				return nil, err
			}
			ec.UsefulTrain += u
		}
		for _, b := range ec.ValBatches {
			gc, err := countStep(backend, store, m, b, ec.EvalPhase, false)
			if err != nil {
				return nil, fmt.Errorf("counting the %s validation pass at batch %d: %w", ec.EvalPhase, b, err)
			}
			if ec.ValGraph.Ops == nil {
				ec.ValGraph, ec.ValGraphB = gc, b
			}
			ec.Val += gc.DotFLOPs
			u, err := UsefulFLOPs(m, b, ec.EvalPhase, false)
			if err != nil {
				return nil, err
			}
			ec.UsefulVal += u
		}
		rep.Epochs = append(rep.Epochs, ec)
	}
	return rep, nil
}

// chunks cuts n items into batches of at most size: their sizes.
func chunks(n, size int) []int {
	var out []int
	for lo := 0; lo < n; lo += size {
		out = append(out, min(size, n-lo))
	}
	return out
}

// countStep builds the graph of one step of batch b in phase and counts
// it: the training step's loss (cross-entropy plus λ times the MoE's
// auxiliary loss, as the trainer's) and its gradients with respect to every
// trainable variable (the optimizer's update adds no products), or the
// inference pass's logits.
func countStep(backend compute.Backend, store *model.Store, m *softshape.Model, b int, phase softshape.Phase, training bool) (GraphCount, error) {
	var outputs []*graph.Node
	e, err := model.NewExec(backend, store, func(scope *model.Scope, x, y *graph.Node) *graph.Node {
		g := x.Graph()
		store.SetTraining(g, training)
		out := m.Forward(scope, x, phase)
		outputs = []*graph.Node{out.Logits}
		if !training {
			return out.Logits
		}
		l := graph.ReduceAllMean(loss.SparseCategoricalCrossEntropyLogits([]*graph.Node{y}, []*graph.Node{out.Logits}))
		if lambda := m.Config.MoELossWeight; lambda > 0 {
			l = graph.Add(l, graph.MulScalar(out.AuxLoss, lambda))
		}
		outputs = append([]*graph.Node{l}, scope.BuildTrainableVariablesGradientsGraph(l)...)
		return graph.Stack(outputs[:1], 0) // what the graph returns does not matter: outputs is counted
	})
	if err != nil {
		return GraphCount{}, err
	}
	if _, err := e.Compile(shapes.Make(softshape.InputDType, b, m.Shape.SeriesLen), shapes.Make(softshape.LabelDType, b, 1)); err != nil {
		return GraphCount{}, err
	}
	return CountGraph(outputs...)
}

// layerTokens returns the tokens each layer's blocks see in phase: the shapes
// J, or after a sparse layer's merge its K kept tokens (plus the fused one).
func layerTokens(m *softshape.Model, phase softshape.Phase) []int {
	cfg := m.Config
	remain := cfg.RemainFractions()
	n := m.Shape.NumShapes
	out := make([]int, cfg.Depth)
	for l := range out {
		if phase == softshape.Sparse && remain[l] < 1 {
			k := softshape.KeptTokens(remain[l], n)
			n = k
			if cfg.FusedToken {
				n++
			}
		}
		out[l] = n
	}
	return out
}

// UsefulFLOPs is the matrix-product arithmetic of the paper's operations on a
// batch of b series in phase, forward only or (training) forward and
// backward: each product x·W of r rows costs 2·r·in·out forward and twice
// that backward (the gradients of W and of x; none of x for the series
// themselves). Convolutions count only the (token, tap) pairs that meet a
// token (usefulTaps), the MoE only each token's k selected experts; the
// dropped tokens of a sparse layer are not processed further. It covers the
// main model's choices (the Inception or MLP shared expert, MLP experts).
func UsefulFLOPs(m *softshape.Model, b int, phase softshape.Phase, training bool) (int64, error) {
	cfg, sh := m.Config, m.Shape
	switch {
	case m.Scales != nil:
		return 0, fmt.Errorf("useful FLOPs: %s is not counted", softshape.ParamMultiSeq)
	case cfg.Inter && cfg.SharedExpert == softshape.SharedExpertTransformer:
		return 0, fmt.Errorf("useful FLOPs: %s=%s is not counted", softshape.ParamSharedExpert, cfg.SharedExpert)
	case cfg.Intra && cfg.MoEExpert != softshape.MoEExpertMLP:
		return 0, fmt.Errorf("useful FLOPs: %s=%s is not counted", softshape.ParamMoEExpert, cfg.MoEExpert)
	}
	d, B := int64(cfg.EmbedDim), int64(b)
	var fwd, bwd int64
	// product adds rows·in·out multiply-adds; input says whether x needs a gradient.
	product := func(rows, in, out int64, input bool) {
		f := 2 * rows * in * out
		fwd += f
		bwd += f // the weights' gradient
		if input {
			bwd += f
		}
	}
	n := int64(sh.NumShapes)
	product(B*n, int64(sh.ShapeLen), d, false) // shape embedding (Eq. 2)
	attn := func(tokens int64) {
		product(B*tokens, d, int64(cfg.AttnDim), true)
		product(B*tokens, int64(cfg.AttnDim), 1, true)
	}
	tokens := layerTokens(m, phase)
	remain := cfg.RemainFractions()
	for l, nl := range tokens {
		attn(n) // the scores of the layer's n tokens, before its merge
		t := int64(nl)
		if cfg.Inter {
			switch cfg.SharedExpert {
			case softshape.SharedExpertMLP:
				product(B*t, d, softshape.SharedMLPMult*d, true)
				product(B*t, softshape.SharedMLPMult*d, d, true)
			default:
				nf := d / 4
				product(B*t, d, nf, true) // bottleneck
				for _, k := range softshape.InceptionKernels(cfg.InceptionKernel) {
					product(B*usefulTaps(nl, k), nf, nf, true)
				}
				product(B*t, d, d-3*nf, true) // after the max-pool
			}
		}
		sparse := phase == softshape.Sparse && remain[l] < 1 // the layer sparsifies
		if cfg.Intra && (sparse || cfg.MoELayers == softshape.MoELayersAll) {
			e, k := int64(sh.NumExperts), int64(cfg.ExpertsK)
			product(B*t, d, e, true)   // router
			product(B*t*k, d, d, true) // each token's k experts, hidden width d
			product(B*t*k, d, d, true) // and back
		}
		if l == len(tokens)-1 {
			attn(t) // sEnd, the pooling scores
		}
		n = t
	}
	product(B*n, d, int64(sh.NumClasses), true) // the head
	if !training {
		return fwd, nil
	}
	return fwd + bwd, nil
}

// usefulTaps counts the (token, tap) pairs of a "same" convolution of odd
// kernel k over n tokens that meet a token: Σ over the offsets o of
// (k−1)/2 … (k−1)/2 of max(0, n−|o|). An im2col product computes n·k.
func usefulTaps(n, k int) int64 {
	var s int64
	for o := -(k - 1) / 2; o <= (k-1)/2; o++ {
		s += int64(max(0, n-abs(o)))
	}
	return s
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// Format writes the report as text: sizes, then per phase the epoch's
// FLOPs as computed and as needed, and the operations of the graphs that
// write the most elements.
func Format(r *Report, topOps int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s on %s: T=%d, m=%d, q=%d, J=%d shapes, C=%d, experts=%d; Inception kernels %v\n",
		r.Dataset, r.Backend, r.Shape.SeriesLen, r.Shape.ShapeLen, r.Shape.Stride, r.Shape.NumShapes,
		r.Shape.NumClasses, r.Shape.NumExperts, r.Kernels)
	fmt.Fprintf(&b, "tokens per layer: dense %v, sparse %v; fold 1: %d training, %d validation samples, batch %d\n",
		r.TokensDense, r.TokensSparse, r.NumTrain, r.NumVal, r.BatchSize)
	gf := func(x int64) string { return fmt.Sprintf("%.3f", float64(x)/1e9) }
	fmt.Fprintf(&b, "\n%-33s %10s %10s %10s %10s %13s\n", "GFLOP per epoch (matrix products)", "train", "val", "epoch", "useful", "useful/graph")
	for _, e := range r.Epochs {
		tot, use := e.Train+e.Val, e.UsefulTrain+e.UsefulVal
		label := fmt.Sprintf("%-6s epoch (val on %s)", e.Phase, e.EvalPhase)
		fmt.Fprintf(&b, "%-33s %10s %10s %10s %10s %12.1f%%\n", label,
			gf(e.Train), gf(e.Val), gf(tot), gf(use), 100*float64(use)/float64(tot))
		fmt.Fprintf(&b, "    steps at batch %v, validation at %v; useful train %s, val %s\n",
			e.TrainBatches, e.ValBatches, gf(e.UsefulTrain), gf(e.UsefulVal))
	}
	if topOps > 0 {
		for _, e := range r.Epochs {
			for _, gc := range []struct {
				name  string
				batch int
				c     GraphCount
			}{{"training step", e.TrainGraphBatch, e.TrainGraph}, {"validation", e.ValGraphB, e.ValGraph}} {
				fmt.Fprintf(&b, "\n%s %s graph, batch %d: %d products (%s GFLOP), %d nodes; operations by elements written:\n",
					e.Phase, gc.name, gc.batch, gc.c.Dots, gf(gc.c.DotFLOPs), totalNodes(gc.c))
				for _, op := range topOpNames(gc.c, topOps) {
					oc := gc.c.Ops[op]
					fmt.Fprintf(&b, "    %-20s %5d nodes %12d elements\n", op, oc.Nodes, oc.Elements)
				}
			}
		}
	}
	return b.String()
}

func totalNodes(c GraphCount) int {
	n := 0
	for _, oc := range c.Ops {
		n += oc.Nodes
	}
	return n
}

// topOpNames lists the operations of c writing the most elements, at most k.
func topOpNames(c GraphCount, k int) []string {
	names := make([]string, 0, len(c.Ops))
	for op := range c.Ops {
		names = append(names, op)
	}
	slices.SortFunc(names, func(a, b string) int {
		if d := c.Ops[b].Elements - c.Ops[a].Elements; d != 0 {
			if d > 0 {
				return 1
			}
			return -1
		}
		return strings.Compare(a, b)
	})
	return names[:min(k, len(names))]
}
