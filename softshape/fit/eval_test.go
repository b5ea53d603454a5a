package fit

import (
	"math"
	"slices"
	"testing"
)

// TestEvaluate scores three sets with logits worked out by hand: A (300
// samples, two passes) always predicts class 0 with softmax (3/4, 1/4), its
// labels alternating 0, 1; B has three 3-class samples, two right; C is
// empty. It checks the passes' rows, every cross-entropy and the accuracies.
func TestEvaluate(t *testing.T) {
	a := make([]int, 300)
	for i := range a {
		a[i] = i % 2
	}
	b := []int{2, 1, 0}
	bLogits := []float32{0, 0, 0, 0, 5, 0, 1, 0, 0}
	var passes [][]int
	scores, err := Evaluate([][]int{a, b, nil}, func(c int, rows []int) ([][]float32, error) {
		passes = append(passes, slices.Clone(rows))
		out := make([][]float32, 3)
		for range rows[0] {
			out[0] = append(out[0], float32(math.Log(3)), 0)
		}
		if rows[1] > 0 {
			out[1] = bLogits
		}
		return out, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := [][]int{{256, 3, 0}, {44, 0, 0}}; !slices.EqualFunc(passes, want, slices.Equal) {
		t.Errorf("passes' rows %v, want %v", passes, want)
	}
	if len(scores[0].CE) != 300 || scores[0].Acc != 0.5 {
		t.Fatalf("set A: %d cross-entropies, accuracy %v; want 300 and 0.5", len(scores[0].CE), scores[0].Acc)
	}
	for i, l := range scores[0].CE {
		want := math.Log(4.0 / 3)
		if a[i] == 1 {
			want = math.Log(4)
		}
		if math.Abs(l-want) > 1e-6 {
			t.Fatalf("set A sample %d: cross-entropy %v, want %v", i, l, want)
		}
	}
	wantB := []float64{math.Log(3), math.Log(1 + 2*math.Exp(-5)), math.Log(math.E+2) - 1}
	for i, l := range scores[1].CE {
		if math.Abs(l-wantB[i]) > 1e-6 {
			t.Errorf("set B sample %d: cross-entropy %v, want %v", i, l, wantB[i])
		}
	}
	if scores[1].Acc != 2.0/3 {
		t.Errorf("set B accuracy %v, want 2/3", scores[1].Acc)
	}
	if len(scores[2].CE) != 0 || !math.IsNaN(scores[2].Acc) {
		t.Errorf("empty set: %v, want no cross-entropies and a NaN accuracy", scores[2])
	}
}

// TestEvaluateBadLogits checks that logits that do not fit the pass are an
// error, not a panic or a silent misreading.
func TestEvaluateBadLogits(t *testing.T) {
	labels := [][]int{{0, 1, 0}}
	for name, out := range map[string][][]float32{
		"too few sets":      {},
		"missing logits":    {nil},
		"rows do not split": {{1, 2, 3, 4}},
	} {
		if _, err := Evaluate(labels, func(int, []int) ([][]float32, error) { return out, nil }); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// TestSoftmaxByHand: softmax of logits 0 and ln 3 is 1/4 and 3/4; the
// arg-max is the first of equal logits, as Evaluate counts a prediction.
func TestSoftmaxByHand(t *testing.T) {
	p, arg := Softmax([]float32{0, float32(math.Log(3))})
	if math.Abs(p[0]-0.25) > 1e-7 || math.Abs(p[1]-0.75) > 1e-7 || arg != 1 {
		t.Errorf("Softmax(0, ln 3) = %v, arg-max %d; want [0.25 0.75], 1", p, arg)
	}
	p, arg = Softmax([]float32{2, 5, 5})
	if arg != 1 || p[1] != p[2] || math.Abs(p[0]+p[1]+p[2]-1) > 1e-15 {
		t.Errorf("Softmax(2, 5, 5) = %v, arg-max %d; want equal 2nd and 3rd, arg-max 1", p, arg)
	}
}

// TestArgmaxByHand: the first of equal maxima, a NaN never, and the same
// class as Softmax names.
func TestArgmaxByHand(t *testing.T) {
	nan := float32(math.NaN())
	for _, c := range []struct {
		row  []float32
		want int
	}{
		{[]float32{1}, 0},
		{[]float32{2, 5, 5}, 1},
		{[]float32{-3, -1, -2}, 1},
		{[]float32{nan, 0, 4}, 2},
		{[]float32{7, nan, 7}, 0},
	} {
		if got := Argmax(c.row); got != c.want {
			t.Errorf("Argmax(%v) = %d, want %d", c.row, got, c.want)
		}
		if _, arg := Softmax(c.row); arg != c.want {
			t.Errorf("Softmax(%v)'s arg-max %d, want %d", c.row, arg, c.want)
		}
	}
}
