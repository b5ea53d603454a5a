package golden

import (
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// TestFloatJSON: a Float survives JSON bit for bit (negative zero, NaN,
// a value with no short decimal), and a file whose decimal does not match
// its bits is refused.
func TestFloatJSON(t *testing.T) {
	for _, v := range []float64{0.5, math.Copysign(0, -1), math.NaN(), 1.0 / 3, math.Inf(1), 5e-324} {
		b, err := json.Marshal(Float(v))
		if err != nil {
			t.Fatal(err)
		}
		var got Float
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if got.Bits() != math.Float64bits(v) {
			t.Errorf("%v: read back %#x from %s, want %#x", v, got.Bits(), b, math.Float64bits(v))
		}
	}
	if b, _ := json.Marshal(Float(0.5)); string(b) != `"0x3fe0000000000000 0.5"` {
		t.Errorf("0.5 is %s", b)
	}
	for _, bad := range []string{`"0x3fe0000000000000 0.25"`, `"0x3fe0 0.5"`, `"0.5"`, `0.5`} {
		var f Float
		if err := json.Unmarshal([]byte(bad), &f); err == nil {
			t.Errorf("%s read as %v, want an error", bad, f)
		}
	}
}

// handMade is a record of one case, one run of two epochs, written by hand.
func handMade() *File {
	c := Case{Dataset: "GunPoint", Preset: Fresh, Settings: Protocol, Backend: BackendGo, Path: PathSingle, RunsPerGraph: 1, Seeds: []int64{42}, Folds: 1}
	return &File{Format: Format, Cases: []CaseResult{{Name: c.Name(), Case: c, Runs: []RunResult{{
		Seed: 42, Fold: 1, BatchSize: 120, Params: 4787, EpochsRun: 2, SelectedEpoch: 1, SelectedPhase: "sparse",
		SelectedValLoss: 0.25, TestAcc: 0.75,
		Epochs: []Epoch{
			{Epoch: 0, Phase: "dense", TrainLoss: 0.7, TrainAcc: 0.5, ValLoss: 0.69, ValAcc: 0.5, Selected: true},
			{Epoch: 1, Phase: "sparse", TrainLoss: 0.4, TrainAcc: 0.8, ValLoss: 0.25, ValAcc: 0.75, Selected: true},
		},
	}}}}}
}

// clone copies a record through JSON, as a record read back from a file.
func clone(t *testing.T, f *File) *File {
	t.Helper()
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	var out File
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return &out
}

// TestCompareFindsOneBit: identical records compare equal; flipping the
// last bit of one epoch's validation loss is exactly one difference, named
// by case, seed, fold, epoch and field; a missing epoch and a missing case
// are differences too.
func TestCompareFindsOneBit(t *testing.T) {
	a := handMade()
	b := clone(t, a)
	if d := Compare(a, b); len(d) != 0 {
		t.Fatalf("identical records differ: %v", d)
	}
	e := &b.Cases[0].Runs[0].Epochs[1]
	e.ValLoss = Float(math.Float64frombits(e.ValLoss.Bits() ^ 1))
	d := Compare(a, b)
	if len(d) != 1 {
		t.Fatalf("one bit flipped: %d differences %v, want 1", len(d), d)
	}
	want := Difference{Case: "GunPoint/fresh/go/single-R1", Seed: 42, Fold: 1, Epoch: 1, Field: "val_loss",
		A: "0x3fd0000000000000 0.25", B: "0x3fd0000000000001 0.25000000000000006"}
	if d[0] != want {
		t.Errorf("got %+v, want %+v", d[0], want)
	}
	if s := d[0].String(); s != "GunPoint/fresh/go/single-R1 seed 42 fold 1 epoch 1: val_loss: 0x3fd0000000000000 0.25 ≠ 0x3fd0000000000001 0.25000000000000006" {
		t.Errorf("String: %s", s)
	}

	b = clone(t, a)
	b.Cases[0].Runs[0].Epochs = b.Cases[0].Runs[0].Epochs[:1]
	if d := Compare(a, b); len(d) != 1 || d[0].Field != "epoch" || d[0].Epoch != 1 || d[0].B != absent {
		t.Errorf("an epoch missing: %v", d)
	}
	b.Cases = nil
	if d := Compare(a, b); len(d) != 1 || d[0].Field != "case" || d[0].B != absent {
		t.Errorf("a case missing: %v", d)
	}
}

// TestReadRefusesBadFiles: a record file of another format, or whose case
// name does not fit its fields, is an error naming the file.
func TestReadRefusesBadFiles(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	if err := handMade().Write(good, false); err != nil {
		t.Fatal(err)
	}
	if err := handMade().Write(good, false); err == nil {
		t.Error("Write replaced a file without overwrite")
	}
	if _, err := Read(good); err != nil {
		t.Fatal(err)
	}
	for name, edit := range map[string]func(*File){
		"format": func(f *File) { f.Format = "other/1" },
		"name":   func(f *File) { f.Cases[0].Name = "ArrowHead/fresh/go/single-R1" },
	} {
		f := handMade()
		edit(f)
		p := filepath.Join(dir, name+".json")
		if err := f.Write(p, false); err != nil {
			t.Fatal(err)
		}
		if _, err := Read(p); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: error %v, want one naming %s", name, err, p)
		}
	}
}

