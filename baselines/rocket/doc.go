// Package rocket is MiniRocket (Dempster, Schmidt & Webb, "MiniRocket: A
// Very Fast (Almost) Deterministic Transform for Time Series
// Classification", KDD 2021) in plain Go: the transform (84 fixed kernels
// of length 9, dilations, biases from quantiles of convolution outputs,
// PPV features) and the ridge classifier it is paired with, scikit-learn's
// RidgeClassifierCV(alphas=logspace(-3, 3, 10), normalize=True), whose
// regularisation is chosen by efficient leave-one-out cross-validation.
//
// It was written from the paper and from the behaviour of the authors'
// reference code (github.com/angus924/minirocket, code/minirocket.py): the
// same kernels, dilations, quantile sequence, padding rule and feature
// order. The biases are drawn from one randomly chosen training series per
// kernel and dilation, so results depend on the seed; given the seed they
// are deterministic, whatever the number of workers.
//
// It needs only plain slices and gonum: it sits beside package data in the
// module's layers and knows nothing of SoftShape.
package rocket
