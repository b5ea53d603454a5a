package softshape

import (
	"math"
	"strings"
	"testing"

	"github.com/gomlx/compute"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"

	"github.com/softshape-go/softshape/internal/tensortest"
)

// testBackend returns the backend tests run on (tensortest.Backend).
func testBackend(t testing.TB) compute.Backend { return tensortest.Backend(t) }

// buildAll creates every variable by running the sparse graph once on zeros.
func buildAll(t testing.TB, backend compute.Backend, m *Model, store *model.Store) {
	t.Helper()
	exec, err := model.NewExec(backend, store, func(scope *model.Scope, x *graph.Node) *graph.Node {
		return m.Forward(scope, x, Sparse).Logits
	})
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Call(tensors.FromFlatDataAndDimensions(make([]float32, 2*m.Shape.SeriesLen), 2, m.Shape.SeriesLen))
	if err != nil {
		t.Fatal(err)
	}
	if got := out[0].Shape().Dimensions; got[0] != 2 || got[1] != m.Shape.NumClasses {
		t.Fatalf("logits shape %v, want [2 %d]", got, m.Shape.NumClasses)
	}
}

// TestParameterCountMatchesReference checks the reference formula
// P = (128m+128) + 128N + 1041 + (128E + 33024E + 128) + 77056·D + 129C
// on the four configurations measured in the authors' PyTorch code.
func TestParameterCountMatchesReference(t *testing.T) {
	backend := testBackend(t)
	cases := []struct{ c, t, m, want int }{
		{2, 150, 16, 228371},
		{2, 500, 16, 239635},
		{3, 128, 32, 262548},
		{10, 500, 64, 510491},
	}
	for _, tc := range cases {
		cfg := DefaultConfig()
		cfg.ShapeLength = tc.m
		m, err := New(cfg, tc.t, tc.c, 0)
		if err != nil {
			t.Fatal(err)
		}
		store := model.NewStore()
		cfg.Apply(store)
		buildAll(t, backend, m, store)
		if got := ParameterCount(store); got != tc.want {
			t.Errorf("C=%d T=%d m=%d: %d parameters, want %d (N=%d)", tc.c, tc.t, tc.m, got, tc.want, m.Shape.NumShapes)
		}
	}
}

// run1 compiles and runs a one-output graph function on the test backend.
func run1[F graph.ExecGraphFn](t *testing.T, fn F, args ...any) *tensors.Tensor {
	t.Helper()
	exec, err := graph.NewExec(testBackend(t), fn)
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Call(args...)
	if err != nil {
		t.Fatal(err)
	}
	return out[0]
}

// TestMergeHandMade checks soft shape sparsification on a hand-made batch: which
// embeddings are kept, their order, and the fused embedding's value.
func TestMergeHandMade(t *testing.T) {
	for name, m := range map[string]func(u, s *graph.Node, k int, fused bool) *graph.Node{"merge": merge, "pairwise": mergePairwise, "sorted": mergeSorted} {
		t.Run(name, func(t *testing.T) { checkMergeHandMade(t, m) })
	}
}

func checkMergeHandMade(t *testing.T, merge func(u, s *graph.Node, k int, fused bool) *graph.Node) {
	// One sample, five tokens of width 2, scores chosen so tokens 3 and 1 win.
	u := [][][]float32{{{1, 2}, {3, 4}, {5, 6}, {7, 8}, {9, 10}}}
	s := [][][]float32{{{0.1}, {0.8}, {0.3}, {0.9}, {0.2}}}
	got := run1(t, func(u, s *graph.Node) *graph.Node { return merge(u, s, 2, true) }, u, s).Value().([][][]float32)
	// Kept in temporal order: token 1 (×0.8), token 3 (×0.9); fused = 0.1·t0 + 0.3·t2 + 0.2·t4.
	want := [][]float32{{2.4, 3.2}, {6.3, 7.2}, {0.1*1 + 0.3*5 + 0.2*9, 0.1*2 + 0.3*6 + 0.2*10}}
	if len(got[0]) != 3 {
		t.Fatalf("merged to %d tokens, want 3 (K=2 plus the fused one)", len(got[0]))
	}
	for i := range want {
		for j := range want[i] {
			if math.Abs(float64(got[0][i][j]-want[i][j])) > 1e-5 {
				t.Errorf("token %d dim %d: got %v, want %v", i, j, got[0][i][j], want[i][j])
			}
		}
	}
	// Without the fused token ("w/o Soft Sparse") only the kept tokens remain.
	hard := run1(t, func(u, s *graph.Node) *graph.Node { return merge(u, s, 2, false) }, u, s).Value().([][][]float32)
	if len(hard[0]) != 2 || hard[0][0][0] != want[0][0] || hard[0][1][1] != want[1][1] {
		t.Errorf("hard selection = %v, want the two kept tokens %v", hard, want[:2])
	}
}

