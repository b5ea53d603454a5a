package rocket

import (
	"fmt"
	"runtime"

	"gonum.org/v1/gonum/mat"
)

// MultiRocketHydraOptions are MultiRocket-Hydra's settings; the zero
// value of a field means aeon's default.
type MultiRocketHydraOptions struct {
	// HydraKernels and HydraGroups are Hydra's k and g
	// (DefaultHydraKernels, DefaultHydraGroups).
	HydraKernels, HydraGroups int
	// MultiRocketKernels is MultiRocket's n_kernels
	// (DefaultMultiRocketKernels) and MaxDilations its cap on dilations
	// per kernel (DefaultMaxDilations).
	MultiRocketKernels, MaxDilations int
	// Alphas is the ridge's grid (DefaultAlphas).
	Alphas []float64
	// Workers is the number of goroutines that transform series
	// (runtime.GOMAXPROCS); the result does not depend on it.
	Workers int
}

func (o MultiRocketHydraOptions) withDefaults() MultiRocketHydraOptions {
	if o.HydraKernels == 0 {
		o.HydraKernels = DefaultHydraKernels
	}
	if o.HydraGroups == 0 {
		o.HydraGroups = DefaultHydraGroups
	}
	if o.MultiRocketKernels == 0 {
		o.MultiRocketKernels = DefaultMultiRocketKernels
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

// MultiRocketHydra is a fitted MultiRocket-Hydra classifier, as aeon's
// MultiRocketHydraClassifier: Hydra's features through the sparse scaler,
// MultiRocket's through a standard scaler, side by side in that order,
// and a ridge classifier on them with the features centred but not
// rescaled (RidgeClassifierCV(alphas=logspace(-3, 3, 10)) without
// normalize).
type MultiRocketHydra struct {
	Hydra       *Hydra
	MultiRocket *MultiRocket
	Sparse      *SparseScaler
	Standard    *StandardScaler
	Ridge       *Ridge
	workers     int
}

// FitMultiRocketHydra fits MultiRocket-Hydra to the training series x
// (one length, at least 10, no NaN) and their class ids y; Hydra's
// kernels and MultiRocket's biases are drawn with seed (from separate
// generators). Its memory is dominated by the feature matrix, 8 bytes per
// series per feature (about 55,000 features), and the n × n Gram matrix.
func FitMultiRocketHydra(x [][]float32, y []int, seed uint64, opts MultiRocketHydraOptions) (*MultiRocketHydra, error) {
	opts = opts.withDefaults()
	if len(x) != len(y) {
		return nil, fmt.Errorf("multirocket-hydra: %d series but %d labels", len(x), len(y))
	}
	if len(x) == 0 {
		return nil, fmt.Errorf("multirocket-hydra: no training series")
	}
	c := &MultiRocketHydra{workers: opts.Workers}
	var err error
	if c.MultiRocket, err = FitMultiRocket(x, opts.MultiRocketKernels, opts.MaxDilations, seed); err != nil {
		return nil, err
	}
	if c.Hydra, err = FitHydra(len(x[0]), opts.HydraKernels, opts.HydraGroups, seed); err != nil {
		return nil, err
	}
	feats, hydra, multi, err := c.transform(x)
	if err != nil {
		return nil, err
	}
	if c.Sparse, err = FitSparseScaler(hydra, DefaultSparseExponent); err != nil {
		return nil, fmt.Errorf("multirocket-hydra: %w", err)
	}
	if c.Standard, err = FitStandardScaler(multi); err != nil {
		return nil, fmt.Errorf("multirocket-hydra: %w", err)
	}
	if err := c.scale(hydra, multi); err != nil {
		return nil, err
	}
	if c.Ridge, err = FitRidge(feats, y, opts.Alphas, RidgeOptions{}); err != nil {
		return nil, fmt.Errorf("multirocket-hydra: %w", err)
	}
	return c, nil
}

// NumFeatures returns the number of features the ridge classifier sees:
// Hydra's then MultiRocket's.
func (c *MultiRocketHydra) NumFeatures() int {
	return c.Hydra.NumFeatures() + c.MultiRocket.NumFeatures()
}

// transform returns the unscaled features of x, one row per series, and
// its two views: Hydra's columns and MultiRocket's.
func (c *MultiRocketHydra) transform(x [][]float32) (feats, hydra, multi *mat.Dense, err error) {
	nh := c.Hydra.NumFeatures()
	feats = mat.NewDense(len(x), c.NumFeatures(), nil)
	hydra = feats.Slice(0, len(x), 0, nh).(*mat.Dense)
	multi = feats.Slice(0, len(x), nh, c.NumFeatures()).(*mat.Dense)
	if err := c.Hydra.applyTo(x, hydra, c.workers); err != nil {
		return nil, nil, nil, fmt.Errorf("multirocket-hydra: %w", err)
	}
	if err := c.MultiRocket.applyTo(x, multi, c.workers); err != nil {
		return nil, nil, nil, fmt.Errorf("multirocket-hydra: %w", err)
	}
	return feats, hydra, multi, nil
}

// scale applies the fitted scalers to the two views in place.
func (c *MultiRocketHydra) scale(hydra, multi *mat.Dense) error {
	if err := c.Sparse.Transform(hydra); err != nil {
		return fmt.Errorf("multirocket-hydra: %w", err)
	}
	if err := c.Standard.Transform(multi); err != nil {
		return fmt.Errorf("multirocket-hydra: %w", err)
	}
	return nil
}

// Features returns the scaled features of x as the ridge classifier sees
// them.
func (c *MultiRocketHydra) Features(x [][]float32) (*mat.Dense, error) {
	if len(x) == 0 {
		return nil, fmt.Errorf("multirocket-hydra: no series to transform")
	}
	feats, hydra, multi, err := c.transform(x)
	if err != nil {
		return nil, err
	}
	if err := c.scale(hydra, multi); err != nil {
		return nil, err
	}
	return feats, nil
}

// Predict returns the predicted class id of each series of x.
func (c *MultiRocketHydra) Predict(x [][]float32) ([]int, error) {
	feats, err := c.Features(x)
	if err != nil {
		return nil, err
	}
	return c.Ridge.Predict(feats)
}
