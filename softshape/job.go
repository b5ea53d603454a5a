package softshape

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"path"
	"strings"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/model/initializer"
	"github.com/gomlx/gomlx/ml/train/loss"

	"github.com/softshape-go/softshape/softshape/fit"
)

// The run-axis job: R runs stacked into one model (runaxis.go) that trains
// and validates them all in one graph per step, one kernel serving every
// run; R = 1 is the single-run model itself, as every run that trains alone
// trains. Runs whose epoch has fewer steps, and runs that stopped early or
// failed, stay in the graph masked: their loss is left out of the sum, their
// weights, Adam state and RNG state do not change. A batch shorter than the
// others is padded, and what mixes a batch's rows sees only the real ones
// (runRows). Each run's variables are created, and its selected weights
// scored, in a job of its own (job.alone), as the run alone has them.

// job trains chains, one fold of each at a time, as one model on a run axis
// of R = len(chains) runs, run i being chain i: it is fit.Train's engine
// (TrainEpoch, Validate, EndEpoch) for each of its rounds (round).
type job struct {
	backend compute.Backend
	chains  []*chainSpec
	// m is the chains' model on the run axis; store holds its variables,
	// Adam and RNG states (with one run, the run's own store, of the
	// single-run layout); made the phases whose variables exist.
	m     *Model
	store *model.Store
	made  map[Phase]bool
	// execs are the graphs built, by key; graphs counts them.
	execs  map[string]*model.Exec
	graphs int
	// alone holds, with several runs, each run's job of one run, in which
	// its variables are created (materialize) and its selected model is
	// scored (scoreSelected), as the run alone does both; nil with one run.
	// bs is each run's batch size.
	alone []*job
	bs    []int
	// onEpoch is RunOptions.OnEpoch, called as each run's epoch ends;
	// stop is RunOptions.Stop.
	onEpoch func(EpochStats)
	stop    <-chan struct{}
}

// newJob returns the job of chains; refShapeLen is RunOptions.RefShapeLen.
// Each chain's initial weights, dropout and batch order are drawn from
// generators of its seed plus its first fold (initSeed); with several runs
// their warm-up variables are created at once.
func newJob(backend compute.Backend, chains []*chainSpec, refShapeLen int) (*job, error) {
	j := &job{backend: backend, chains: chains, m: onRunAxis(chains[0].m, len(chains)), made: map[Phase]bool{}, execs: map[string]*model.Exec{}}
	j.store = storeFor(j.m, refShapeLen)
	fail := func(err error) (*job, error) {
		j.finalize()
		return nil, err
	}
	// With one run the store's RNG state is the run's; with several, each
	// run draws from its own, its row of runRNGStatesName (withRunRNG).
	seed := int64(0)
	if len(chains) == 1 {
		c := chains[0]
		c.initSeed = c.seed + int64(c.folds[0])
		c.pcg = rand.NewPCG(uint64(c.initSeed), 0x50f75a9e)
		c.order = rand.New(c.pcg)
		seed = c.initSeed
	}
	if err := j.store.SetRNGStateFromSeed(seed); err != nil {
		return fail(fmt.Errorf("seeding the run-axis store: %w", err))
	}
	if len(chains) == 1 {
		return j, nil
	}
	for _, c := range chains {
		a, err := newJob(backend, []*chainSpec{c}, refShapeLen)
		if err != nil {
			return fail(err)
		}
		j.alone = append(j.alone, a)
		bs, err := batchSize(c.cfg, len(c.fds[0].TrainY))
		if err != nil {
			return fail(err)
		}
		j.bs = append(j.bs, bs)
	}
	if err := j.materialize(Dense, 0); err != nil {
		return fail(err)
	}
	return j, nil
}

// newRunJob returns the job of one run of m on a run axis of one (R = 1),
// seeded as fold 1 of a run of seed, with no folds: for stepping and
// evaluating on data of the caller's (Stepper).
func newRunJob(backend compute.Backend, m *Model, seed int64, refShapeLen int) (*job, error) {
	return newJob(backend, []*chainSpec{{cfg: m.Config, seed: seed, folds: []int{0}, m: m}}, refShapeLen)
}

