// Package rocket holds two convolutional baselines in plain Go.
//
// MiniRocket (Dempster, Schmidt & Webb, "MiniRocket: A Very Fast (Almost)
// Deterministic Transform for Time Series Classification", KDD 2021): the
// transform (84 fixed kernels of length 9, dilations, biases from
// quantiles of convolution outputs, PPV features) and the ridge
// classifier it is paired with, scikit-learn's
// RidgeClassifierCV(alphas=logspace(-3, 3, 10), normalize=True), whose
// regularisation is chosen by efficient leave-one-out cross-validation.
// It was written from the paper and from the behaviour of the authors'
// reference code (github.com/angus924/minirocket, code/minirocket.py):
// the same kernels, dilations, quantile sequence, padding rule and
// feature order.
//
// MultiRocket-Hydra, as aeon's MultiRocketHydraClassifier (the SoftShape
// paper's MR-H): MultiRocket (MiniRocket's kernels, dilations, biases and
// padding rule on the series and on its first differences, each fitted on
// its own representation, pooling PPV, LSPV, MPV and MIPV: 49,728
// features with aeon's defaults) and Hydra (groups of competing random
// kernels, count-max and count-min features: 1,024 per dilation), scaled
// as aeon scales them (a sparse scaler for Hydra, a standard scaler for
// MultiRocket) and classified by the same ridge without normalize. It was
// written from the behaviour of aeon's code
// (aeon/classification/convolution_based/_mr_hydra.py and _hydra.py,
// aeon/transformations/collection/convolution_based/_multirocket.py and
// _hydra.py) and the authors' (github.com/angus924/hydra,
// github.com/ChangWeiTan/MultiRocket), including the reference's quirks
// that shape its published accuracies (see MultiRocket.Apply and Pooled).
//
// Both transforms share one implementation of the convolution, the
// dilations, the bias quantiles and the padding alternation. The random
// parts (the training series the biases are drawn from, Hydra's kernels)
// come from Go's PCG generator seeded with the run's seed: results depend
// on the seed, and given the seed they are deterministic, whatever the
// number of workers; no seed reproduces the reference's draws (NumPy's
// and torch's generators).
//
// It needs only plain slices and gonum: it sits beside package data in the
// module's layers and knows nothing of SoftShape.
package rocket
