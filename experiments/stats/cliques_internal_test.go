package stats

import (
	"math"
	"reflect"
	"testing"
)

func TestCliques(t *testing.T) {
	n := math.NaN()
	cases := []struct {
		name string
		p    [][]float64
		want [][]int
	}{
		{
			// A~B, B~C, A differs from C: two overlapping cliques.
			name: "chain",
			p:    [][]float64{{n, 0.5, 0.01}, {0.5, n, 0.5}, {0.01, 0.5, n}},
			want: [][]int{{0, 1}, {1, 2}},
		},
		{
			name: "all alike",
			p:    [][]float64{{n, 0.5, 0.2}, {0.5, n, 0.5}, {0.2, 0.5, n}},
			want: [][]int{{0, 1, 2}},
		},
		{
			// p equal to alpha counts as significant (Holm rejects at <=).
			name: "all different",
			p:    [][]float64{{n, 0.05, 0.01}, {0.05, n, 0.01}, {0.01, 0.01, n}},
			want: nil,
		},
		{
			// B~C only; A and D stand alone.
			name: "middle pair",
			p: [][]float64{
				{n, 0.01, 0.01, 0.01},
				{0.01, n, 0.9, 0.01},
				{0.01, 0.9, n, 0.01},
				{0.01, 0.01, 0.01, n},
			},
			want: [][]int{{1, 2}},
		},
	}
	for _, c := range cases {
		if got := cliques(c.p, 0.05); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
}
