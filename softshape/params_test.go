package softshape

import (
	"slices"
	"testing"

	"github.com/gomlx/gomlx/core/tensors"
)

// TestNewLogitsExec: the Exec maps [B, T] to logits [B, C] and creates the
// variables in its store; the same seed gives the same logits.
func TestNewLogitsExec(t *testing.T) {
	backend := testBackend(t)
	m, err := New(DefaultConfig(), 64, 3, 0)
	if err != nil {
		t.Fatal(err)
	}
	run := func() []float32 {
		store, exec, err := NewLogitsExec(backend, m, Dense, 7)
		if err != nil {
			t.Fatal(err)
		}
		defer store.Finalize()
		defer exec.Finalize()
		flat := make([]float32, 2*64)
		for i := range flat {
			flat[i] = float32(i%7) - 3
		}
		x := tensors.FromFlatDataAndDimensions(flat, 2, 64)
		defer x.FinalizeAll()
		out, err := exec.Call(x)
		if err != nil {
			t.Fatal(err)
		}
		defer out[0].FinalizeAll()
		if d := out[0].Shape().Dimensions; len(d) != 2 || d[0] != 2 || d[1] != 3 {
			t.Fatalf("logits shape %v, want [2 3]", d)
		}
		if ParameterCount(store) == 0 {
			t.Error("no trainable variables created")
		}
		v, err := tensors.CopyFlatData[float32](out[0])
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if a, b := run(), run(); !slices.Equal(a, b) {
		t.Errorf("same seed, different logits: %v vs %v", a, b)
	}
}
