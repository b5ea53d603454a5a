package kernels

import "testing"

// TestToeplitzPays: the block-Toeplitz form is chosen exactly while it
// multiplies no more than the windows, n·Σo ≤ Σ min(k, 2n−1)·o, checked by
// hand for the Inception's kernels (39, 19, 9 taps, 32 channels each).
func TestToeplitzPays(t *testing.T) {
	sizes, widths := []int{39, 19, 9}, []int{32, 32, 32}
	for _, tc := range []struct {
		n    int
		want bool
	}{
		{11, true},  // 11·96 = 1056 ≤ (21+19+9)·32 = 1568: MiddlePhalanxTW's sparse layer
		{19, true},  // 1824 ≤ (37+19+9)·32 = 2080: its dense layers
		{22, true},  // 2112 ≤ 67·32 = 2144
		{23, false}, // 2208 > 2144
		{31, false}, // ArrowHead's sparse layer
		{59, false}, // its dense layers
		{1, true},   // 96 ≤ (1+1+1)·32
	} {
		if got := ToeplitzPays(tc.n, sizes, widths); got != tc.want {
			t.Errorf("n = %d: ToeplitzPays %t, want %t", tc.n, got, tc.want)
		}
	}
}
