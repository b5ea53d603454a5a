package plots

import (
	"fmt"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Curves holds per-epoch training metrics for TrainingCurves. Any of the
// four metric slices may be empty (not recorded); the others must have one
// value per epoch. A NaN marks a missing value.
type Curves struct {
	// Epoch holds the epoch numbers; when empty, epochs are numbered 1..n.
	Epoch []float64
	// TrainLoss and ValLoss are the training and validation losses.
	TrainLoss, ValLoss []float64
	// TrainAcc and ValAcc are the training and validation accuracies.
	TrainAcc, ValAcc []float64
	// WarmUp is the number of warm-up epochs (0: none). The boundary is drawn
	// as a vertical dashed line after the WarmUp-th epoch, half-way to the
	// next one.
	WarmUp int
}

// TrainingCurves draws the loss (left panel) and accuracy (right panel) per
// epoch, training solid and validation dashed, with the end of the warm-up
// stage as a vertical dashed line. A panel whose two metrics are both empty
// is left out. Options: WithSize, WithDPI.
func TrainingCurves(meta Meta, c Curves, opts ...Option) (*Figure, error) {
	cfg := newConfig(opts)
	n := max(len(c.TrainLoss), len(c.ValLoss), len(c.TrainAcc), len(c.ValAcc))
	if n == 0 {
		return nil, fmt.Errorf("%w: TrainingCurves needs at least one metric", ErrEmpty)
	}
	epochs := slices.Clone(c.Epoch)
	if len(epochs) == 0 {
		epochs = make([]float64, n)
		for i := range epochs {
			epochs[i] = float64(i + 1)
		}
	}
	if err := checkFinite("TrainingCurves Epoch", epochs); err != nil {
		return nil, err
	}
	metrics := []struct {
		name string
		vs   []float64
	}{{"TrainLoss", c.TrainLoss}, {"ValLoss", c.ValLoss}, {"TrainAcc", c.TrainAcc}, {"ValAcc", c.ValAcc}}
	for _, m := range metrics {
		if len(m.vs) != 0 && len(m.vs) != len(epochs) {
			return nil, fmt.Errorf("%w: TrainingCurves %s has %d values for %d epochs", ErrLength, m.name, len(m.vs), len(epochs))
		}
		if err := checkNoInf("TrainingCurves "+m.name, m.vs); err != nil {
			return nil, err
		}
	}
	if c.WarmUp < 0 || c.WarmUp > len(epochs) {
		return nil, fmt.Errorf("%w: TrainingCurves WarmUp %d for %d epochs", ErrValue, c.WarmUp, len(epochs))
	}
	warmX, hasWarm := 0.0, c.WarmUp > 0
	if hasWarm {
		warmX = epochs[c.WarmUp-1]
		if c.WarmUp < len(epochs) {
			warmX = (epochs[c.WarmUp-1] + epochs[c.WarmUp]) / 2
		}
	}
	cc := Curves{
		TrainLoss: slices.Clone(c.TrainLoss), ValLoss: slices.Clone(c.ValLoss),
		TrainAcc: slices.Clone(c.TrainAcc), ValAcc: slices.Clone(c.ValAcc),
	}
	type panel struct {
		title, ylabel string
		train, val    []float64
	}
	var panels []panel
	if len(cc.TrainLoss)+len(cc.ValLoss) > 0 {
		panels = append(panels, panel{"Loss", "Loss", cc.TrainLoss, cc.ValLoss})
	}
	if len(cc.TrainAcc)+len(cc.ValAcc) > 0 {
		panels = append(panels, panel{"Accuracy", "Accuracy", cc.TrainAcc, cc.ValAcc})
	}
	trainSty := lineStyle(rgb(hexBlue), 2, nil)
	valSty := lineStyle(rgb(hexVermillion), 2, []vg.Length{vg.Points(6), vg.Points(3)})
	warmSty := lineStyle(rgb(0x555555), 1.2, []vg.Length{vg.Points(3), vg.Points(3)})

	body := func(dc draw.Canvas) error {
		items := []legendItem{}
		hasTrain, hasVal := len(cc.TrainLoss)+len(cc.TrainAcc) > 0, len(cc.ValLoss)+len(cc.ValAcc) > 0
		if hasTrain {
			items = append(items, legendItem{label: "train", thumbs: thumbs(trainSty, nil)})
		}
		if hasVal {
			items = append(items, legendItem{label: "validation", thumbs: thumbs(valSty, nil)})
		}
		if hasWarm {
			items = append(items, legendItem{label: "warm-up end", thumbs: thumbs(warmSty, nil)})
		}
		dc = splitLegendRight(dc, items)
		row := make([]*plot.Plot, len(panels))
		for i, pn := range panels {
			p := newPlot()
			addGrid(p)
			p.Title.Text = pn.title
			p.X.Label.Text = "Epoch"
			p.Y.Label.Text = pn.ylabel
			if len(pn.train) > 0 {
				addLine(p, epochs, pn.train, trainSty, nil)
			}
			if len(pn.val) > 0 {
				addLine(p, epochs, pn.val, valSty, nil)
			}
			if hasWarm {
				p.Add(vLine{X: warmX, Style: warmSty})
			}
			row[i] = p
		}
		tiles := draw.Tiles{Rows: 1, Cols: len(row), PadX: vg.Points(18)}
		cs := plot.Align([][]*plot.Plot{row}, tiles, dc)
		for i, p := range row {
			fitTitle(p, cs[0][i])
			p.Draw(cs[0][i])
		}
		return nil
	}
	w := vg.Length(len(panels))*4.2*vg.Inch + 1.6*vg.Inch
	return cfg.apply(newFigure(meta, "Training curves", w, 4.2*vg.Inch, body)), nil
}
