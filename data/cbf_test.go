package data

import (
	"math"
	"reflect"
	"testing"
)

func TestCBFShapes(t *testing.T) {
	d := CBF(30, 128, 7)
	if d.Name != CBFName || len(d.Series) != 90 || len(d.Labels) != 90 || d.Length != 128 {
		t.Fatalf("name %s, %d rows, %d labels, length %d", d.Name, len(d.Series), len(d.Labels), d.Length)
	}
	if !reflect.DeepEqual(d.ClassNames, []string{"cylinder", "bell", "funnel"}) {
		t.Errorf("class names %q", d.ClassNames)
	}
	if !reflect.DeepEqual(d.ClassCounts(), []int{30, 30, 30}) {
		t.Errorf("class counts %v", d.ClassCounts())
	}
	for i, row := range d.Series {
		if len(row) != 128 {
			t.Fatalf("row %d has %d values", i, len(row))
		}
	}
	if d.HasMissing() || d.NumTrain != 0 {
		t.Errorf("HasMissing %v, NumTrain %d", d.HasMissing(), d.NumTrain)
	}
	if other := CBF(4, 40, 1); len(other.Series) != 12 || other.Length != 40 {
		t.Errorf("CBF(4, 40): %d rows of %d", len(other.Series), other.Length)
	}
}

func TestCBFDeterministic(t *testing.T) {
	a, b, c := CBF(10, 64, 3), CBF(10, 64, 3), CBF(10, 64, 4)
	if !reflect.DeepEqual(a, b) {
		t.Error("same seed gives different data")
	}
	if reflect.DeepEqual(a.Series, c.Series) {
		t.Error("different seeds give the same data")
	}
}

// TestCBFShapesByClass checks the Saito formulas on averages: the noise
// averages out, leaving a plateau for cylinder, a rising ramp for bell and a
// falling one for funnel, all zero before t = 16 and around 6 inside.
func TestCBFShapesByClass(t *testing.T) {
	d := CBF(400, 128, 11)
	mean := make([][]float64, 3)
	for c := range mean {
		mean[c] = make([]float64, 128)
	}
	for i, row := range d.Series {
		for t, v := range row {
			mean[d.Labels[i]][t] += v / 400
		}
	}
	for c := range 3 {
		if before := avg(mean[c][:16]); math.Abs(before) > 0.2 {
			t.Errorf("class %d: mean %.2f before t=16, want 0", c, before)
		}
	}
	// At t = 47 every series is inside [a, b] (a ≤ 32, b ≥ a+32 ≥ 48).
	if v := mean[0][47]; math.Abs(v-6) > 0.3 {
		t.Errorf("cylinder at t=47: %.2f, want 6", v)
	}
	if mean[1][40] >= mean[1][60] {
		t.Errorf("bell does not rise: %.2f at 40, %.2f at 60", mean[1][40], mean[1][60])
	}
	if mean[2][40] <= mean[2][60] {
		t.Errorf("funnel does not fall: %.2f at 40, %.2f at 60", mean[2][40], mean[2][60])
	}
}

// TestCBFSeparable: on one fold of the z-normalised data, a 1-nearest-
// neighbour and a nearest-centroid classifier (Euclidean) are far above
// chance (1/3).
func TestCBFSeparable(t *testing.T) {
	d := CBF(100, 128, 5)
	splits, err := Folds(d, 5, 1)
	if err != nil {
		t.Fatal(err)
	}
	fd, err := Prepare(d, splits[0])
	if err != nil {
		t.Fatal(err)
	}
	centroids := make([][]float32, 3)
	counts := make([]int, 3)
	for c := range centroids {
		centroids[c] = make([]float32, fd.Length)
	}
	for i, x := range fd.TrainX {
		counts[fd.TrainY[i]]++
		for t, v := range x {
			centroids[fd.TrainY[i]][t] += v
		}
	}
	for c := range centroids {
		for t := range centroids[c] {
			centroids[c][t] /= float32(counts[c])
		}
	}
	nn := accuracy(fd.TestX, fd.TestY, fd.TrainX, fd.TrainY)
	nc := accuracy(fd.TestX, fd.TestY, centroids, []int{0, 1, 2})
	t.Logf("1-NN accuracy %.3f, nearest-centroid accuracy %.3f on %d test series", nn, nc, len(fd.TestX))
	if nn < 0.85 || nc < 0.55 {
		t.Errorf("1-NN accuracy %.3f (want >= 0.85), nearest-centroid %.3f (want >= 0.55)", nn, nc)
	}
}

// accuracy classifies each x by its nearest reference (Euclidean).
func accuracy(xs [][]float32, ys []int, refs [][]float32, refY []int) float64 {
	correct := 0
	for i, x := range xs {
		best, bestDist := -1, math.Inf(1)
		for r, ref := range refs {
			dist := 0.0
			for t, v := range x {
				dist += float64(v-ref[t]) * float64(v-ref[t])
			}
			if dist < bestDist {
				best, bestDist = refY[r], dist
			}
		}
		if best == ys[i] {
			correct++
		}
	}
	return float64(correct) / float64(len(xs))
}

func TestCBFPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("CBF(0, 128) did not panic")
		}
	}()
	CBF(0, 128, 1)
}

func avg(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