// TestMergeFormsAgree: with many tied scores, and scores that differ only in
// their last bits, the linear merge keeps the same tokens in the same order as
// the pairwise and the sorted references, gives the same fused token, and the
// same gradients, for short and long sequences and several K.
func TestMergeFormsAgree(t *testing.T) {
	for _, tc := range []struct{ b, n, d, k int }{{3, 300, 4, 151}, {2, 37, 3, 1}, {2, 37, 3, 36}, {1, 1200, 2, 600}} {
		b, n, d, k := tc.b, tc.n, tc.d, tc.k
		u := make([]float32, b*n*d)
		s := make([]float32, b*n)
		for i := range u {
			u[i] = float32(math.Sin(float64(i) * 0.7))
		}
		for i := range s {
			switch i % 3 {
			case 0: // many ties
				s[i] = float32(int(7*math.Abs(math.Sin(float64(i)*1.3)))) / 7
			case 1: // neighbours one float32 step apart
				s[i] = math.Nextafter32(0.5, 1) + float32(i%5)*1.2e-7
			default: // small scores
				s[i] = float32(1e-6 * math.Abs(math.Sin(float64(i))))
			}
		}
		ut := tensors.FromFlatDataAndDimensions(u, b, n, d)
		st := tensors.FromFlatDataAndDimensions(s, b, n, 1)
		outs := map[string][]float32{}
		for name, m := range map[string]func(u, s *graph.Node, k int, fused bool) *graph.Node{"pairwise": mergePairwise, "sorted": mergeSorted, "merge": merge} {
			exec, err := graph.NewExec(testBackend(t), func(u, s *graph.Node) []*graph.Node {
				y := m(u, s, k, true)
				// A loss that weighs every output position differently.
				wts := graph.Iota(u.Graph(), y.Shape(), 1)
				loss := graph.ReduceAllSum(graph.Mul(y, graph.AddScalar(wts, 1)))
				return append([]*graph.Node{y}, graph.Gradient(loss, u, s)...)
			})
			if err != nil {
				t.Fatal(err)
			}
			res, err := exec.Call(ut, st)
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range res {
				outs[name] = append(outs[name], tensors.MustCopyFlatData[float32](r)...)
				if i == 0 && r.Shape().Dimensions[1] != k+1 {
					t.Fatalf("%s: %v tokens out", name, r.Shape())
				}
			}
		}
		for _, name := range []string{"sorted", "merge"} {
			for i, v := range outs[name] {
				if want := outs["pairwise"][i]; math.Abs(float64(v-want)) > 1e-3*(1+math.Abs(float64(want))) {
					t.Fatalf("B=%d n=%d K=%d: %s differs from pairwise at %d: %v vs %v", b, n, k, name, i, v, want)
				}
			}
		}
	}
}

// TestKeptTokensAndSchedule checks K = ceil(remain·n), the float32 gotcha of the
// reference (η=0.7 keeps 4 of 10) and the per-layer schedule.
func TestKeptTokensAndSchedule(t *testing.T) {
	cfg := DefaultConfig()
	if r := cfg.RemainFractions(); len(r) != 2 || r[0] != 1 || r[1] != 0.5 {
		t.Errorf("L=2 η=0.5 remain %v, want [1 0.5]", r)
	}
	cfg.Depth = 3
	if r := cfg.RemainFractions(); r[0] != 1 || r[1] != 0.75 || r[2] != 0.5 {
		t.Errorf("L=3 remain %v, want [1 0.75 0.5]", r)
	}
	cfg.Depth, cfg.SparseRatio = 2, 0.7
	if k := KeptTokens(cfg.RemainFractions()[1], 10); k != 4 {
		t.Errorf("η=0.7, n=10 keeps %d, want 4 (float32 remain 0.30000001)", k)
	}
	cfg.Depth = 1
	if r := cfg.RemainFractions(); r[0] != 1 {
		t.Errorf("L=1 remain %v, want [1] (never sparse)", r)
	}
	cfg.Schedule = "every_layer"
	cfg.Depth, cfg.SparseRatio = 3, 0.5
	if r := cfg.RemainFractions(); r[0] != 0.5 || r[2] != 0.5 {
		t.Errorf("every_layer remain %v, want all 0.5", r)
	}
	if k := KeptTokens(0.5, 122); k != 61 {
		t.Errorf("KeptTokens(0.5, 122) = %d, want 61", k)
	}
}

