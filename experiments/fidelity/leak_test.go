package fidelity

import (
	"math"
	"strings"
	"testing"
)

// TestLeaksByHand: the leak pairs reference_compat and reference_fresh by
// seed (a seed recorded under one preset only is left out) and its mean and
// standard error are those of the per-seed differences, computed by hand.
func TestLeaksByHand(t *testing.T) {
	row := func(ds, preset string, seeds []int64, perSeed []float64) Row {
		return Row{Comparison: Comparison{Dataset: ds, Preset: preset, Seeds: seeds, PerSeed: perSeed}}
	}
	rows := []Row{
		row("ECG200", "reference_fresh", []int64{42, 0, 1}, []float64{0.875, 0.895, 0.80}),
		row("ECG200", "reference_compat", []int64{42, 0}, []float64{0.975, 0.950}),
		row("ECG200", "default", []int64{42, 0}, []float64{0.5, 0.5}),
		row("GunPoint", "reference_compat", []int64{42}, []float64{1.0}),
	}
	leaks := Leaks(rows)
	if len(leaks) != 1 || leaks[0].Dataset != "ECG200" || len(leaks[0].Seeds) != 2 {
		t.Fatalf("leaks %+v: want ECG200 on seeds 42 and 0 (GunPoint has no fresh run)", leaks)
	}
	// Differences 0.100 and 0.055: mean 0.0775, sd 0.0318198, SE 0.0225.
	l := leaks[0]
	if math.Abs(l.Diff.Mean-0.0775) > 1e-12 || math.Abs(l.Diff.SE-0.0225) > 1e-12 {
		t.Errorf("leak %.6f ± %.6f, want 0.0775 ± 0.0225", l.Diff.Mean, l.Diff.SE)
	}
	if !l.Finding() { // 0.0775 > 2 × 0.0225
		t.Error("a leak of 3.4 standard errors is not reported beyond noise")
	}
	var b strings.Builder
	if err := WriteLeaks(&b, leaks); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "| ECG200 | 2 | 0.9625 ± 0.0125 | 0.8850 ± 0.0100 | +0.0775 ± 0.0225 | yes |") {
		t.Errorf("leak table:\n%s", b.String())
	}
	// One seed: no standard error, so no verdict beyond noise.
	one := Leaks([]Row{row("A", "reference_fresh", []int64{1}, []float64{0.8}), row("A", "reference_compat", []int64{1}, []float64{0.9})})
	if len(one) != 1 || !math.IsNaN(one[0].Diff.SE) || one[0].Finding() {
		t.Errorf("one seed: %+v", one)
	}
}

// TestShiftsByHand: runs against a baseline folder's runs pair by dataset,
// preset and seed; the mean and standard error are those of the per-seed
// differences, computed by hand.
func TestShiftsByHand(t *testing.T) {
	row := func(ds, preset string, seeds []int64, perSeed []float64) Row {
		return Row{Comparison: Comparison{Dataset: ds, Preset: preset, Seeds: seeds, PerSeed: perSeed}}
	}
	ours := []Row{
		row("ECG200", "reference_fresh", []int64{42, 0, 1}, []float64{0.88, 0.86, 0.83}),
		row("ECG200", "reference_compat", []int64{42}, []float64{0.95}),
		row("GunPoint", "reference_fresh", []int64{7}, []float64{1.0}),
	}
	baseline := []Row{
		row("ECG200", "reference_compat", []int64{42}, []float64{0.96}),
		row("ECG200", "reference_fresh", []int64{0, 1, 42, 2}, []float64{0.85, 0.84, 0.86, 0.9}),
		row("GunPoint", "reference_fresh", []int64{42}, []float64{0.99}),
	}
	shifts := Shifts(ours, baseline)
	if len(shifts) != 2 || shifts[0].Preset != "reference_fresh" || shifts[1].Preset != "reference_compat" {
		t.Fatalf("shifts %+v: want ECG200 under both presets (GunPoint shares no seed)", shifts)
	}
	// reference_fresh, seeds 42, 0, 1: differences 0.02, 0.01, −0.01: mean
	// 0.006667, sd 0.015275, SE 0.008819.
	s := shifts[0]
	if len(s.Seeds) != 3 || math.Abs(s.Diff.Mean-0.02/3) > 1e-12 || math.Abs(s.Diff.SE-0.0088192) > 1e-6 {
		t.Errorf("shift %+v, want 0.006667 ± 0.008819 over 3 seeds", s)
	}
	if s.Finding() {
		t.Error("a shift of 0.76 standard errors is reported beyond noise")
	}
	var b strings.Builder
	if err := WriteShifts(&b, shifts); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| ECG200 | reference_fresh | 3 | 0.8567 ± 0.0145 | 0.8500 ± 0.0058 | +0.0067 ± 0.0088 | no |",
		"| ECG200 | reference_compat | 1 | 0.9500 (1 seed) | 0.9600 (1 seed) | -0.0100 ± — | no |"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("shift table lacks %q:\n%s", want, b.String())
		}
	}
}