// tinyProtocol is a protocol short enough for a test: one dense and two
// sparse epochs of a narrow model.
const tinyProtocol = "epochs=3;warmup_epochs=1;patience=3;embed_dim=8;learning_rate=0.01"

// TestRecordDeterministic: recording the same cases twice in one process
// gives the same bits: one run at a time (fresh, and carry over two
// folds) and two runs per graph (model copies and run axis), on pure Go.
func TestRecordDeterministic(t *testing.T) {
	base := Case{Dataset: "GunPoint", Settings: tinyProtocol, Backend: BackendGo, Seeds: []int64{Seed}, Folds: 2}
	var cases []Case
	for _, c := range []struct {
		preset string
		path   Path
		r      int
	}{{Fresh, PathSingle, 1}, {Carry, PathSingle, 1}, {Fresh, PathCopies, 2}, {Fresh, PathAxis, 2}} {
		k := base
		k.Preset, k.Path, k.RunsPerGraph = c.preset, c.path, c.r
		cases = append(cases, k)
	}
	a, err := Record(cases, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Record(cases, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range a.Cases {
		if len(c.Runs) != 2 {
			t.Fatalf("%s: %d runs, want 2", c.Name, len(c.Runs))
		}
		for _, r := range c.Runs {
			if len(r.Epochs) != 3 || r.Epochs[0].Phase != "dense" || r.Epochs[2].Phase != "sparse" || math.IsNaN(float64(r.TestAcc)) {
				t.Fatalf("%s fold %d: %d epochs %+v, want a dense and two sparse ones and a test accuracy", c.Name, r.Fold, len(r.Epochs), r)
			}
			if r.RunAxis != (c.Path == PathAxis) {
				t.Errorf("%s fold %d: run axis %t", c.Name, r.Fold, r.RunAxis)
			}
		}
	}
	for _, d := range Compare(a, b) {
		t.Errorf("recorded twice: %s", d)
	}
}

// TestMismatches: an environment matches itself; a different
// GOEXPERIMENT=simd setting or CPU feature is a mismatch naming it; the
// ONNX Runtime module and backend count only when ONNX Runtime is checked.
func TestMismatches(t *testing.T) {
	rec := Environment{GoVersion: "go1.26.8", GOOS: "linux", GOARCH: "amd64", ArchLevel: "v1", SIMD: true,
		CPUFeatures: []string{"AVX", "AVX2", "AVX512F"},
		Modules:     map[string]string{"github.com/gomlx/gomlx": "v0.28.8", "github.com/gomlx/compute": "v0.1.6", onnxModule: "v0.1.5"},
		Backends:    map[string]string{BackendGo: "Go", BackendONNX: "ONNX Runtime v1.30.0 (CPU), 1 intra-op thread"}}
	if m := rec.Mismatches(rec, nil); len(m) != 0 {
		t.Errorf("the same environment: %v", m)
	}
	here := rec
	here.SIMD = false
	here.CPUFeatures = []string{"AVX", "AVX2"}
	here.Modules = map[string]string{"github.com/gomlx/gomlx": "v0.28.8", "github.com/gomlx/compute": "v0.1.6"}
	here.Backends = map[string]string{BackendGo: "Go"}
	m := here.Mismatches(rec, []string{BackendGo})
	if len(m) != 2 || !strings.Contains(m[0], "GOEXPERIMENT=simd is \"off\" here, \"on\" in the record") || !strings.Contains(m[1], "AVX512F") {
		t.Errorf("simd and AVX-512 missing, pure Go only: %q", m)
	}
	if m := here.Mismatches(rec, nil); len(m) != 4 || !strings.Contains(m[2], onnxModule) || !strings.Contains(m[3], "backend onnx:cpu") {
		t.Errorf("with ONNX Runtime: %q", m)
	}
}
