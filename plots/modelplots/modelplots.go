// Package modelplots turns SoftShape training results and trained models into
// figures of the plots package: training curves (from softshape.FoldResult),
// MIL-style attention maps (paper Figs 4 and 9) and t-SNE of the embeddings at
// the four stages (paper Figs 5 and 10–12). The plots package itself takes plain
// slices and knows nothing of the model; this package is the glue used by the
// CLI and the notebooks.
package modelplots

import (
	"fmt"
	"math"

	"github.com/softshape-go/softshape/plots"
	"github.com/softshape-go/softshape/plots/tsne"
	"github.com/softshape-go/softshape/softshape"
)

// TrainingCurves draws the per-epoch training and validation loss and accuracy
// of one fold, with the warm-up boundary marked.
func TrainingCurves(meta plots.Meta, fr *softshape.FoldResult, warmUp int) (*plots.Figure, error) {
	if fr == nil || len(fr.History) == 0 {
		return nil, fmt.Errorf("training curves: the fold has no epoch history")
	}
	var c plots.Curves
	for _, e := range fr.History {
		c.Epoch = append(c.Epoch, float64(e.Epoch+1))
		c.TrainLoss = append(c.TrainLoss, e.TrainLoss)
		c.ValLoss = append(c.ValLoss, e.ValLoss)
		c.TrainAcc = append(c.TrainAcc, e.TrainAcc)
		c.ValAcc = append(c.ValAcc, e.ValAcc)
	}
	c.WarmUp = warmUp
	return plots.TrainingCurves(meta, c)
}

// Attention draws the MIL attention map of series x[i] (x already normalised as
// the model saw it): each region coloured by the attention score of the shapes
// covering it, with the per-shape scores below, filled where the first layer
// that sparsifies (softshape.Interpretation.KeptLayer: layer 1 with the paper's
// schedule) keeps the shape as a token and hollow where it fuses it into the
// one fused token (a model selected in the dense warm-up phase keeps every
// shape). The colour
// scale spans the lowest to the highest score over all of x (the series whose
// maps are compared, e.g. a fold's test set): the scores are sigmoids that
// often sit in a narrow band, which a fixed 0–1 scale would paint uniformly,
// while one scale per series would make near-uniform scores look sharply
// localised; one scale per model shows the real spread and lets its maps
// compare colour for colour.
func Attention(meta plots.Meta, m *softshape.Trained, x [][]float32, i int) (*plots.Figure, error) {
	if i < 0 || i >= len(x) {
		return nil, fmt.Errorf("attention map: series %d of %d", i, len(x))
	}
	in, err := m.Interpret(x)
	if err != nil {
		return nil, fmt.Errorf("attention map: %w", err)
	}
	return AttentionOf(meta, in, x, i)
}

// AttentionOf is Attention of series i from in, the model's interpretation
// of all of x (Trained.Interpret): for drawing several maps of one
// interpretation.
func AttentionOf(meta plots.Meta, in *softshape.Interpretation, x [][]float32, i int) (*plots.Figure, error) {
	if i < 0 || i >= len(x) || i >= len(in.ShapeScores) {
		return nil, fmt.Errorf("attention map: series %d of %d", i, len(x))
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, row := range in.ShapeScores {
		for _, v := range row {
			lo, hi = math.Min(lo, float64(v)), math.Max(hi, float64(v))
		}
	}
	kept := make([]bool, len(in.ShapeScores[i]))
	for j := range kept {
		kept[j] = in.Kept == nil || in.Kept[i][j]
	}
	return plots.AttentionMap(meta, toF64(x[i]), toF64(in.ShapeScores[i]), in.ShapeLen, in.Stride,
		plots.WithScoreRange(lo, hi), plots.WithKept(kept))
}

// FirstOfClass returns the index of the first series of class c in y, or an
// error naming the class when there is none.
func FirstOfClass(y []int, c int) (int, error) {
	for i, v := range y {
		if v == c {
			return i, nil
		}
	}
	return 0, fmt.Errorf("no series of class %d", c)
}

// StageTSNE embeds the token-mean embeddings of x at the four stages (input
// shapes, intra-shape, inter-shape, output) with t-SNE and draws them side by
// side, coloured by the classes y.
func StageTSNE(meta plots.Meta, m *softshape.Trained, x [][]float32, y []int, classNames []string, opts tsne.Options) (*plots.Figure, error) {
	if len(x) != len(y) {
		return nil, fmt.Errorf("t-SNE: %d series but %d labels", len(x), len(y))
	}
	in, err := m.Interpret(x)
	if err != nil {
		return nil, fmt.Errorf("t-SNE: %w", err)
	}
	panels := make([]plots.Scatter2D, 0, len(in.Stages))
	for s, rows := range in.Stages {
		pts := make([][]float64, len(rows))
		for i, r := range rows {
			pts[i] = toF64(r)
		}
		emb, err := tsne.Embed(pts, opts)
		if err != nil {
			return nil, fmt.Errorf("t-SNE of stage %q: %w", softshape.StageNames()[s], err)
		}
		p := plots.Scatter2D{Title: fmt.Sprintf("(%c) %s", 'a'+s, softshape.StageNames()[s]), Class: y}
		for _, e := range emb {
			p.X = append(p.X, e[0])
			p.Y = append(p.Y, e[1])
		}
		panels = append(panels, p)
	}
	return plots.ScatterPanels(meta, panels, classNames)
}

func toF64(x []float32) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = float64(v)
	}
	return out
}
