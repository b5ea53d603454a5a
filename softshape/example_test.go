package softshape_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gomlx/compute"

	"github.com/softshape-go/softshape/data"
	"github.com/softshape-go/softshape/internal/backends"
	"github.com/softshape-go/softshape/softshape"
)

// backend is the examples' compute backend, started once by TestMain: the
// pure-Go backend announces its start on stdout, which an example's output
// would show. A caller leaves RunOptions.Backend nil for the default one.
var backend compute.Backend

// TestMain starts the examples' backend, then runs the package's tests.
func TestMain(m *testing.M) {
	var err error
	if backend, err = backends.New(""); err != nil {
		log.Fatal(err)
	}
	os.Exit(m.Run())
}

// Fit a classifier on a UCR dataset's TRAIN rows, bundled with the module,
// then predict and score its TEST rows, raw: the classifier fills missing
// values and z-normalises inside. A tiny schedule (the paper's is 500
// epochs with 150 of warm-up) keeps the example fast; without a validation
// set the model is the last epoch's.
func ExampleFit() {
	ds, err := data.LoadBundled("GunPoint")
	if err != nil {
		log.Fatal(err)
	}
	train, test, err := ds.TrainTest()
	if err != nil {
		log.Fatal(err)
	}
	cfg := softshape.DefaultConfig()
	cfg.Epochs, cfg.WarmUpEpochs, cfg.EmbedDim = 4, 2, 32
	clf, err := softshape.Fit(train, nil, cfg, softshape.RunOptions{Backend: backend, Seed: 42})
	if err != nil {
		log.Fatal(err)
	}
	pred, err := clf.Predict(test.Series)
	if err != nil {
		log.Fatal(err)
	}
	acc, _, err := clf.Evaluate(test.Series, test.LabelNames())
	if err != nil {
		log.Fatal(err)
	}
	right := 0
	for i, label := range test.LabelNames() {
		if pred[i] == label {
			right++
		}
	}
	fmt.Println(len(pred), "predictions of the classes", clf.Classes())
	fmt.Println("Evaluate counts the right ones:", acc == float64(right)/float64(len(pred)))
	// Output:
	// 150 predictions of the classes [1 2]
	// Evaluate counts the right ones: true
}

// Fit with a validation set, which selects the model (the lowest validation
// loss) and stops the training early, as the protocol does on a fold: here
// fold 1 of the protocol's split of the generated Cylinder-Bell-Funnel data.
// Save writes what Predict needs (the model, the class names, the imputation
// values), and Load reads it back.
func ExampleLoad() {
	ds := data.CBF(20, 64, 3)
	opts := softshape.RunOptions{Backend: backend, Seed: 3}
	train, val, test, err := softshape.FoldSets(ds, opts, 0)
	if err != nil {
		log.Fatal(err)
	}
	cfg := softshape.DefaultConfig()
	cfg.Epochs, cfg.WarmUpEpochs, cfg.EmbedDim = 4, 2, 32
	clf, err := softshape.Fit(train, val, cfg, opts)
	if err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "softshape-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := clf.Save(filepath.Join(dir, "cbf")); err != nil {
		log.Fatal(err)
	}
	loaded, err := softshape.Load(filepath.Join(dir, "cbf"), backend)
	if err != nil {
		log.Fatal(err)
	}
	before, err := clf.Predict(test.Series)
	if err != nil {
		log.Fatal(err)
	}
	after, err := loaded.Predict(test.Series)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(train.Series), "training and", len(val.Series), "validation series; classes", loaded.Classes())
	fmt.Println("the loaded classifier predicts the same:", slices.Equal(before, after))
	// Output:
	// 36 training and 12 validation series; classes [cylinder bell funnel]
	// the loaded classifier predicts the same: true
}
