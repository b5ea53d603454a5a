package softshape

import (
	"fmt"
	"slices"
	"testing"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	"github.com/gomlx/gomlx/core/graph"

	"github.com/softshape-go/softshape/internal/tensortest"
)

// TestTrimTapsKeepsTheUsefulTaps: over n tokens a kernel keeps its central
// min(k, 2n−1) taps, odd and centred, and kernels that fit are untouched.
func TestTrimTapsKeepsTheUsefulTaps(t *testing.T) {
	for _, tc := range []struct {
		n    int
		in   []int
		want []int
	}{
		{19, []int{39, 19, 9}, []int{37, 19, 9}}, // MiddlePhalanxTW's shapes
		{11, []int{39, 19, 9}, []int{21, 19, 9}}, // after its sparse layer's merge
		{5, []int{39, 19, 9}, []int{9, 9, 9}},
		{1, []int{7, 3, 1}, []int{1, 1, 1}},
		{60, []int{39, 19, 9}, []int{39, 19, 9}}, // ArrowHead: nothing to trim
	} {
		g := graph.NewGraph(testBackend(t), "trim")
		ws := make([]*graph.Node, len(tc.in))
		for i, k := range tc.in {
			ws[i] = graph.Zeros(g, shapes.Make(dtypes.Float32, k*2, 3)) // 2 channels
		}
		got, sizes := trimTaps(ws, tc.in, tc.n, 2)
		for i := range tc.in {
			if sizes[i] != tc.want[i] || got[i].Shape().Dimensions[0] != 2*tc.want[i] {
				t.Errorf("n=%d, kernel %d: %d taps (%s), want %d", tc.n, tc.in[i], sizes[i], got[i].Shape(), tc.want[i])
			}
		}
		g.Finalize()
	}
}

// TestInceptionFastMatchesPlain: the Inception in its speed forms
// (inceptionFast: the taps that only meet padding left out, then the
// block-Toeplitz product on short sequences and, except on pure Go, the
// backend's convolution on long ones) gives the plain Inception's output and
// gradients (input and every weight, the trimmed taps' zero included), against
// both layouts of its windows, over 1–59 tokens: kernels longer than the
// sequence (ks=40 over 1–31 tokens) and not (ks=8, and ks=40 over 59). The
// forms sum in other orders than the windows, so the two agree to float32
// rounding. Run it with GOMLX_BACKEND=onnx:cpu (-tags onnx) for the forms of
// ONNX Runtime.
func TestInceptionFastMatchesPlain(t *testing.T) {
	for _, tc := range []struct{ b, n, d, ks int }{{2, 19, 16, 40}, {2, 11, 16, 40}, {3, 3, 8, 40}, {2, 31, 16, 40}, {2, 59, 16, 40}, {2, 5, 16, 8}, {2, 1, 8, 8}} {
		for _, gather := range []bool{true, false} {
			t.Run(fmt.Sprintf("B%d_n%d_d%d_ks%d_gather=%t", tc.b, tc.n, tc.d, tc.ks, gather), func(t *testing.T) {
				outs := runInceptionForms(t, tc.b, tc.n, tc.d, tc.ks, windowsLayout(gather), Build{}.inceptionFast)
				for i, name := range inceptionGradNames {
					want, got := outs[0][i], outs[1][i]
					tol := 1e-6 * max(1, tensortest.MaxAbs(want))
					if diff := tensortest.MaxAbsDiff(t, got, want); diff > tol {
						t.Errorf("%s differs from the plain form's by %.3g (tolerance %.3g)", name, diff, tol)
					}
				}
			})
		}
	}
}

// TestFastStepMatchesPlain: one training step of the whole model from the
// same weights on a real batch (MiddlePhalanxTW, whose Inception takes the
// block-Toeplitz form, and ArrowHead, whose takes the backend's convolution
// or, on pure Go, the plain windows), in both phases, gives the same loss
// (relative 1e-5) and the same gradient for every trainable variable (each
// within 1e-4 of its largest entry, or 1e-10 where that is below 1e-6: the
// router starts at zero, its gradient a difference of near-equal terms) with the speed forms (RunOptions.Fast) as
// with the plain graphs. Dropout is off, so both graphs see the same values.
func TestFastStepMatchesPlain(t *testing.T) {
	for _, name := range []string{"MiddlePhalanxTW", "ArrowHead"} {
		t.Run(name, func(t *testing.T) {
			ds := loadUCR(t, name)
			p, err := Preset(ProtocolReferenceFresh)
			if err != nil {
				t.Fatal(err)
			}
			cfg := DefaultConfig().WithProtocol(p)
			cfg.Dropout = 0
			plain, err := New(cfg, ds.Length, ds.NumClasses(), RefShapeLength(ds.Name, ds.Length))
			if err != nil {
				t.Fatal(err)
			}
			fast := plain.WithFast(true)
			xt, yt := realBatch(ds, 48)
			for _, phase := range []Phase{Dense, Sparse} {
				t.Run(phase.String(), func(t *testing.T) {
					store := stepStore(t, cfg, 3, 1)
					vars, plainOuts := trainStep(t, store, plain, phase, xt, yt) // initialises the variables both graphs use
					fastVars, fastOuts := trainStep(t, store, fast, phase, xt, yt)
					if !slices.Equal(vars, fastVars) {
						t.Fatalf("trainable variables differ: %q plain, %q fast", vars, fastVars)
					}
					checkSameStep(t, vars, "plain", "fast", plainOuts, fastOuts)
				})
			}
		})
	}
}