// storeFor returns a store holding m's settings and data sizes, as a
// checkpoint records them (LoadCheckpoint reads them).
func storeFor(m *Model, refShapeLen int) *model.Store {
	store := model.NewStore()
	m.Config.Apply(store)
	root := store.RootScope()
	root.SetParam(paramSeriesLen, m.Shape.SeriesLen)
	root.SetParam(paramNumClasses, m.Shape.NumClasses)
	root.SetParam(paramRefShapeLen, refShapeLen)
	root.SetParam(paramStrideRule, strideRuleNow)
	return store
}

// release finalizes the job's graphs of phase (its training steps and its
// evaluation: the second field of their keys in execs), if any: a later
// use builds them again.
func (j *job) release(phase Phase) {
	for key, e := range j.execs {
		if strings.SplitN(key, "|", 3)[1] == phase.String() {
			e.Finalize()
			delete(j.execs, key)
		}
	}
}

func (j *job) finalize() {
	for _, e := range j.execs {
		e.Finalize()
	}
	j.execs = nil
	j.store.Finalize()
	for _, a := range j.alone {
		a.finalize()
	}
	j.alone = nil
}

// materialize creates the variables the model adds on phase (all of them
// on the first phase; the MoE's after the warm-up) before a graph of phase
// is built, exactly as the run alone creates them at its first step of
// phase (initVariables); batch is the size of the batch that needs them.
// With several runs, the run axis's graph would draw them all from one RNG
// state: each run's are created in its job alone, from its own state as the
// run axis has advanced it, and stacked into the store (addStacked).
func (j *job) materialize(phase Phase, batch int) error {
	if j.made[phase] {
		return nil
	}
	if j.alone == nil {
		if err := j.initVariables(phase, batch); err != nil {
			return fmt.Errorf("run %s variables: %w", phase, err)
		}
		j.made[phase] = true
		return nil
	}
	var states *tensors.Tensor // the runs' RNG states as the run axis holds them, once it does
	if v := j.store.GetVariable(model.JoinPath("/", runRNGStatesName)); v != nil {
		var err error
		if states, err = v.Value(); err != nil {
			return err
		}
	}
	for i, a := range j.alone {
		if states != nil {
			if err := a.store.GetVariable(model.JoinPath("/", model.RNGStateVariableName)).SetValue(rowTensor[uint64](states, i)); err != nil {
				return err
			}
		}
		if err := a.materialize(phase, j.bs[i]); err != nil {
			return fmt.Errorf("run %d: %w", i, err)
		}
	}
	if err := addStacked(j, j.store); err != nil {
		return err
	}
	j.made[phase] = true
	return nil
}

// initVariables creates and initialises the variables the model of a job of
// one run has on phase, drawing them from its store's RNG state: it builds
// an inference forward pass on zeros (batch series), which creates the
// variables, but returns only a sum of the graph's parameters: compilers
// drop the unused pass, so only the initialisation graph costs compilation
// (docs/gpu.md, "Many runs in one graph on a GPU").
func (j *job) initVariables(phase Phase, batch int) error {
	m := j.m
	e, err := model.NewExec(j.backend, j.store, func(scope *model.Scope, x *graph.Node) *graph.Node {
		g := x.Graph()
		j.store.SetTraining(g, false)
		m.Forward(scope, x, phase)
		// Every parameter feeds the output (pure Go's executor wants each one
		// used), the forward pass does not.
		sum := graph.ScalarZero(g, dtypes.Float32)
		for i := range g.NumParameters() {
			p := g.GetParameterByHandle(graph.ParameterHandle(i))
			sum = graph.Add(sum, graph.ReduceAllSum(graph.ConvertDType(p, dtypes.Float32)))
		}
		return sum
	})
	if err != nil {
		return err
	}
	defer e.Finalize()
	x := tensors.FromFlatDataAndDimensions(make([]float32, batch*m.Shape.SeriesLen), batch, m.Shape.SeriesLen)
	out, err := e.Call(x)
	x.FinalizeAll()
	if err != nil {
		return fmt.Errorf("initialising: %w", err)
	}
	for _, t := range out {
		t.FinalizeAll()
	}
	return nil
}

