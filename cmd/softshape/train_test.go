package main

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestTrainCommandOnGeneratedData runs "softshape train" end to end on the
// generated CBF data (no files) with a tiny schedule and checks the per-fold table.
func TestTrainCommandOnGeneratedData(t *testing.T) {
	var out bytes.Buffer
	ckpt := filepath.Join(t.TempDir(), "ckpt")
	err := runTrain([]string{"-epochs", "3", "-warmup", "1", "-folds", "1,3", "-quiet", "-checkpoint", ckpt, "-set", "embed_dim=16;sparse_ratio=0.3"}, &out)
	if err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{"backend: Go", "dataset: CBF-generated (300 series, 3 classes, length 128)",
		"folds 1,3 trained together, at most 10 at a time, each alone, at the same time", "fold  test acc", "mean test accuracy", "over 2 folds"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	lines := strings.Split(strings.TrimSpace(text), "\n")
	var folds []string
	for _, l := range lines {
		if f := strings.Fields(l); len(f) == 9 && (f[0] == "1" || f[0] == "3") {
			folds = append(folds, f[0])
		}
	}
	if !reflect.DeepEqual(folds, []string{"1", "3"}) {
		t.Errorf("table rows for folds %v, want [1 3]:\n%s", folds, text)
	}
	if m, _ := filepath.Glob(filepath.Join(ckpt, "fold-*")); len(m) != 2 {
		t.Errorf("checkpoints %v, want fold-1 and fold-3", m)
	}
	for _, f := range []string{"fold-1", "fold-3"} {
		if !isDir(filepath.Join(ckpt, f)) {
			t.Errorf("no checkpoint folder %s for fold %s", f, f[len("fold-"):])
		}
	}
	// -run-axis alone asks for the run axis, which pure Go leaves off by
	// default; the same folds then train as one model.
	var axisOut bytes.Buffer
	if err := runTrain([]string{"-epochs", "3", "-warmup", "1", "-folds", "1,3", "-quiet", "-run-axis", "-set", "embed_dim=16;sparse_ratio=0.3"}, &axisOut); err != nil {
		t.Fatal(err)
	}
	if want := "folds 1,3 trained together, at most 10 at a time, in one graph, one model on a run axis"; !strings.Contains(axisOut.String(), want) {
		t.Errorf("-run-axis: output lacks %q:\n%s", want, axisOut.String())
	}
	// The checkpoint keeps each fold's history: plot curves draws fold 3's.
	figs := t.TempDir()
	var plotOut bytes.Buffer
	if err := runPlot([]string{"curves", "-checkpoint", ckpt, "-fold", "3", "-out", figs, "-name", "fold3"}, &plotOut); err != nil {
		t.Fatalf("plot curves from the train checkpoint: %v\n%s", err, plotOut.String())
	}
	if st, err := os.Stat(filepath.Join(figs, "fold3.png")); err != nil || st.Size() == 0 {
		t.Errorf("no curves PNG from the train checkpoint: %v\n%s", err, plotOut.String())
	}
}

func TestTrainCommandErrors(t *testing.T) {
	cases := map[string][]string{
		"experts_k=5: k must be ≤ the number of experts Ĉ=3": {"-set", "experts_k=5", "-epochs", "2", "-warmup", "1"},
		`-folds "0": fold 0 does not exist (want 1..5)`:      {"-folds", "0"},
		`-folds "6": fold 6 does not exist (want 1..5)`:      {"-folds", "6", "-epochs", "1"},
		"parsing settings":                       {"-set", "bogus=1"},
		`run axis "maybe": want auto, on or off`: {"-run-axis=maybe"},
	}
	for want, args := range cases {
		err := runTrain(append(args, "-quiet"), &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v: error %v, want %q", args, err, want)
		}
	}
}

func TestParseFolds(t *testing.T) {
	got, err := parseFolds("1-3,5")
	if err != nil || !reflect.DeepEqual(got, []int{0, 1, 2, 4}) {
		t.Errorf("parseFolds(1-3,5) = %v, %v", got, err)
	}
	if _, err := parseFolds("3-1"); err == nil {
		t.Error("parseFolds(3-1) accepted a reversed range")
	}
	for _, s := range []string{"2,2", "1-3,2", "3,1", "1,1-2"} {
		if got, err := parseFolds(s); err == nil || !strings.Contains(err.Error(), "increasing order without repeats") {
			t.Errorf("parseFolds(%q) = %v, %v; want folds in increasing order", s, got, err)
		}
	}
	if got, err := parseFolds(" 2 , 4-5 "); err != nil || !reflect.DeepEqual(got, []int{1, 3, 4}) {
		t.Errorf("parseFolds( 2 , 4-5 ) = %v, %v", got, err)
	}
}
