package softshape

import (
	"fmt"

	"github.com/gomlx/compute"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"

	"github.com/softshape-go/softshape/softshape/fit"
)

// Trained is a trained SoftShape model ready for inference: evaluation,
// prediction and the interpretability outputs. Get one from TrainFold or
// LoadCheckpoint.
type Trained struct {
	backend compute.Backend
	model   *Model
	store   *model.Store
	// evals holds the inference graph of each phase, built on first use.
	evals map[Phase]*model.Exec
	// Phase is the path the model runs at inference: the phase it was selected in.
	Phase Phase
}

// Model returns the model definition (hyperparameters and sizes).
func (t *Trained) Model() *Model { return t.model }

// Store returns the GoMLX store holding the weights and hyperparameters.
func (t *Trained) Store() *model.Store { return t.store }

// Evaluate returns the accuracy and the mean cross-entropy on (x, y).
func (t *Trained) Evaluate(x [][]float32, y []int) (acc, meanCE float64, err error) {
	if err := t.checkInput(x); err != nil {
		return 0, 0, err
	}
	if len(x) != len(y) {
		return 0, 0, fmt.Errorf("evaluate: %d series but %d labels", len(x), len(y))
	}
	ce, acc, err := t.evaluate(x, y, t.Phase)
	if err != nil {
		return 0, 0, err
	}
	return acc, meanOf(ce), nil
}

// Probabilities returns, for each series of x (prepared as the model's
// training data was), the class probabilities, the softmax of the logits of
// the path the model runs at inference (Phase), and the predicted class, the
// most probable one (the first on ties, as Evaluate counts it). The logits
// come from the graph Evaluate runs.
func (t *Trained) Probabilities(x [][]float32) ([][]float64, []int, error) {
	if err := t.checkInput(x); err != nil {
		return nil, nil, err
	}
	exec, err := t.evalExec(t.Phase)
	if err != nil {
		return nil, nil, err
	}
	probs := make([][]float64, 0, len(x))
	preds := make([]int, 0, len(x))
	for lo := 0; lo < len(x); lo += fit.EvalChunk {
		n := min(fit.EvalChunk, len(x)-lo)
		logits, err := callLogits(exec, seriesTensor(x, span(lo, n)))
		if err != nil {
			return nil, nil, err
		}
		c := len(logits) / n
		for r := range n {
			p, pred := fit.Softmax(logits[r*c : (r+1)*c])
			probs, preds = append(probs, p), append(preds, pred)
		}
	}
	return probs, preds, nil
}

func (t *Trained) checkInput(x [][]float32) error {
	if len(x) == 0 {
		return fmt.Errorf("no series given")
	}
	for i, row := range x {
		if len(row) != t.model.Shape.SeriesLen {
			return fmt.Errorf("series %d has length %d, the model takes %d", i, len(row), t.model.Shape.SeriesLen)
		}
	}
	return nil
}

// Interpretation holds the interpretability outputs for a batch of series.
type Interpretation struct {
	// ShapeScores[i][j] is the attention score of shape j of series i (layer 0,
	// before merging); shape j covers time steps [j·Stride, j·Stride+ShapeLen).
	ShapeScores [][]float32
	// Stages[s][i] is series i's token-mean embedding [d] at stage s (StageNames).
	Stages [4][][]float32
	// Kept[i][j] reports whether layer KeptLayer, the first that sparsifies,
	// keeps shape j of series i as a token of its own (the top NumKept scores
	// of that layer's attention); the others are fused into one token (Eq. 5).
	// With the paper's schedule layer 0 keeps every shape and layer 1 keeps
	// half. Nil when the model runs the dense phase (selected during the
	// warm-up) or no layer sparsifies: every shape is then a token, weighted
	// by its score.
	Kept [][]bool
	// KeptScores[i][j] is the attention score by which layer KeptLayer ranked
	// shape j of series i (nil with Kept).
	KeptScores [][]float32
	// NumKept is the number of shapes layer KeptLayer keeps (every shape when
	// Kept is nil).
	NumKept, KeptLayer int
	// Predictions[i] is the predicted class of series i.
	Predictions      []int
	ShapeLen, Stride int
}