// TestTopKGates checks the router: for every k, the gates of the selected experts
// sum to 1 (up to the 1e-6 of the renormalisation) and exactly k are non-zero.
func TestTopKGates(t *testing.T) {
	p := [][]float32{{0.1, 0.5, 0.15, 0.25}, {0.4, 0.3, 0.2, 0.1}, {0.25, 0.25, 0.25, 0.25}}
	for k := 1; k <= 4; k++ {
		g := run1(t, func(p *graph.Node) *graph.Node { gates, _ := topKGates(p, k); return gates }, p).Value().([][]float32)
		for i, row := range g {
			sum, nonZero := 0.0, 0
			for _, v := range row {
				sum += float64(v)
				if v != 0 {
					nonZero++
				}
			}
			if math.Abs(sum-1) > 1e-4 || nonZero != k {
				t.Errorf("k=%d row %d: gates %v sum %.6f with %d non-zero", k, i, row, sum, nonZero)
			}
		}
		if k == 2 && (g[0][1] == 0 || g[0][3] == 0 || math.Abs(float64(g[0][1])-0.5/0.75) > 1e-4) {
			t.Errorf("k=2 row 0 gates %v, want experts 1 and 3 with 0.667 and 0.333", g[0])
		}
	}
}

// TestAuxLossAllOnOneExpert: with the router initialised to zero every token goes
// to expert 0 (ties go to the lowest index), so importance and load are both
// one-hot and each squared coefficient of variation equals Ĉ: aux = 2Ĉ.
func TestAuxLossAllOnOneExpert(t *testing.T) {
	for _, e := range []int{2, 3, 5} {
		cfg := DefaultConfig()
		cfg.EmbedDim = 16
		m, err := New(cfg, 64, e, 0)
		if err != nil {
			t.Fatal(err)
		}
		store := model.NewStore()
		exec, err := model.NewExec(testBackend(t), store, func(scope *model.Scope, v *graph.Node) *graph.Node {
			_, aux := m.moe(scope.In("moe"), v)
			return aux
		})
		if err != nil {
			t.Fatal(err)
		}
		v := make([]float32, 4*7*16)
		for i := range v {
			v[i] = float32(math.Sin(float64(i)))
		}
		out, err := exec.Call(tensors.FromFlatDataAndDimensions(v, 4, 7, 16))
		if err != nil {
			t.Fatal(err)
		}
		if got := float64(out[0].Value().(float32)); math.Abs(got-float64(2*e)) > 1e-3 {
			t.Errorf("Ĉ=%d: aux = %v, want 2Ĉ = %d", e, got, 2*e)
		}
	}
}

// TestEveryVariableGetsGradient builds the sparse-phase loss (cross-entropy plus
// λ·aux) and checks that every trainable variable gets a non-zero gradient: the
// router (through the gates and the importance loss) and, with k = Ĉ, every expert.
func TestEveryVariableGetsGradient(t *testing.T) {
	for _, k := range []int{1, 3} {
		cfg := DefaultConfig()
		cfg.ExpertsK = k
		cfg.EmbedDim = 32
		cfg.ShapeLength = 8
		paths, grads := sparseGradients(t, cfg, 60, 3)
		if len(grads) != 29 {
			t.Errorf("k=%d: %d trainable variables in the sparse graph, want 29", k, len(grads))
		}
		for i, flat := range grads {
			if sumOf(flat) == 0 {
				t.Errorf("k=%d: variable %s gets a zero gradient", k, paths[i])
			}
			// With k = Ĉ every expert's block of the first expert layer must move.
			if k == 3 && strings.HasSuffix(paths[i], "experts/fc1/weights") {
				blocks := make([]float64, 3)
				for j, v := range flat {
					blocks[(j%(3*32))/32] += float64(v)
				}
				for e, b := range blocks {
					if b == 0 {
						t.Errorf("k=3: expert %d gets no gradient", e)
					}
				}
			}
		}
	}
}

