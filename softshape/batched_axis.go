package softshape

import (
	"errors"
	"fmt"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/model/initializer"
	"github.com/gomlx/gomlx/ml/train/loss"

	"github.com/softshape-go/softshape/data"
	"github.com/softshape-go/softshape/softshape/fit"
)

// The run axis of TrainRuns (RunOptions.RunAxis): a job's runs stacked into
// one model (runaxis.go) that trains and validates them all in one graph per
// step, one kernel serving every run. Runs whose epoch has fewer steps, and
// runs that stopped early or failed, stay in the graph masked: their loss is
// left out of the sum, their weights, Adam state and RNG state do not change.
// A batch shorter than the others is padded, and what mixes a batch's rows
// sees only the real ones (runRows). Each run's selected weights are
// restored into its rows; its test evaluation and checkpoint take them
// apart (runStore), as the run alone has them. A run axis of one run
// (R = 1) is the single-run model itself: every run that trains alone
// trains this way.

// axisRuns is the run-axis model of a batchJob.
type axisRuns struct {
	store *model.Store
	m     *Model
	// bs is each slot's batch size; made the phases whose variables exist.
	bs    []int
	made  map[Phase]bool
	execs map[string]*model.Exec
}

// axisEligible reports why chains cannot share a run axis, or nil. One
// chain alone is always eligible, fresh or fold_reset=carry: its run axis
// (R = 1) is the single-run model, of any architecture. Several share one
// when every run is a fresh one (no fold_reset=carry), of an architecture
// with a run axis, and the runs' settings differ at most in λ and the
// learning rate (which the loss and Adam take per run), the epochs and the
// patience.
func axisEligible(chains []*chainSpec) error {
	if len(chains) == 0 {
		return errors.New("no runs")
	}
	if len(chains) == 1 {
		return nil
	}
	norm := func(c Config) string {
		c.MoELossWeight, c.LearningRate, c.Epochs, c.Patience = 0, 0, 0, 0
		return c.String()
	}
	first := norm(chains[0].cfg)
	for _, c := range chains {
		if c.cfg.CarriesFolds() {
			return errors.New("fold_reset=carry chains train alone")
		}
		if err := RunAxisSupported(c.cfg); err != nil {
			return err
		}
		if norm(c.cfg) != first {
			return fmt.Errorf("settings differ beyond %s, %s, %s and %s", ParamMoELossWeight, ParamLearningRate, ParamEpochs, ParamPatience)
		}
	}
	return nil
}

// axisStart creates the slots' warm-up variables as the model copies do and
// stacks them into the run-axis store. With one slot (R = 1) the run-axis
// store is the run's own store, of the single-run layout, holding its RNG
// state: its variables are created in it as they are first needed
// (axisMaterialize), drawn from that state exactly as the model copy would
// draw them, and the model copies are not used.
func (j *batchJob) axisStart() error {
	ax := &axisRuns{m: onRunAxis(j.slots[0].chain.m, len(j.slots)), made: map[Phase]bool{}, execs: map[string]*model.Exec{}}
	refShapeLen := model.GetParamOr(j.store.Scope(j.slots[0].scope), paramRefShapeLen, 0)
	if len(j.slots) == 1 {
		store, err := stackRuns(j, ax.m, refShapeLen)
		if err != nil {
			return err
		}
		ax.store = store
		j.axis = ax
		return nil
	}
	for si, s := range j.slots {
		rule, err := data.ParseBatchRule(s.chain.cfg.BatchRule)
		if err != nil {
			return err
		}
		n := len(s.chain.fds[0].TrainY)
		ax.bs = append(ax.bs, data.BatchSize(n, rule))
		if err := j.materialize(si, Dense, min(ax.bs[si], n)); err != nil {
			return err
		}
	}
	store, err := stackRuns(j, ax.m, refShapeLen)
	if err != nil {
		return err
	}
	ax.store = store
	ax.made[Dense] = true
	j.axis = ax
	return nil
}