// addStacked adds to store the variables of the runs' jobs alone that it
// lacks (materialize), each stacked along a new leading axis, and sets its
// runs' RNG states (runRNGStatesName) to theirs.
func addStacked(j *job, store *model.Store) error {
	for v := range j.alone[0].store.IterVariables() {
		p, dst := v.Path(), v.Path()
		if p == model.JoinPath("/", model.RNGStateVariableName) {
			dst = model.JoinPath("/", runRNGStatesName)
		} else if store.GetVariable(dst) != nil {
			continue
		}
		vals := make([]*tensors.Tensor, len(j.alone))
		for i, a := range j.alone {
			sv := a.store.GetVariable(p)
			if sv == nil {
				return fmt.Errorf("run %d has no variable %s (run 0 has)", i, p)
			}
			t, err := sv.Value()
			if err != nil {
				return fmt.Errorf("run %d variable %s: %w", i, p, err)
			}
			vals[i] = t
		}
		stacked, err := stackTensors(vals)
		if err != nil {
			return fmt.Errorf("variable %s: %w", p, err)
		}
		if old := store.GetVariable(dst); old != nil {
			if err := old.SetValue(stacked); err != nil {
				return fmt.Errorf("variable %s: %w", dst, err)
			}
			continue
		}
		dir, name := path.Split(dst)
		nv, err := store.Scope(path.Clean(dir)).CreateVariable(name, stacked)
		if err != nil {
			return fmt.Errorf("variable %s: %w", p, err)
		}
		nv.SetTrainable(v.Trainable)
	}
	return nil
}

// stackTensors stacks tensors of one shape along a new leading axis.
func stackTensors(ts []*tensors.Tensor) (*tensors.Tensor, error) {
	shape := ts[0].Shape()
	for i, t := range ts {
		if !t.Shape().Equal(shape) {
			return nil, fmt.Errorf("shape %s of run %d differs from run 0's %s", t.Shape(), i, shape)
		}
	}
	dims := append([]int{len(ts)}, shape.Dimensions...)
	switch shape.DType {
	case dtypes.Float32:
		return stackFlat[float32](ts, dims), nil
	case dtypes.Uint64:
		return stackFlat[uint64](ts, dims), nil
	default:
		return nil, fmt.Errorf("dtype %s is not stacked", shape.DType)
	}
}

// rowTensor returns a copy of row i of t along its leading (run) axis: the
// inverse of stackTensors.
func rowTensor[T interface{ float32 | uint64 }](t *tensors.Tensor, i int) *tensors.Tensor {
	dims := t.Shape().Dimensions
	flat := tensors.MustCopyFlatData[T](t)
	size := len(flat) / dims[0]
	return tensors.FromFlatDataAndDimensions(append([]T(nil), flat[i*size:(i+1)*size]...), dims[1:]...)
}

func stackFlat[T interface{ float32 | uint64 }](ts []*tensors.Tensor, dims []int) *tensors.Tensor {
	var flat []T
	for _, t := range ts {
		flat = append(flat, tensors.MustCopyFlatData[T](t)...)
	}
	return tensors.FromFlatDataAndDimensions(flat, dims...)
}

// TrainEpoch is fit.Engine's: step k trains every run of act that has a
// k-th batch; the other runs sit it out, masked.
func (j *job) TrainEpoch(act []*runState, maxSteps int) error {
	epoch := act[0].Epoch
	r := len(j.chains)
	byRun := make([]*runState, r)
	for _, st := range act {
		if st.phase() != act[0].phase() {
			return fmt.Errorf("epoch %d: runs on a run axis in different phases", epoch)
		}
		byRun[st.si] = st
	}
	phase := act[0].phase()
	if phase == Sparse {
		// After the warm-up no graph of the dense phase runs in the
		// fold (validation follows the phase; a selected warm-up model is
		// scored by a graph built again): free them, and with them, on
		// ONNX Runtime, their sessions' memory, before the sparse
		// graphs take theirs.
		j.release(Dense)
	}
	if err := j.materialize(phase, min(act[0].BatchSize, len(act[0].Order))); err != nil {
		return err
	}
	for k := range maxSteps {
		rows := make([]int, r)
		active := make([]float32, r)
		idxs := make([][]int, r)
		anyActive := false
		for si := range j.chains {
			if st := byRun[si]; st != nil && st.Err == nil && k < st.StepsN {
				idxs[si] = st.Batch(k)
				active[si] = 1
				anyActive = true
			} else if r == 1 { // the one run has no k-th step, or failed
				return nil
			} else { // sits the step out: its first samples stand in, masked
				idxs[si] = span(0, j.bs[si])
			}
			rows[si] = len(idxs[si])
		}
		if !anyActive {
			return nil
		}
		x, y, block := packBatch(j.m.Shape.SeriesLen, rows, func(si int) ([][]float32, []int, []int) {
			if st := byRun[si]; st != nil { // the fold of the round
				return st.fd.TrainX, st.fd.TrainY, idxs[si]
			}
			fd := j.chains[si].fds[0]
			return fd.TrainX, fd.TrainY, idxs[si]
		})
		exec, err := j.trainExec(phase, rows, block)
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
		for si, st := range byRun {
			if st != nil && active[si] != 0 {
				st.addStep(float64(losses[si]), int(rights[si]), k)
			}
		}
	}
	return nil
}