// sparseGradients builds the sparse-phase model of cfg for series of length T
// and C classes, runs one batch of 8 deterministic series, and returns the path
// and the absolute gradient of the total loss (cross-entropy + λ·aux) for every
// trainable variable the graph uses.
func sparseGradients(t *testing.T, cfg Config, seriesLen, numClasses int) (paths []string, grads [][]float32) {
	t.Helper()
	m, err := New(cfg, seriesLen, numClasses, 0)
	if err != nil {
		t.Fatal(err)
	}
	store := model.NewStore()
	store.RootScope().SetParam(model.ParamInitialSeed, int64(3))
	exec, err := model.NewExec(testBackend(t), store, func(scope *model.Scope, x, y *graph.Node) []*graph.Node {
		out := m.Forward(scope, x, Sparse)
		onehot := graph.OneHot(y, numClasses, out.Logits.DType())
		ce := graph.ReduceAllMean(graph.Neg(graph.ReduceSum(graph.Mul(onehot, graph.LogSoftmax(out.Logits, -1)), -1)))
		total := graph.Add(ce, graph.MulScalar(out.AuxLoss, cfg.MoELossWeight))
		var vars []*graph.Node
		paths = paths[:0]
		for v := range scope.IterVariables() {
			if v.Trainable && v.InUseByGraph(x.Graph()) {
				vars = append(vars, v.NodeValue(x.Graph()))
				paths = append(paths, v.Path())
			}
		}
		gs := graph.Gradient(total, vars...)
		res := make([]*graph.Node, len(gs))
		for i, gr := range gs {
			res[i] = graph.Abs(gr)
		}
		return res
	})
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float32, 8*seriesLen)
	y := make([]int32, 8)
	for i := range x {
		x[i] = float32(math.Sin(float64(i)*0.37) + 0.1*float64(i%7))
	}
	for i := range y {
		y[i] = int32(i % numClasses)
	}
	outs, err := exec.Call(tensors.FromFlatDataAndDimensions(x, 8, seriesLen), tensors.FromFlatDataAndDimensions(y, 8))
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range outs {
		grads = append(grads, tensors.MustCopyFlatData[float32](o))
	}
	return paths, grads
}

// sumOf sums a gradient.
func sumOf(x []float32) float64 {
	s := 0.0
	for _, v := range x {
		s += float64(v)
	}
	return s
}

// TestBadHyperparametersRejected: impossible values are rejected before any graph
// is built, with a message naming the parameter.
func TestBadHyperparametersRejected(t *testing.T) {
	cases := []struct {
		settings string
		t, c     int
		want     string
	}{
		{"shape_length=200", 150, 2, "shape_length: m=200 is longer than the series (T=150)"},
		{"stride=0", 150, 2, "stride=0: the stride q must be ≥ 1"},
		{"experts_k=3", 150, 2, "experts_k=3: k must be ≤ the number of experts Ĉ=2"},
		{"experts_k=0", 150, 2, "experts_k=0: k must be ≥ 1"},
		{"sparse_ratio=1", 150, 2, "sparse_ratio=1: the sparse ratio 1−η must be in [0, 1)"},
		{"sparse_ratio=-0.1", 150, 2, "sparse_ratio=-0.1: the sparse ratio 1−η must be in [0, 1)"},
		{"depth=0", 150, 2, "depth=0: the depth L must be ≥ 1"},
		{"num_experts=3C", 150, 2, `num_experts="3C": want an integer ≥ 1, "C", "C/2" or "2C"`},
		{"stride=x", 150, 2, `stride="x": want an integer ≥ 1, "m" or "auto"`},
		{"sparsify_schedule=bogus", 150, 2, `sparsify_schedule="bogus": want one of reference, every_layer`},
	}
	for _, tc := range cases {
		cfg, err := DefaultConfig().WithSettings(tc.settings)
		if err != nil {
			t.Fatalf("%s: %v", tc.settings, err)
		}
		_, err = New(cfg, tc.t, tc.c, 0)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to contain %q", tc.settings, err, tc.want)
		}
	}
	if _, err := DefaultConfig().WithSettings("no_such_param=1"); err == nil || !strings.Contains(err.Error(), "no_such_param") {
		t.Errorf("unknown setting: error %v, want it to name no_such_param", err)
	}
}

