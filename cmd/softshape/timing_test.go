package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/softshape-go/softshape/experiments/timing"
)

// TestTimingCommand times two short lengths with a narrow model and checks
// the table, the files and the running-time figures.
func TestTimingCommand(t *testing.T) {
	out := filepath.Join(t.TempDir(), "timing")
	var buf bytes.Buffer
	err := runTiming([]string{"-lengths", "166,332", "-ratios", "0,50", "-steps", "1", "-batch", "4", "-set", "embed_dim=16",
		"-params=false", "-data", bundledOnly(t), "-out", out}, &buf)
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	contains(t, buf.String(), "backend: Go", "[QUICK MODE — not a reproduction]", "| 332 | sparse | 50% | 68 | 34 |",
		"| sparse 0% |", "| dense (warm-up) |", "wrote "+filepath.Join(out, "running_time.png"))
	for _, name := range []string{"running_time.png", "running_time_step.png"} {
		checkPNG(t, filepath.Join(out, name), 1050, 675) // 7 × 4.5 in at 150 dpi
	}
	b, err := os.ReadFile(filepath.Join(out, "timing.csv"))
	if err != nil || strings.Count(string(b), "\n") != 7 {
		t.Errorf("timing.csv (%v):\n%s", err, b)
	}
	// CSV on stdout and nothing else (status lines go to stderr).
	buf.Reset()
	err = runTiming([]string{"-lengths", "166", "-ratios", "", "-steps", "1", "-batch", "2", "-set", "embed_dim=16", "-params=false",
		"-data", bundledOnly(t), "-format", "csv", "-out", filepath.Join(t.TempDir(), "csv")}, &buf)
	if err != nil || !strings.HasPrefix(buf.String(), "length,phase,") || strings.Count(buf.String(), "\n") != 2 {
		t.Errorf("-format csv (%v): stdout\n%s", err, buf.String())
	}
	buf.Reset()
	paired := filepath.Join(t.TempDir(), "paired")
	err = runTiming([]string{"-paired", "332", "-rounds", "3", "-ratios", "0,50", "-batch", "2", "-set", "embed_dim=16", "-data", bundledOnly(t), "-out", paired}, &buf)
	if err != nil {
		t.Fatalf("-paired: %v\n%s", err, buf.String())
	}
	contains(t, buf.String(), "Sparse ratio 50% against 0%, T = 332, Go", "| round | 0% wall (ms) |", "| 3 |", "cheaper in ", " of 3 rounds")
	// Every round is saved for re-drawing, as is every step of the sweep.
	if run, err := timing.LoadPaired(filepath.Join(paired, timing.PairedFile)); err != nil || len(run.Pairs) != 1 || len(run.Pairs[0].Ratios) != 3 || run.Batch != 2 {
		t.Errorf("saved paired timing: %v %+v", err, run)
	}
	if res, err := timing.Load(filepath.Join(out, timing.ResultFile)); err != nil || len(res.Points) != 6 || len(res.Points[0].CPUs) != 1 {
		t.Errorf("saved timing: %v %+v", err, res)
	}
	// -redraw draws the saved measurement's figures again, measuring nothing.
	redrawn := filepath.Join(t.TempDir(), "redrawn")
	buf.Reset()
	if err := runTiming([]string{"-redraw", out, "-out", redrawn, "-figures", "png,svg"}, &buf); err != nil {
		t.Fatalf("-redraw: %v\n%s", err, buf.String())
	}
	checkPNG(t, filepath.Join(redrawn, "running_time.png"), 1050, 675)
	if strings.Contains(buf.String(), "backend:") || !strings.Contains(buf.String(), "wrote "+filepath.Join(redrawn, "running_time_step.svg")) {
		t.Errorf("-redraw started a backend or did not list its figures:\n%s", buf.String())
	}
	if err := runTiming([]string{"-redraw", t.TempDir()}, &buf); err == nil || !strings.Contains(err.Error(), timing.ResultFile) {
		t.Errorf("-redraw of a folder without %s: err = %v", timing.ResultFile, err)
	}
	for _, bad := range [][]string{{"-lengths", "100"}, {"-ratios", "100"}, {"-format", "html"}, {"-batch", "0", "-lengths", "166"}, {"extra"},
		{"-paired", "100", "-ratios", "0,50"}, {"-paired", "332", "-ratios", "50"}, {"-paired", "332", "-rounds", "0"},
		{"-figures", "png,gif"}, {"-dpi", "-1"}} {
		if err := runTiming(append(bad, "-params=false", "-out", ""), &buf); err == nil {
			t.Errorf("timing %v accepted", bad)
		}
	}
}

// TestCheckMaxRatios: the -max-ratio guard reports every bound, within or
// above, and fails only for those above (on made-up comparisons: no timing).
func TestCheckMaxRatios(t *testing.T) {
	pairs := []*timing.Paired{
		{Length: 3984, RatioA: 0, RatioB: 0.5, MedianRatio: 0.97, Ratios: make([]float64, 7)},
		{Length: 3984, RatioA: 0, RatioB: 0.9, MedianRatio: 0.70, Ratios: make([]float64, 7)},
	}
	bounds, err := parseMaxRatios("90=0.85", []float64{0, 0.5, 0.9})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := checkMaxRatios(&out, pairs, bounds); err != nil {
		t.Errorf("0.70 against 0.85: %v", err)
	}
	contains(t, out.String(), "-max-ratio: 90% at most 0.85× 0% at T = 3984: median round 0.700×, within the bound.")
	bounds, err = parseMaxRatios("50=0.95,90=0.85", []float64{0, 0.5, 0.9})
	if err != nil {
		t.Fatal(err)
	}
	out.Reset()
	err = checkMaxRatios(&out, pairs, bounds)
	if err == nil || !strings.Contains(err.Error(), "50% costs 0.970× 0% (median of 7 rounds), above 0.95×") || strings.Contains(err.Error(), "90%") {
		t.Errorf("0.97 against 0.95: %v", err)
	}
	contains(t, out.String(), "median round 0.970×, ABOVE the bound.", "median round 0.700×, within the bound.")
	nan := []*timing.Paired{{Length: 3984, RatioB: 0.9, MedianRatio: math.NaN()}}
	if err := checkMaxRatios(&bytes.Buffer{}, nan, bounds[1:]); err == nil {
		t.Error("a NaN median passed the bound")
	}
}