// newRunJob returns the job of one run of m on a run axis of one (R = 1):
// the chain of seed starting at fold first, with no folds yet (a caller
// appends those it trains, or steps and evaluates on data of its own).
func newRunJob(backend compute.Backend, m *Model, seed int64, first, refShapeLen int) (*batchJob, error) {
	chain := &chainSpec{cfg: m.Config, seed: seed, folds: []int{first}, m: m}
	job, err := newBatchJob(backend, []*chainSpec{chain}, refShapeLen)
	if err != nil {
		return nil, err
	}
	chain.folds = nil
	return job, nil
}

// stepExec returns the training step of a job of one run (newRunJob) on
// phase for batches of b samples, the variables it needs created: inputs x
// [b, T], y [b, 1] and the run's activity [1] (1); outputs its loss and
// correct predictions [1].
func (j *batchJob) stepExec(phase Phase, b int) (*model.Exec, error) {
	if err := j.axisMaterialize(phase, b); err != nil {
		return nil, err
	}
	return j.axisTrainExec(phase, []int{b}, b)
}

// single reports whether j trains one run on a run axis of one (R = 1): its
// weights, Adam state and RNG state are the run-axis store's, of the
// single-run layout, and its model copy is not used.
func (j *batchJob) single() bool { return j.axis != nil && len(j.slots) == 1 }

// axisMaterialize creates the variables phase adds (the MoE's after the
// warm-up), each run's drawn from its RNG state as it is now, exactly as the
// model copies draw them at their first step of phase; batch is the size of
// the batch that needs them. With one run they are created in the run-axis
// store itself, from its own RNG state.
func (j *batchJob) axisMaterialize(phase Phase, batch int) error {
	ax := j.axis
	if ax.made[phase] {
		return nil
	}
	if len(j.slots) == 1 {
		if err := initVariables(j.backend, ax.store, ax.store.RootScope(), ax.m, phase, batch); err != nil {
			return fmt.Errorf("run %s variables: %w", phase, err)
		}
		ax.made[phase] = true
		return nil
	}
	states, err := ax.rngStates().Value()
	if err != nil {
		return err
	}
	flat := tensors.MustCopyFlatData[uint64](states)
	size := len(flat) / len(j.slots)
	for si, s := range j.slots {
		row := append([]uint64(nil), flat[si*size:(si+1)*size]...)
		if err := s.rng.SetValue(tensors.FromFlatDataAndDimensions(row, size)); err != nil {
			return err
		}
		if err := j.materialize(si, phase, ax.bs[si]); err != nil {
			return err
		}
	}
	if err := addStacked(j, ax.store); err != nil {
		return err
	}
	ax.made[phase] = true
	return nil
}

// axisTrainEpoch is trainEpoch on the run axis: step k trains every run of
// act that has a k-th batch; the other runs sit it out, masked.
func (j *batchJob) axisTrainEpoch(act []*runState, epoch, maxSteps int) error {
	ax := j.axis
	r := len(j.slots)
	bySlot := make([]*runState, r)
	for _, st := range act {
		if st.phase() != act[0].phase() {
			return fmt.Errorf("epoch %d: runs on a run axis in different phases", epoch)
		}
		bySlot[st.si] = st
	}
	phase := act[0].phase()
	if err := j.axisMaterialize(phase, min(act[0].BatchSize, len(act[0].Order))); err != nil {
		return err
	}
	for k := range maxSteps {
		rows := make([]int, r)
		active := make([]float32, r)
		idxs := make([][]int, r)
		anyActive := false
		for si := range j.slots {
			if st := bySlot[si]; st != nil && st.Err == nil && k < st.StepsN {
				idxs[si] = st.Batch(k)
				active[si] = 1
				anyActive = true
			} else if r == 1 { // the one run has no k-th step, or failed
				return nil
			} else { // sits the step out: its first samples stand in, masked
				n := min(ax.bs[si], len(j.slots[si].chain.fds[0].TrainY))
				idxs[si] = make([]int, n)
				for i := range n {
					idxs[si][i] = i
				}
			}
			rows[si] = len(idxs[si])
		}
		if !anyActive {
			return nil
		}
		x, y, block := j.axisBatch(rows, func(si int) ([][]float32, []int, []int) {
			if st := bySlot[si]; st != nil { // the fold of the round
				return st.fd.TrainX, st.fd.TrainY, idxs[si]
			}
			fd := j.slots[si].chain.fds[0]
			return fd.TrainX, fd.TrainY, idxs[si]
		})
		exec, err := j.axisTrainExec(phase, rows, block)
		if err != nil {
			return err
		}
		at := tensors.FromFlatDataAndDimensions(active, r)
		outs, err := exec.Call(x, y, at)
		x.FinalizeAll()
		y.FinalizeAll()
		at.FinalizeAll()
		if err != nil {
			return fmt.Errorf("epoch %d step %d: %w", epoch, k, err)
		}
		losses := tensors.MustCopyFlatData[float32](outs[0])
		rights := tensors.MustCopyFlatData[float32](outs[1])
		for _, t := range outs {
			t.FinalizeAll()
		}
		for si, st := range bySlot {
			if st == nil || active[si] == 0 {
				continue
			}
			st.addStep(float64(losses[si]), int(rights[si]), k)
		}
	}
	return nil
}