// TestAutoStride checks stride "auto" against the authors' rule
// (main_softshape.py: with m from the ratio column and m ≤ q, q = min(2, m);
// then q > m is capped at m), worked by hand, and against the rule before it.
func TestAutoStride(t *testing.T) {
	for _, tc := range []struct {
		settings        string
		seriesLen, refM int
		m, q, legacy    int
	}{
		{"", 24, 4, 4, 4, 2},                        // ItalyPowerDemand: fixed m = 4
		{"shape_length=3", 60, 0, 3, 3, 2},          // fixed m < 4: q capped at m
		{"shape_length=2", 60, 0, 2, 2, 2},          // the rules agree from here on
		{"shape_length=1", 60, 0, 1, 1, 1},          //
		{"shape_length=5", 60, 0, 5, 4, 4},          //
		{"", 150, 32, 32, 4, 4},                     // GunPoint
		{"shape_length_ratio=0.25", 16, 0, 4, 2, 2}, // ratio m = 4: min(2, m)
		{"shape_length_ratio=0.1", 30, 16, 3, 2, 2}, // ratio m = 3
		{"shape_length_ratio=0.1", 10, 16, 1, 1, 1}, // ratio m = 1
		{"shape_length_ratio=0.1", 80, 16, 8, 4, 4}, // DistalPhalanxOutlineAgeGroup
	} {
		cfg, err := DefaultConfig().WithSettings(tc.settings)
		if err != nil {
			t.Fatal(err)
		}
		s, err := cfg.Resolve(tc.seriesLen, 2, tc.refM)
		if err != nil {
			t.Fatalf("%q on T=%d: %v", tc.settings, tc.seriesLen, err)
		}
		if s.ShapeLen != tc.m || s.Stride != tc.q || s.NumShapes != (tc.seriesLen-tc.m)/tc.q+1 {
			t.Errorf("%q on T=%d, ref m=%d: m=%d q=%d J=%d, want m=%d q=%d", tc.settings, tc.seriesLen, tc.refM, s.ShapeLen, s.Stride, s.NumShapes, tc.m, tc.q)
		}
		if got := LegacyAutoStride(s.ShapeLen); got != tc.legacy {
			t.Errorf("LegacyAutoStride(%d) = %d, want %d", s.ShapeLen, got, tc.legacy)
		}
		if moved := cfg.AutoStrideMoved(tc.seriesLen, 2, tc.refM); moved != (tc.q != tc.legacy) {
			t.Errorf("%q on T=%d: AutoStrideMoved %t, want %t", tc.settings, tc.seriesLen, moved, tc.q != tc.legacy)
		}
	}
	// Only "auto" moves; a setting Resolve rejects moves nothing; Multi-Seq
	// moves when one of its scales does.
	for _, tc := range []struct {
		settings string
		moved    bool
	}{
		{"stride=2", false}, {"stride=m", false}, {"experts_k=3", false},
		{"multi_seq=4,8", true}, {"multi_seq=8,16", false},
	} {
		cfg, err := DefaultConfig().WithSettings(tc.settings)
		if err != nil {
			t.Fatal(err)
		}
		if got := cfg.AutoStrideMoved(24, 2, 4); got != tc.moved {
			t.Errorf("%q on ItalyPowerDemand's sizes: AutoStrideMoved %t, want %t", tc.settings, got, tc.moved)
		}
	}
}

// TestSettingsAndResolve checks the settings syntax and the data-dependent sizes.
func TestSettingsAndResolve(t *testing.T) {
	cfg, err := DefaultConfig().WithSettings("sparse_ratio=0.3;experts_k=2;depth=3;num_experts=2C;stride=m")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.SparseRatio != 0.3 || cfg.ExpertsK != 2 || cfg.Depth != 3 || cfg.NumExperts != "2C" || cfg.Stride != "m" {
		t.Fatalf("settings not applied: %+v", cfg)
	}
	s, err := cfg.Resolve(150, 3, 24)
	if err != nil {
		t.Fatal(err)
	}
	if s.ShapeLen != 24 || s.Stride != 24 || s.NumShapes != 6 || s.NumExperts != 6 {
		t.Errorf("resolved %+v, want m=24 q=24 J=6 Ĉ=6", s)
	}
	// ItalyPowerDemand (T=24, the authors' fixed m=4): their code keeps q=4
	// (q > m alone is capped), shapes at 0, 4, …, 20.
	s, err = DefaultConfig().Resolve(24, 2, 4)
	if err != nil || s.Stride != 4 || s.NumShapes != 6 {
		t.Errorf("fixed m=4 default stride: %+v %v, want q=4, J=6", s, err)
	}
	// m as a fraction of T (the paper's 0.1T, 0.8T).
	c2 := DefaultConfig()
	c2.ShapeLengthRatio = 0.8
	if s, err = c2.Resolve(150, 2, 16); err != nil || s.ShapeLen != 120 {
		t.Errorf("ratio 0.8 of 150: %+v %v, want m=120", s, err)
	}
	if c3, _ := DefaultConfig().WithSettings("num_experts=C/2"); true {
		if s, err = c3.Resolve(150, 5, 16); err != nil || s.NumExperts != 2 {
			t.Errorf("C/2 for C=5: %+v %v, want 2", s, err)
		}
	}
}
