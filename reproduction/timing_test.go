package reproduction

import (
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/softshape-go/softshape/experiments/timing"
	"github.com/softshape-go/softshape/softshape"
)

// TestCommittedTiming: the committed running-time measurements (paper Fig 3)
// load for every backend, span the paper's lengths with repeated steps on
// one named processor, and draw; the verdicts name each backend.
func TestCommittedTiming(t *testing.T) {
	ts, err := LoadTiming(".")
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != len(TimingBackends) {
		t.Fatalf("%d measurements, want %d", len(ts), len(TimingBackends))
	}
	for _, tm := range ts {
		r := tm.Result
		if !slices.Equal(r.Lengths, timing.FullLengths()) {
			t.Errorf("%s: lengths %v, want the paper's %v", tm.Folder, r.Lengths, timing.FullLengths())
		}
		if r.CPU == "" || r.Measured.IsZero() || r.Build == "" || r.Build == "unknown" || strings.HasSuffix(r.Build, "+dirty") {
			t.Errorf("%s: processor %q, measured %v, build %q: want all, from a committed build", tm.Folder, r.CPU, r.Measured, r.Build)
		}
		if r.Clock() != timing.CPUTime {
			t.Errorf("%s: clock %v, want CPU time", tm.Folder, r.Clock())
		}
		for _, p := range r.Points {
			if len(p.Steps) < 5 || len(p.CPUs) != len(p.Steps) {
				t.Errorf("%s: T=%d %s: %d wall and %d CPU steps, want ≥ 5 of each", tm.Folder, p.Length, p.Label(), len(p.Steps), len(p.CPUs))
			}
		}
		if want := len(r.Lengths) * 4; len(r.Points) != want {
			t.Errorf("%s: %d points, want %d (dense and three sparse ratios per length)", tm.Folder, len(r.Points), want)
		}
		if _, err := r.Figure(true, false); err != nil {
			t.Errorf("%s: figure: %v", tm.Folder, err)
		}
		if tm.Paired.CPU != r.CPU || len(tm.Paired.Pairs) != 2 {
			t.Errorf("%s: paired timing on %q with %d comparisons, want %q and 2", tm.Folder, tm.Paired.CPU, len(tm.Paired.Pairs), r.CPU)
		}
	}
	md := RunningTimeVerdicts(ts)
	for _, b := range TimingBackends {
		if strings.Count(md, "| "+b.Folder+" |") != 3 {
			t.Errorf("verdicts do not give %s three rows:\n%s", b.Folder, md)
		}
	}
}

// TestLoadTimingNamesTheCommand: a missing measurement is an error naming
// the file and the command that makes it.
func TestLoadTimingNamesTheCommand(t *testing.T) {
	_, err := LoadTiming(t.TempDir())
	if err == nil || !strings.Contains(err.Error(), filepath.Join("timing", TimingBackends[0].Folder, timing.ResultFile)) ||
		!strings.Contains(err.Error(), TimingBackends[0].SweepCommand) {
		t.Errorf("err = %v, want the missing file and %q", err, TimingBackends[0].SweepCommand)
	}
}

// TestRenderTimingWithoutMeasurements: the block names the commands.
func TestRenderTimingWithoutMeasurements(t *testing.T) {
	got := RenderTiming(nil)
	if !strings.HasPrefix(got, TimingBlock.Begin) || !strings.HasSuffix(got, TimingBlock.End) || !strings.Contains(got, TimingBackends[1].PairedCommand) {
		t.Errorf("block without measurements:\n%s", got)
	}
}

// TestRunningTimeVerdicts: hand-made measurements give each verdict word.
func TestRunningTimeVerdicts(t *testing.T) {
	ms := time.Millisecond
	point := func(T int, cpu time.Duration) timing.Point {
		return timing.Point{Length: T, Phase: softshape.Dense, Ratio: math.NaN(), Steps: []time.Duration{cpu}, CPUs: []time.Duration{cpu}, CPU: cpu, Step: cpu}
	}
	linear := &timing.Result{Lengths: []int{166, 332, 498}, Points: []timing.Point{point(166, 10*ms), point(332, 20*ms), point(498, 30*ms)}}
	// t = T² (in units of 166 and 10 ms): 10, 40, 90 ms.
	quadratic := &timing.Result{Lengths: []int{166, 332, 498}, Points: []timing.Point{point(166, 10*ms), point(332, 40*ms), point(498, 90*ms)}}
	// Eight rounds each: B always cheaper, always dearer, or mixed.
	paired := func(b float64) *timing.Paired {
		p := &timing.Paired{Length: 3984, RatioA: 0, RatioB: 0.5}
		for i := range 8 {
			a := time.Duration(100+i) * ms
			bb := time.Duration(float64(a) * b)
			if b == 1 && i%2 == 0 {
				bb = a + ms
			} else if b == 1 {
				bb = a - ms
			}
			p.StepsA, p.StepsB = append(p.StepsA, a), append(p.StepsB, bb)
			p.CPUA, p.CPUB = append(p.CPUA, a), append(p.CPUB, bb)
		}
		return p
	}
	var pairs []*timing.Paired
	for _, b := range []float64{0.8, 1.2, 1} {
		p := paired(b)
		// Round-trip through the file, which recomputes the summary.
		path := filepath.Join(t.TempDir(), timing.PairedFile)
		if err := timing.SavePaired(path, "c", 8, []*timing.Paired{p}); err != nil {
			t.Fatal(err)
		}
		run, err := timing.LoadPaired(path)
		if err != nil {
			t.Fatal(err)
		}
		pairs = append(pairs, run.Pairs[0])
	}
	// Round-trip through the file, which computes the fits.
	for _, r := range []*timing.Result{linear, quadratic} {
		path := filepath.Join(t.TempDir(), timing.ResultFile)
		if err := r.Save(path); err != nil {
			t.Fatal(err)
		}
		back, err := timing.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		*r = *back
	}
	md := RunningTimeVerdicts([]Timing{
		{TimingBackend: TimingBackend{Folder: "a"}, Result: linear, Paired: &timing.PairedRun{Pairs: pairs}},
		{TimingBackend: TimingBackend{Folder: "b"}, Result: quadratic, Paired: &timing.PairedRun{}},
	})
	for _, want := range []string{
		// Over T ≥ 332: linear grows as T^1 (log 3/2 ÷ log 3/2); quadratic
		// as T^2, its straight line (fit 6.7, 46.7, 86.7 ms) leaving 66.7 of
		// 3266.7: R² = 0.980.
		"| training time linear in T (166–498) | a | largest b = 1.00 (dense (warm-up), T ≥ 332); least R² 1.000 | **holds** |",
		"| b | largest b = 2.00 (dense (warm-up), T ≥ 332); least R² 0.980 | **opposite** |",
		"| sparse ratio 50% cheaper than 0% per step (T = 3984) | a | 0.800× (median of 8 rounds; cheaper in 8; p = 0.00391) | **holds** |",
		"| a | 1.200× (median of 8 rounds; cheaper in 0; p = 1) | **opposite** |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("no %q in\n%s", want, md)
		}
	}
	// Mixed rounds, half cheaper: neither one-sided test passes.
	for _, row := range strings.Split(md, "\n") {
		if strings.Contains(row, "| 1.000× (median of 8 rounds; cheaper in 4;") && !strings.HasSuffix(row, "| **not shown** |") {
			t.Errorf("mixed rounds: %s, want not shown", row)
		}
	}
	if !strings.Contains(md, "| 1.000× (median of 8 rounds; cheaper in 4;") {
		t.Errorf("no mixed row in\n%s", md)
	}
}
