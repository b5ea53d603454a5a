package fit

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// fakeRun is a run of fakeEngine: a name, and the epochs after which the
// engine stops it (stopAfter) or fails its training (failAt), -1 never.
type fakeRun struct {
	Run
	name              string
	stopAfter, failAt int
}

func (r *fakeRun) FitRun() *Run { return &r.Run }

// fakeEngine logs what Train asks of it; every step has loss 1 and one
// right prediction.
type fakeEngine struct {
	log         []string
	validateErr error
}

func names(rs []*fakeRun) string {
	var s []string
	for _, r := range rs {
		s = append(s, r.name)
	}
	return strings.Join(s, " ")
}

func (e *fakeEngine) TrainEpoch(act []*fakeRun, maxSteps int) error {
	e.log = append(e.log, fmt.Sprintf("epoch %d train [%s] %d steps", act[0].Epoch, names(act), maxSteps))
	for _, r := range act {
		if r.Epoch == r.failAt {
			r.Err = errors.New("loss is NaN")
			continue
		}
		for range r.StepsN {
			r.AddStep(1, 1, 1)
		}
	}
	return nil
}

func (e *fakeEngine) Validate(live []*fakeRun) ([]Scores, error) {
	e.log = append(e.log, fmt.Sprintf("validate [%s]", names(live)))
	return make([]Scores, len(live)), e.validateErr
}

func (e *fakeEngine) EndEpoch(r *fakeRun, _ Scores) error {
	e.log = append(e.log, fmt.Sprintf("end %s %d: %d steps, loss %v", r.name, r.Epoch, r.Steps, r.TrainLoss()))
	if r.Epoch == r.stopAfter {
		r.Done = true
	}
	return nil
}

// TestTrain drives three runs worked out by hand: A (5 samples in batches
// of 2: 3 steps) stops after epoch 1; B (1 step) fails in epoch 2; C (3
// steps) stops after epoch 0.
func TestTrain(t *testing.T) {
	a := &fakeRun{Run: NewRun(5, 2, 4, nil), name: "A", stopAfter: 1, failAt: -1}
	b := &fakeRun{Run: NewRun(4, 4, 3, nil), name: "B", stopAfter: -1, failAt: 2}
	c := &fakeRun{Run: NewRun(3, 1, 2, nil), name: "C", stopAfter: 0, failAt: -1}
	e := &fakeEngine{}
	if err := Train(e, []*fakeRun{a, b, c}); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"epoch 0 train [A B C] 3 steps", "validate [A B C]",
		"end A 0: 3 steps, loss 1", "end B 0: 1 steps, loss 1", "end C 0: 3 steps, loss 1",
		"epoch 1 train [A B] 3 steps", "validate [A B]",
		"end A 1: 3 steps, loss 1", "end B 1: 1 steps, loss 1",
		"epoch 2 train [B] 1 steps", "validate []",
	}
	if !slices.Equal(e.log, want) {
		t.Errorf("Train asked\n%s\nwant\n%s", strings.Join(e.log, "\n"), strings.Join(want, "\n"))
	}
	if !a.Done || a.Err != nil || !b.Done || b.Err == nil || !c.Done || c.Err != nil {
		t.Errorf("A done %v err %v, B done %v err %v, C done %v err %v: want A and C stopped, B failed",
			a.Done, a.Err, b.Done, b.Err, c.Done, c.Err)
	}
	if got := a.Batch(2); !slices.Equal(got, []int{4}) {
		t.Errorf("A's last batch %v, want [4] (no shuffling)", got)
	}
}

// TestTrainShufflesAndFails checks that a run with a generator has its
// order shuffled every epoch, as the generator draws it, and that a failed
// validation is the error of Train, naming the epoch.
func TestTrainShufflesAndFails(t *testing.T) {
	r := &fakeRun{Run: NewRun(6, 4, 1, rand.New(rand.NewPCG(1, 2))), name: "R", stopAfter: -1, failAt: -1}
	want := []int{0, 1, 2, 3, 4, 5}
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(want), func(i, j int) { want[i], want[j] = want[j], want[i] })
	e := &fakeEngine{validateErr: errors.New("out of memory")}
	err := Train(e, []*fakeRun{r})
	if err == nil || !strings.Contains(err.Error(), "epoch 0 validation: out of memory") {
		t.Errorf("Train: %v, want the validation's error for epoch 0", err)
	}
	if !slices.Equal(r.Order, want) || slices.IsSorted(r.Order) {
		t.Errorf("order %v, want %v (shuffled once)", r.Order, want)
	}
	if r.StepsN != 2 || !slices.Equal(r.Batch(1), want[4:]) {
		t.Errorf("%d steps, last batch %v; want 2 and %v", r.StepsN, r.Batch(1), want[4:])
	}
}

// TrainAcc is GoMLX's float32 running mean of the batch accuracies: three
// batches of 51 with 13, 28 and 18 right give 0x3fd8ae0380000000
// (0.38562095…), not float32(59/153) = 0.38562092… (worked out by hand in
// float32 steps: 13/51·51 + 28/51·51 + 18/51·51, rounded at each step).
func TestRunTrainAccIsFloat32RunningMean(t *testing.T) {
	r := NewRun(153, 51, 1, nil)
	r.begin(0)
	for _, right := range []int{13, 28, 18} {
		r.AddStep(1, right, 51)
	}
	if got, want := r.TrainAcc(), math.Float64frombits(0x3fd8ae0380000000); got != want {
		t.Errorf("TrainAcc = %v (%#x), want %v", got, math.Float64bits(got), want)
	}
	if exact := float64(float32(59.0 / 153)); r.TrainAcc() == exact {
		t.Errorf("TrainAcc = %v is the rounded exact fraction, not the running mean", exact)
	}
	r.begin(1)
	r.AddStep(1, 2, 4)
	if got := r.TrainAcc(); got != 0.5 {
		t.Errorf("after a new epoch TrainAcc = %v, want 0.5 (the sums restart)", got)
	}
}