// Validate is fit.Engine's: each run's current weights on its validation
// split, on the path its phase evaluates.
func (j *job) Validate(live []*runState) ([]fit.Scores, error) {
	sets := make([]evalSet, len(live))
	for i, st := range live {
		sets[i] = evalSet{st.cfg.EvalPhase(st.phase()), st.fd.ValX, st.fd.ValY}
	}
	return j.evaluate(live, sets)
}

// EndEpoch is fit.Engine's (runState.endEpoch), then saves the run's
// progress when it is due (saveResume), or stops the training when
// RunOptions.Stop is closed (stopRun).
func (j *job) EndEpoch(st *runState, val fit.Scores) error {
	if err := st.endEpoch(val, j.onEpoch); err != nil {
		return err
	}
	if fr := st.FitRun(); j.stopped() && !fr.Done && fr.Epoch+1 < fr.Epochs {
		return j.stopRun(st)
	}
	j.saveResumeIfDue(st)
	return nil
}

// stopped reports whether RunOptions.Stop is closed.
func (j *job) stopped() bool {
	select {
	case <-j.stop:
		return true
	default:
		return false
	}
}

// step runs one training step of a job of one run (newRunJob) on phase
// and the batch x [b, T], y [b, 1], the variables it needs created, and
// returns its loss.
func (j *job) step(phase Phase, x, y *tensors.Tensor) (float64, error) {
	b := x.Shape().Dimensions[0]
	if err := j.materialize(phase, b); err != nil {
		return 0, err
	}
	exec, err := j.trainExec(phase, []int{b}, b)
	if err != nil {
		return 0, err
	}
	active := tensors.FromFlatDataAndDimensions([]float32{1}, 1)
	outs, err := exec.Call(x, y, active)
	active.FinalizeAll()
	if err != nil {
		return 0, err
	}
	l := tensors.MustCopyFlatData[float32](outs[0])[0]
	for _, t := range outs {
		t.FinalizeAll()
	}
	return float64(l), nil
}

// trainExec returns the training step for phase and the runs' real batch
// sizes rows (blocks of block samples): inputs x, y and the runs' activity
// [R] (1 trains, 0 sits out); outputs each run's loss and correct
// predictions [R]. With one run (R = 1) it is the single run's step: the
// plain graph, its loss and fit.Adam, nothing masked.
func (j *job) trainExec(phase Phase, rows []int, block int) (*model.Exec, error) {
	key := fmt.Sprintf("train|%s|%d|%v", phase, block, rows)
	if e, ok := j.execs[key]; ok {
		return e, nil
	}
	rr := &runRows{Block: block, Real: append([]int(nil), rows...)}
	r := len(rows)
	e, err := model.NewExec(j.backend, j.store, func(scope *model.Scope, x, y, active *graph.Node) []*graph.Node {
		g := x.Graph()
		j.store.SetTraining(g, true)
		scope.SetGraphParam(g, paramRunRows, rr)
		if r == 1 { // the single-run step: one run, always active
			cfg := j.chains[0].cfg
			out := j.m.Forward(scope, x, phase)
			l := runLoss(out.Logits, y, out.AuxLoss, cfg.MoELossWeight)
			fit.Adam{LearningRate: cfg.LearningRate}.UpdateGraph(scope, g, l)
			return []*graph.Node{graph.Reshape(l, 1), graph.Reshape(correctCount(out.Logits, y), 1)}
		}
		statesVar := j.store.GetVariable(model.JoinPath("/", runRNGStatesName))
		before := statesVar.NodeValue(g)
		out := j.m.Forward(scope, x, phase)
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
			l := runLoss(logits, yi, aux, j.chains[i].cfg.MoELossWeight)
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
		j.adam(scope, g, grads, active, on, total.DType())
		return []*graph.Node{graph.Stack(losses, 0), graph.Stack(rights, 0)}
	})
	if err != nil {
		return nil, fmt.Errorf("run-axis train graph: %w", err)
	}
	j.graphs++
	j.execs[key] = e
	return e, nil
}

