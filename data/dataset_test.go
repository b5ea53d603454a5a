package data

import "testing"

func TestValidate(t *testing.T) {
	d := &Dataset{Name: "hand", Series: [][]float64{{1, 2}, {3}}, Labels: []int{0, 1}, ClassNames: []string{"a", "b"}, Length: 2}
	_, err := Folds(d, 2, 1)
	wantError(t, err, "dataset hand", "row 1 has 1 values, Length is 2")
	d.Series[1] = []float64{3, 4}
	d.Labels[1] = 2
	_, err = Prepare(d, Split{Train: []int{0, 1}})
	wantError(t, err, "row 1 has class id 2, want 0..1")
	d.Labels = d.Labels[:1]
	_, err = Folds(d, 2, 1)
	wantError(t, err, "2 rows but 1 labels")
}