// axisBatch packs each slot's rows of (x, y) (rows[si] of them) into one
// batch of blocks of the largest size, padding with zeros: [R·block, T] and
// [R·block, 1].
func (j *batchJob) axisBatch(rows []int, src func(si int) (x [][]float32, y []int, idx []int)) (*tensors.Tensor, *tensors.Tensor, int) {
	block := 0
	for _, n := range rows {
		block = max(block, n)
	}
	t := j.axis.m.Shape.SeriesLen
	r := len(rows)
	flat := make([]float32, r*block*t)
	labels := make([]int32, r*block)
	for si := range rows {
		if rows[si] == 0 {
			continue
		}
		xs, ys, idx := src(si)
		for i, row := range idx {
			copy(flat[(si*block+i)*t:], xs[row])
			labels[si*block+i] = int32(ys[row])
		}
	}
	return tensors.FromFlatDataAndDimensions(flat, r*block, t), tensors.FromFlatDataAndDimensions(labels, r*block, 1), block
}

// axisTrainExec returns the training step of the run axis for phase and the
// runs' real batch sizes rows (blocks of block samples): inputs x, y and the
// runs' activity [R] (1 trains, 0 sits out); outputs each run's loss and
// correct predictions [R]. With one run (R = 1) it is the single run's step,
// Train's: the plain graph, its loss and fit.Adam, nothing masked.
func (j *batchJob) axisTrainExec(phase Phase, rows []int, block int) (*model.Exec, error) {
	ax := j.axis
	key := fmt.Sprintf("train|%s|%d|%v", phase, block, rows)
	if e, ok := ax.execs[key]; ok {
		return e, nil
	}
	rr := &runRows{Block: block, Real: append([]int(nil), rows...)}
	r := len(rows)
	e, err := model.NewExec(j.backend, ax.store, func(scope *model.Scope, x, y, active *graph.Node) []*graph.Node {
		g := x.Graph()
		ax.store.SetTraining(g, true)
		scope.SetGraphParam(g, paramRunRows, rr)
		if r == 1 { // the single-run step: one run, always active
			out := ax.m.Forward(scope, x, phase)
			l := runLoss(out.Logits, y, out.AuxLoss, j.slots[0].lambda)
			fit.Adam{LearningRate: j.slots[0].lr}.UpdateGraph(scope, g, l)
			return []*graph.Node{graph.Reshape(l, 1), graph.Reshape(correctCount(out.Logits, y), 1)}
		}
		statesVar := ax.rngStates()
		before := statesVar.NodeValue(g)
		out := ax.m.Forward(scope, x, phase)
		on := graph.GreaterThan(active, graph.ScalarZero(g, active.DType())) // [R]
		// A run that sits the step out keeps its RNG state: before +
		// on·(after − before) in wrapping uint64 arithmetic (ONNX Runtime has
		// no Where for uint64).
		keep := graph.ConvertDType(graph.Reshape(on, r, 1), before.DType())
		statesVar.SetNodeValue(graph.Add(before, graph.Mul(keep, graph.Sub(statesVar.NodeValue(g), before))))
		var losses, rights []*graph.Node
		var total *graph.Node
		for i := range r {
			span := graph.AxisRange(i*block, i*block+rows[i])
			logits, yi := graph.Slice(out.Logits, span), graph.Slice(y, span)
			aux := out.AuxLoss
			if !aux.Shape().IsScalar() {
				aux = runRow(aux, i)
			}
			l := runLoss(logits, yi, aux, j.slots[i].lambda)
			losses = append(losses, l)
			rights = append(rights, correctCount(logits, yi))
			// Where, not a product: a failed run's NaN must not reach the sum.
			l = graph.Where(runRow(on, i), l, graph.ZerosLike(l))
			if total == nil {
				total = l
			} else {
				total = graph.Add(total, l)
			}
		}
		grads := scope.BuildTrainableVariablesGradientsGraph(total)
		j.axisAdam(scope, g, grads, active, on, total.DType())
		return []*graph.Node{graph.Stack(losses, 0), graph.Stack(rights, 0)}
	})
	if err != nil {
		return nil, fmt.Errorf("run-axis train graph: %w", err)
	}
	j.graphs++
	ax.execs[key] = e
	return e, nil
}