// runLoss is a run's training loss: the mean cross-entropy of logits
// [B, C] against y [B, 1], plus λ·aux.
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

// correctCount is the number of rows of logits [B, C] whose arg-max is y [B, 1].
func correctCount(logits, y *graph.Node) *graph.Node {
	pred := graph.ArgMax(logits, -1, y.DType())
	hit := graph.Equal(pred, graph.Reshape(y, y.Shape().Dimensions[0]))
	return graph.ReduceAllSum(graph.ConvertDType(hit, dtypes.Float32))
}

// adam is fit.AdamUpdate on the run axis: each run's step count and
// learning rate (row i of every variable is run i's), and the runs that sat
// the step out (on false) left as they were.
func (j *job) adam(scope *model.Scope, g *graph.Graph, grads []*graph.Node, active, on *graph.Node, dtype dtypes.DType) {
	r := len(j.chains)
	lrs := make([]float64, r)
	for i, c := range j.chains {
		lrs[i] = c.cfg.LearningRate
	}
	os := j.store.Scope("/optimizer")
	lr := graph.ConvertDType(graph.Const(g, lrs), dtype)
	stepVar := os.WithInitializer(initializer.Zero).VariableWithShape("adam_step", shapes.Make(dtype, r)).SetTrainable(false)
	step := graph.Add(stepVar.NodeValue(g), graph.ConvertDType(active, dtype))
	stepVar.SetNodeValue(step)
	rates := fit.NewAdamRates(lr, step)
	fit.AdamUpdate(j.store, "/adam", scope, g, grads, dtype, func(v *model.Variable) (fit.AdamRates, *graph.Node) {
		dims := make([]int, v.Shape().Rank())
		for k := range dims {
			dims[k] = 1
		}
		dims[0] = r
		return rates.Reshape(dims...), graph.BroadcastToDims(graph.Reshape(on, dims...), v.Shape().Dimensions...)
	})
}

// evalSet is what one run is scored on: samples, labels and the phase.
type evalSet struct {
	phase Phase
	x     [][]float32
	y     []int
}

// evaluate scores run sts[i] on sets[i], every run in the same phase: pass c
// of fit.Evaluate is one batch, each run's samples one block of it.
func (j *job) evaluate(sts []*runState, sets []evalSet) ([]fit.Scores, error) {
	labels := make([][]int, len(sets))
	for i, s := range sets {
		if s.phase != sets[0].phase {
			return nil, errors.New("runs on a run axis evaluated in different phases")
		}
		labels[i] = s.y
	}
	if len(sts) > 0 {
		if err := j.materialize(sets[0].phase, min(fit.EvalChunk, len(sets[0].y))); err != nil {
			return nil, err
		}
	}
	which := make([]int, len(j.chains)) // run → index in sts
	return fit.Evaluate(labels, func(c int, rows []int) ([][]float32, error) {
		perRun := make([]int, len(j.chains))
		for a, st := range sts {
			perRun[st.si], which[st.si] = rows[a], a
		}
		x, y, block := packBatch(j.m.Shape.SeriesLen, perRun, func(si int) ([][]float32, []int, []int) {
			a := which[si]
			return sets[a].x, sets[a].y, span(c*fit.EvalChunk, rows[a])
		})
		y.FinalizeAll() // inference takes no labels
		exec, err := j.evalExec(sets[0].phase)
		if err != nil {
			x.FinalizeAll()
			return nil, err
		}
		flat, err := callLogits(exec, x)
		if err != nil {
			return nil, err
		}
		nc := len(flat) / (len(j.chains) * block)
		logits := make([][]float32, len(sts))
		for a, st := range sts {
			at := st.si * block * nc
			logits[a] = flat[at : at+rows[a]*nc]
		}
		return logits, nil
	})
}