// Interpret runs x through the model and returns the attention score of every
// shape (for MIL-style heat maps) and the embeddings at the four stages (for t-SNE).
func (t *Trained) Interpret(x [][]float32) (*Interpretation, error) {
	if err := t.checkInput(x); err != nil {
		return nil, err
	}
	m, phase := t.model, t.Phase
	keptLayer := 0
	exec, err := model.NewExec(t.backend, t.store, func(scope *model.Scope, xs *graph.Node) []*graph.Node {
		out := m.Forward(scope, xs, phase)
		keptLayer = out.KeptLayer
		// The logits keep every parameter live: the pure-Go backend of GoMLX v0.28.8
		// fails at run time on graphs whose outputs leave parameters unused.
		outs := append([]*graph.Node{out.Logits, out.ShapeScores}, out.Stages[:]...)
		if out.Kept != nil {
			outs = append(outs, out.Kept, out.KeptScores)
		}
		return outs
	})
	if err != nil {
		return nil, err
	}
	defer exec.Finalize()
	res := &Interpretation{ShapeLen: m.Shape.ShapeLen, Stride: m.Shape.Stride}
	for lo := 0; lo < len(x); lo += fit.EvalChunk {
		hi := min(lo+fit.EvalChunk, len(x))
		xt := seriesTensor(x, span(lo, hi-lo))
		outs, err := exec.Call(xt)
		xt.FinalizeAll()
		if err != nil {
			return nil, err
		}
		rows := func(tt *tensors.Tensor) ([][]float32, error) {
			flat, err := tensors.CopyFlatData[float32](tt)
			tt.FinalizeAll()
			if err != nil {
				return nil, err
			}
			w := len(flat) / (hi - lo)
			out := make([][]float32, hi-lo)
			for i := range out {
				out[i] = flat[i*w : (i+1)*w]
			}
			return out, nil
		}
		logits, err := rows(outs[0])
		if err != nil {
			return nil, err
		}
		for _, l := range logits {
			res.Predictions = append(res.Predictions, fit.Argmax(l))
		}
		scores, err := rows(outs[1])
		if err != nil {
			return nil, err
		}
		res.ShapeScores = append(res.ShapeScores, scores...)
		for st := 0; st < 4; st++ {
			r, err := rows(outs[2+st])
			if err != nil {
				return nil, err
			}
			res.Stages[st] = append(res.Stages[st], r...)
		}
		if len(outs) > 6 {
			mask, err := rows(outs[6])
			if err != nil {
				return nil, err
			}
			for _, r := range mask {
				kept := make([]bool, len(r))
				for j, v := range r {
					kept[j] = v != 0
				}
				res.Kept = append(res.Kept, kept)
			}
			ks, err := rows(outs[7])
			if err != nil {
				return nil, err
			}
			res.KeptScores = append(res.KeptScores, ks...)
		}
	}
	res.KeptLayer = keptLayer // known once the graph is built, at the first call
	res.NumKept = len(res.ShapeScores[0])
	if len(res.Kept) > 0 {
		res.NumKept = 0
		for _, k := range res.Kept[0] {
			if k {
				res.NumKept++
			}
		}
	}
	return res, nil
}

// Save writes the model (weights and hyperparameters) to dir as a GoMLX
// checkpoint, replacing an earlier checkpoint there (see SaveCheckpoint).
func (t *Trained) Save(dir string) error {
	t.store.RootScope().SetParam(paramPhase, t.Phase.String())
	return SaveCheckpoint(t.store, dir)
}

// newTrained returns the Trained model m of the weights in store, run on
// backend in phase.
func newTrained(backend compute.Backend, m *Model, store *model.Store, phase Phase) *Trained {
	return &Trained{backend: backend, model: m, store: store, evals: map[Phase]*model.Exec{}, Phase: phase}
}

// evaluate returns the per-sample cross-entropy and the accuracy of the
// model on (x, y), running the given phase in inference mode (no dropout).
func (t *Trained) evaluate(x [][]float32, y []int, phase Phase) ([]float64, float64, error) {
	exec, err := t.evalExec(phase)
	if err != nil {
		return nil, 0, err
	}
	scores, err := fit.Evaluate([][]int{y}, func(c int, rows []int) ([][]float32, error) {
		logits, err := callLogits(exec, seriesTensor(x, span(c*fit.EvalChunk, rows[0])))
		return [][]float32{logits}, err
	})
	if err != nil {
		return nil, 0, err
	}
	return scores[0].CE, scores[0].Acc, nil
}

// callLogits runs the inference graph exec on x, which it frees, and
// returns the logits flat.
func callLogits(exec *model.Exec, x *tensors.Tensor) ([]float32, error) {
	out, err := exec.Call(x)
	x.FinalizeAll()
	if err != nil {
		return nil, err
	}
	logits, err := tensors.CopyFlatData[float32](out[0])
	out[0].FinalizeAll()
	return logits, err
}

// logitsExec returns the inference graph of m on store in phase: x [B, T]
// float32 → logits [B, C].
func logitsExec(backend compute.Backend, store *model.Store, m *Model, phase Phase) (*model.Exec, error) {
	return model.NewExec(backend, store, func(scope *model.Scope, x *graph.Node) *graph.Node {
		store.SetTraining(x.Graph(), false)
		return m.Forward(scope, x, phase).Logits
	})
}

// evalExec returns the inference graph of phase.
func (t *Trained) evalExec(phase Phase) (*model.Exec, error) {
	if e, ok := t.evals[phase]; ok {
		return e, nil
	}
	e, err := logitsExec(t.backend, t.store, t.model, phase)
	if err != nil {
		return nil, err
	}
	t.evals[phase] = e
	return e, nil
}