// runLoss is a run's training loss, as Train's: the mean cross-entropy of
// logits [B, C] against y [B, 1], plus λ·aux.
func runLoss(logits, y, aux *graph.Node, lambda float64) *graph.Node {
	l := loss.SparseCategoricalCrossEntropyLogits([]*graph.Node{y}, []*graph.Node{logits})
	if !l.Shape().IsScalar() {
		l = graph.ReduceAllMean(l)
	}
	if lambda > 0 {
		l = graph.Add(l, graph.MulScalar(aux, lambda))
	}
	return l
}

// axisAdam is fit.AdamUpdate on the run axis: each run's step count and
// learning rate (row i of every variable is run i's), and the runs that sat
// the step out (on false) left as they were.
func (j *batchJob) axisAdam(scope *model.Scope, g *graph.Graph, grads []*graph.Node, active, on *graph.Node, dtype dtypes.DType) {
	ax := j.axis
	r := len(j.slots)
	lrs := make([]float64, r)
	for i, s := range j.slots {
		lrs[i] = s.lr
	}
	os := ax.store.Scope("/optimizer")
	lr := graph.ConvertDType(graph.Const(g, lrs), dtype)
	stepVar := os.WithInitializer(initializer.Zero).VariableWithShape("adam_step", shapes.Make(dtype, r)).SetTrainable(false)
	step := graph.Add(stepVar.NodeValue(g), graph.ConvertDType(active, dtype))
	stepVar.SetNodeValue(step)
	rates := fit.NewAdamRates(lr, step)
	fit.AdamUpdate(ax.store, "/adam", scope, g, grads, dtype, func(v *model.Variable) (fit.AdamRates, *graph.Node) {
		dims := make([]int, v.Shape().Rank())
		for k := range dims {
			dims[k] = 1
		}
		dims[0] = r
		return rates.Reshape(dims...), graph.BroadcastToDims(graph.Reshape(on, dims...), v.Shape().Dimensions...)
	})
}

// axisEvaluate is evaluate on the run axis (every run in the same phase):
// pass c of fit.Evaluate is one batch, each run's samples one block of it.
func (j *batchJob) axisEvaluate(sts []*runState, sets []evalSet) ([]fit.Scores, error) {
	for _, s := range sets {
		if s.phase != sets[0].phase {
			return nil, errors.New("runs on a run axis evaluated in different phases")
		}
	}
	if len(sts) > 0 {
		if err := j.axisMaterialize(sets[0].phase, min(fit.EvalChunk, len(sets[0].y))); err != nil {
			return nil, err
		}
	}
	which := make([]int, len(j.slots)) // slot → index in sts
	return fit.Evaluate(labelsOf(sets), func(c int, rows []int) ([][]float32, error) {
		slotRows := make([]int, len(j.slots))
		for a, st := range sts {
			slotRows[st.si], which[st.si] = rows[a], a
		}
		x, _, block := j.axisBatch(slotRows, func(si int) ([][]float32, []int, []int) {
			a := which[si]
			idx := make([]int, rows[a])
			for i := range idx {
				idx[i] = c*fit.EvalChunk + i
			}
			return sets[a].x, sets[a].y, idx
		})
		exec, err := j.axisEvalExec(sets[0].phase)
		if err != nil {
			x.FinalizeAll()
			return nil, err
		}
		flat, err := callLogits(exec, x)
		if err != nil {
			return nil, err
		}
		nc := len(flat) / (len(j.slots) * block)
		logits := make([][]float32, len(sts))
		for a, st := range sts {
			at := st.si * block * nc
			logits[a] = flat[at : at+rows[a]*nc]
		}
		return logits, nil
	})
}