// evalExec returns the inference graph of the run axis on phase: input x
// [R·block, T], blocks of any size (one compilation per size), output the
// logits. One graph serves every evaluation of the phase: the validations
// and, with one run (R = 1), the test and the selected model's validation
// scores too, so a fold builds no other inference graph.
func (j *job) evalExec(phase Phase) (*model.Exec, error) {
	key := "eval|" + phase.String()
	if e, ok := j.execs[key]; ok {
		return e, nil
	}
	e, err := logitsExec(j.backend, j.store, j.m, phase)
	if err != nil {
		return nil, fmt.Errorf("run-axis evaluation graph: %w", err)
	}
	j.graphs++
	j.execs[key] = e
	return e, nil
}

// scoreSelected is evaluate after the training, of the selected weights
// (runState.restoreSelected). One run's (R = 1) store holds its selected
// weights, which its validation graph scores. On a run axis of several runs
// each run's selected weights are copied into its job alone and scored
// there, as the run alone scores them: the run axis's products round
// otherwise, and a run's test accuracy should not depend on which runs
// shared its graph.
func (j *job) scoreSelected(sts []*runState, sets []evalSet) ([]fit.Scores, error) {
	if j.alone == nil {
		return j.evaluate(sts, sets)
	}
	scores := make([]fit.Scores, len(sts))
	for i, st := range sts {
		a := j.alone[st.si]
		if err := j.copyRun(st.si, a.store); err != nil {
			return nil, err
		}
		built := a.graphs
		s, err := a.evaluate([]*runState{{}}, sets[i:i+1])
		j.graphs += a.graphs - built
		if err != nil {
			return nil, err
		}
		scores[i] = s[0]
	}
	return scores, nil
}

// runValues calls put with the path and a copy of run si's value (its row
// of the run axis's, or with one run the value itself) of each trainable
// variable, in the store's order.
func (j *job) runValues(si int, put func(path string, t *tensors.Tensor) error) error {
	for v := range j.store.IterVariables() {
		if !v.Trainable {
			continue
		}
		val, err := v.Value()
		if err != nil {
			return fmt.Errorf("reading variable %s: %w", v.Path(), err)
		}
		var t *tensors.Tensor
		if len(j.chains) == 1 {
			t, err = val.LocalClone()
		} else {
			t = rowTensor[float32](val, si)
		}
		if err == nil {
			err = put(v.Path(), t)
		}
		if err != nil {
			return fmt.Errorf("copying variable %s: %w", v.Path(), err)
		}
	}
	return nil
}

// snapshot copies run si's trainable variables, by path, after finalizing
// prev, the snapshot it replaces: the weights of the model selected so far.
func (j *job) snapshot(si int, prev map[string]*tensors.Tensor) (map[string]*tensors.Tensor, error) {
	for _, t := range prev {
		t.FinalizeAll()
	}
	snap := map[string]*tensors.Tensor{}
	if err := j.runValues(si, func(p string, t *tensors.Tensor) error { snap[p] = t; return nil }); err != nil {
		return nil, err
	}
	return snap, nil
}

// restoreRun writes a snapshot of run si back into its rows of the store's
// variables (with one run, si = 0, the variables themselves).
func restoreRun(store *model.Store, si int, snap map[string]*tensors.Tensor) error {
	for p, t := range snap {
		v := store.GetVariable(p)
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

// copyRun sets dst's variables to run si's trainable ones (runValues),
// creating those dst lacks.
func (j *job) copyRun(si int, dst *model.Store) error {
	return j.runValues(si, func(p string, t *tensors.Tensor) error {
		if v := dst.GetVariable(p); v != nil {
			return v.SetValue(t)
		}
		_, err := dst.CreateVariable(p, t)
		return err
	})
}

// runStore copies run si's trainable variables and settings into a store of
// its own, laid out as a run alone's (no run axis), e.g. for a checkpoint.
func (j *job) runStore(si int) (*model.Store, error) {
	c := j.chains[si]
	store := storeFor(c.m, model.GetParamOr(j.store.RootScope(), paramRefShapeLen, 0))
	store.RootScope().SetParam(model.ParamInitialSeed, c.initSeed)
	if err := j.copyRun(si, store); err != nil {
		store.Finalize()
		return nil, err
	}
	return store, nil
}

// save writes run si's model (runStore), evaluated on phase, to the
// checkpoint folder dir.
func (j *job) save(si int, phase Phase, dir string) error {
	store, err := j.runStore(si)
	if err != nil {
		return err
	}
	defer store.Finalize()
	store.RootScope().SetParam(paramPhase, phase.String())
	return SaveCheckpoint(store, dir)
}
