package reproduce

import (
	"reflect"
	"testing"

	"github.com/softshape-go/softshape/data"
	"github.com/softshape-go/softshape/softshape"
)

// TestFitModelIsTrainModel: the quickstart's softshape.Fit on fold 1's sets
// trains TrainModel's model, bit for bit, and saves it where TrainModel
// reloads it; a fold without a saved model and nothing to fit is an error.
func TestFitModelIsTrainModel(t *testing.T) {
	p := tinyParams(t)
	m, err := FitModel(p, data.CBFName, "")
	if err != nil {
		t.Fatal(err)
	}
	if m.Classifier != nil || m.Cached {
		t.Fatal("a fresh results folder holds a saved model")
	}
	if _, err := m.LoadOrFit(nil); err == nil {
		t.Error("LoadOrFit(nil) without a saved model: no error")
	}
	clf, err := m.LoadOrFit(func() (*softshape.Classifier, error) { return softshape.Fit(m.Train, m.Val, m.Config, m.Options) })
	if err != nil {
		t.Fatal(err)
	}
	reloaded, err := TrainModel(p, data.CBFName, 1, "", false)
	if err != nil {
		t.Fatal(err)
	}
	if !reloaded.Cached || reloaded.Result.TestAcc != m.Result.TestAcc {
		t.Fatalf("TrainModel after LoadOrFit: cached %v, test accuracy %v; fitted %v", reloaded.Cached, reloaded.Result.TestAcc, m.Result.TestAcc)
	}
	p2 := tinyParams(t) // another results folder: TrainModel trains
	trained, err := TrainModel(p2, data.CBFName, 1, "", false)
	if err != nil {
		t.Fatal(err)
	}
	if trained.Cached || trained.Result.TestAcc != m.Result.TestAcc || trained.Result.BestEpoch != clf.Result.BestEpoch ||
		!reflect.DeepEqual(lossesOf(trained.Result), lossesOf(clf.Result)) {
		t.Errorf("TrainModel: test accuracy %v, best epoch %d, losses %v; Fit: %v, %d, %v", trained.Result.TestAcc, trained.Result.BestEpoch,
			lossesOf(trained.Result), m.Result.TestAcc, clf.Result.BestEpoch, lossesOf(clf.Result))
	}
	again, err := FitModel(p, data.CBFName, "")
	if err != nil {
		t.Fatal(err)
	}
	if again.Classifier == nil || !again.Cached {
		t.Fatal("FitModel does not reload the saved model")
	}
	acc, _, err := again.Classifier.Evaluate(again.Test.Series, again.Test.LabelNames())
	if err != nil || acc != m.Result.TestAcc {
		t.Errorf("reloaded classifier: accuracy %v (%v), saved %v", acc, err, m.Result.TestAcc)
	}
}

// lossesOf lists each epoch's training and validation loss.
func lossesOf(fr *softshape.FoldResult) [][2]float64 {
	var out [][2]float64
	for _, e := range fr.History {
		out = append(out, [2]float64{e.TrainLoss, e.ValLoss})
	}
	return out
}
