package rocket

import (
	"fmt"
	"runtime"
)

// Options are MiniRocket's settings; the zero value of a field means the
// reference's default.
type Options struct {
	// NumFeatures is the number of features asked for (DefaultNumFeatures);
	// the transform makes the largest multiple of 84 not above it.
	NumFeatures int
	// MaxDilations caps the dilations per kernel (DefaultMaxDilations).
	MaxDilations int
	// Alphas is the ridge's grid of regularisation strengths
	// (DefaultAlphas).
	Alphas []float64
	// Workers is the number of goroutines that transform series
	// (runtime.GOMAXPROCS); the result does not depend on it.
	Workers int
}

func (o Options) withDefaults() Options {
	if o.NumFeatures == 0 {
		o.NumFeatures = DefaultNumFeatures
	}
	if o.MaxDilations == 0 {
		o.MaxDilations = DefaultMaxDilations
	}
	if o.Alphas == nil {
		o.Alphas = DefaultAlphas()
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	return o
}

// Classifier is a fitted MiniRocket classifier: the transform and the
// ridge classifier on its features.
type Classifier struct {
	Transform *Transform
	Ridge     *Ridge
	workers   int
}

// FitClassifier fits MiniRocket to the training series x (one length, no
// NaN) and their class ids y: the transform's biases (drawn with seed),
// then the ridge classifier with its leave-one-out choice of alpha. Its
// memory is dominated by the feature matrix, 8 bytes per series per
// feature (n × 9,996 × 8 bytes), and the n × n Gram matrix and its
// eigenvectors.
func FitClassifier(x [][]float32, y []int, seed uint64, opts Options) (*Classifier, error) {
	opts = opts.withDefaults()
	if len(x) != len(y) {
		return nil, fmt.Errorf("minirocket: %d series but %d labels", len(x), len(y))
	}
	t, err := Fit(x, opts.NumFeatures, opts.MaxDilations, seed)
	if err != nil {
		return nil, err
	}
	feats, err := t.Apply(x, opts.Workers)
	if err != nil {
		return nil, err
	}
	r, err := FitRidge(feats, y, opts.Alphas, RidgeOptions{Normalize: true})
	if err != nil {
		return nil, fmt.Errorf("minirocket: %w", err)
	}
	return &Classifier{Transform: t, Ridge: r, workers: opts.Workers}, nil
}

// Predict returns the predicted class id of each series of x.
func (c *Classifier) Predict(x [][]float32) ([]int, error) {
	feats, err := c.Transform.Apply(x, c.workers)
	if err != nil {
		return nil, err
	}
	return c.Ridge.Predict(feats)
}

// Accuracy returns the share of pred equal to truth (same length, not
// empty).
func Accuracy(pred, truth []int) float64 {
	right := 0
	for i, p := range pred {
		if p == truth[i] {
			right++
		}
	}
	return float64(right) / float64(len(truth))
}
