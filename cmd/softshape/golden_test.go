package main

import (
	"bytes"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/softshape-go/softshape/experiments/golden"
)

// TestGoldenCompare: `softshape golden -compare` exits 0 on two identical
// records and 1 on records that differ in one bit, printing the case, run,
// epoch and field with both values; a wrong number of files is an error.
func TestGoldenCompare(t *testing.T) {
	c := golden.Case{Dataset: "GunPoint", Preset: golden.Carry, Settings: golden.Protocol, Backend: golden.BackendONNX,
		Path: golden.PathSingle, RunsPerGraph: 1, Seeds: []int64{42}, Folds: 5}
	rec := func(trainLoss float64) *golden.File {
		return &golden.File{Format: golden.Format, Cases: []golden.CaseResult{{Name: c.Name(), Case: c, Runs: []golden.RunResult{{
			Seed: 42, Fold: 3, EpochsRun: 1, SelectedPhase: "sparse", TestAcc: 0.5,
			Epochs: []golden.Epoch{{Epoch: 0, Phase: "dense", TrainLoss: golden.Float(trainLoss)}},
		}}}}}
	}
	dir := t.TempDir()
	a, same, other := filepath.Join(dir, "a.json"), filepath.Join(dir, "same.json"), filepath.Join(dir, "other.json")
	for p, f := range map[string]*golden.File{a: rec(0.5), same: rec(0.5), other: rec(math.Nextafter(0.5, 1))} {
		if err := f.Write(p, false); err != nil {
			t.Fatal(err)
		}
	}
	var out, errOut bytes.Buffer
	if code := run([]string{"golden", "-compare", a, same}, &out, &errOut); code != 0 || !strings.Contains(out.String(), "1 cases, identical bit for bit") {
		t.Errorf("identical records: exit %d, stdout %q, stderr %q", code, out.String(), errOut.String())
	}
	out.Reset()
	errOut.Reset()
	code := run([]string{"golden", "-compare", a, other}, &out, &errOut)
	want := "GunPoint/carry/onnx:cpu/single-R1 seed 42 fold 3 epoch 0: train_loss: 0x3fe0000000000000 0.5 ≠ 0x3fe0000000000001 0.5000000000000001\n"
	if code != 1 || out.String() != want || !strings.Contains(errOut.String(), "1 differences") {
		t.Errorf("one bit apart: exit %d, stdout %q, stderr %q; want exit 1 and stdout %q", code, out.String(), errOut.String(), want)
	}
	// -cases narrows the comparison: the differing case is still found
	// when it matches, and a pattern matching no case is an error.
	out.Reset()
	errOut.Reset()
	if code := run([]string{"golden", "-compare", "-cases", "^GunPoint/carry", a, other}, &out, &errOut); code != 1 || out.String() != want {
		t.Errorf("-cases matching the case: exit %d, stdout %q, stderr %q; want exit 1 and stdout %q", code, out.String(), errOut.String(), want)
	}
	out.Reset()
	errOut.Reset()
	if code := run([]string{"golden", "-compare", "-cases", "^ECG200", a, other}, &out, &errOut); code != 1 || out.Len() != 0 ||
		!strings.Contains(errOut.String(), `-cases: cases "^ECG200" match none of GunPoint/carry/onnx:cpu/single-R1`) {
		t.Errorf("-cases matching no case: exit %d, stdout %q, stderr %q", code, out.String(), errOut.String())
	}
	errOut.Reset()
	if code := run([]string{"golden", "-compare", a}, &out, &errOut); code != 1 || !strings.Contains(errOut.String(), "two record files") {
		t.Errorf("one file: exit %d, stderr %q", code, errOut.String())
	}
}