// axisEvalExec returns the inference graph of the run axis on phase: input
// x [R·block, T], blocks of any size (one compilation per size), output the
// logits. One graph serves every evaluation of the phase: the validations
// and, with one run (R = 1), the test and the selected model's validation
// scores too, so a fold builds no other inference graph.
func (j *batchJob) axisEvalExec(phase Phase) (*model.Exec, error) {
	ax := j.axis
	key := "eval|" + phase.String()
	if e, ok := ax.execs[key]; ok {
		return e, nil
	}
	e, err := model.NewExec(j.backend, ax.store, func(scope *model.Scope, x *graph.Node) *graph.Node {
		ax.store.SetTraining(x.Graph(), false)
		return ax.m.Forward(scope, x, phase).Logits
	})
	if err != nil {
		return nil, fmt.Errorf("run-axis evaluation graph: %w", err)
	}
	j.graphs++
	ax.execs[key] = e
	return e, nil
}

// axisSnapshot is snapshot on a run axis of several runs: run si's row of
// every trainable variable, by path.
func (j *batchJob) axisSnapshot(si int, prev map[string]*tensors.Tensor) (map[string]*tensors.Tensor, error) {
	for _, t := range prev {
		t.FinalizeAll()
	}
	snap := map[string]*tensors.Tensor{}
	for v := range j.axis.store.IterVariables() {
		if !v.Trainable {
			continue
		}
		val, err := v.Value()
		if err != nil {
			return nil, fmt.Errorf("reading variable %s: %w", v.Path(), err)
		}
		snap[v.Path()] = runRowTensor(val, si)
	}
	return snap, nil
}

// rngStates is the variable that holds the runs' RNG states: [R, state]
// (runRNGStatesName) with a run axis, the store's own RNG state when R = 1.
func (ax *axisRuns) rngStates() *model.Variable {
	if ax.m.runs() == 1 {
		return ax.store.GetVariable(model.JoinPath("/", model.RNGStateVariableName))
	}
	return ax.store.GetVariable(model.JoinPath("/", runRNGStatesName))
}

// axisRestore is restore on a run axis of several runs: each tensor of snap
// (axisSnapshot's) into run si's row of the variable of its path.
func (j *batchJob) axisRestore(si int, snap map[string]*tensors.Tensor) error {
	for p, t := range snap {
		v := j.axis.store.GetVariable(p)
		if v == nil {
			return fmt.Errorf("restoring %s: no such variable", p)
		}
		val, err := v.Value()
		if err != nil {
			return fmt.Errorf("reading variable %s: %w", p, err)
		}
		flat := tensors.MustCopyFlatData[float32](val)
		row := tensors.MustCopyFlatData[float32](t)
		copy(flat[si*len(row):(si+1)*len(row)], row)
		if err := v.SetValue(tensors.FromFlatDataAndDimensions(flat, val.Shape().Dimensions...)); err != nil {
			return fmt.Errorf("restoring variable %s: %w", p, err)
		}
	}
	return nil
}

// runRowTensor copies row i of a float32 tensor [R, …].
func runRowTensor(t *tensors.Tensor, i int) *tensors.Tensor {
	dims := t.Shape().Dimensions
	flat := tensors.MustCopyFlatData[float32](t)
	size := len(flat) / dims[0]
	return tensors.FromFlatDataAndDimensions(append([]float32(nil), flat[i*size:(i+1)*size]...), dims[1:]...)
}

// finalize releases the run axis's graphs and store.
func (ax *axisRuns) finalize() {
	for _, e := range ax.execs {
		e.Finalize()
	}
	ax.execs = nil
	ax.store.Finalize()
}
