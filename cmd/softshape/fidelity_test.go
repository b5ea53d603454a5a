package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSetHelpListsPresets: -set help shows every protocol switch and preset.
func TestSetHelpListsPresets(t *testing.T) {
	var buf bytes.Buffer
	if err := runTrain([]string{"-set", "help"}, &buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{"selection_window=post_warmup", "fold_reset=fresh", "eval_path=phase", "selection_stat=mean",
		"protocol=reference_compat: the authors' published code",
		"fold_reset=carry;eval_path=sparse;batch_rule=large;shuffle=false;selection_stat=batch_scaled;selection_window=all",
		"protocol=reference_fresh: the authors' code minus the fold leak"} {
		if !strings.Contains(out, want) {
			t.Errorf("-set help lacks %q:\n%s", want, out)
		}
	}
}

// TestFidelityCommand runs the fidelity benchmark on the bundled GunPoint with
// a tiny schedule (two seeds, one preset) against a hand-made reference file,
// then reports again from the stored runs without training.
func TestFidelityCommand(t *testing.T) {
	dir := t.TempDir()
	ref := filepath.Join(dir, "reference-runs.csv")
	body := "dataset,protocol,seed,fold1,fold2,fold3,fold4,fold5,mean\nGunPoint,fresh_folds,1,,,,,,0.5\nGunPoint,fresh_folds,2,,,,,,0.6\n"
	if err := os.WriteFile(ref, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	results := filepath.Join(dir, "fid")
	args := []string{"-datasets", "GunPoint", "-seeds", "1,2", "-presets", "reference_fresh", "-data", bundledOnly(t),
		"-offline", "-backend", "go", "-set", "epochs=2;warmup_epochs=1;embed_dim=16", "-results", results, "-reference", ref}
	out := fidelityOK(t, args...)
	for _, want := range []string{`extra settings "epochs=2;warmup_epochs=1;embed_dim=16": not the benchmark proper`,
		"| GunPoint | reference_fresh | 2 |", "0.5500 ± 0.0500 (fresh_folds, 2 seeds)", "| 0.9900 | 0 of 10 |",
		"GunPoint, reference_fresh, seed 1: mean"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	again := fidelityOK(t, append(args, "-report")...)
	if strings.Contains(again, "start ") || !strings.Contains(again, "| GunPoint | reference_fresh | 2 |") {
		t.Errorf("-report trained or lost the rows:\n%s", again)
	}
	// The speed forms train into a folder of their own, never mixed with
	// the plain graphs' runs in a report.
	for _, extra := range [][]string{{"-fast"}, {"-fast", "-report"}} {
		fidelityErr(t, []string{"results folder " + filepath.Join(results, "reference_fresh") + " holds runs of the plain graphs", "GunPoint SoftShape fold 1 seed 1"},
			append(append([]string{}, args...), extra...)...)
	}
	fastResults := filepath.Join(dir, "fid-fast")
	fastArgs := append(append([]string{}, args[:len(args)-4]...), "-results", fastResults, "-reference", ref, "-fast")
	if out := fidelityOK(t, fastArgs...); !strings.Contains(out, "(the speed forms: softshape.RunOptions.Fast)") {
		t.Errorf("-fast output does not name the speed forms:\n%s", out)
	}
	// -baseline pairs them by seed with the plain graphs' runs.
	out = fidelityOK(t, append(fastArgs, "-report", "-baseline", results)...)
	for _, want := range []string{"### Against the runs in " + results + ": ours − baseline, paired by seed",
		"| dataset | preset | seeds | ours | baseline | ours − baseline (± SE) | beyond 2 SE |", "| GunPoint | reference_fresh | 2 | "} {
		if !strings.Contains(out, want) {
			t.Errorf("-baseline output lacks %q:\n%s", want, out)
		}
	}
	fidelityErr(t, []string{"-baseline: results folder", "not found"}, append(fastArgs, "-report", "-baseline", filepath.Join(dir, "none"))...)
	fidelityErr(t, []string{"results folder " + filepath.Join(fastResults, "reference_fresh") + " holds runs of the speed forms (-fast)"},
		append(append([]string{}, args[:len(args)-4]...), "-results", fastResults, "-reference", ref, "-report")...)
	fidelityErr(t, []string{`-presets: protocol="authors"`}, "-presets", "authors", "-results", results)
	fidelityErr(t, []string{"-report: results folder", "not found"}, "-report", "-results", filepath.Join(dir, "none"))
	fidelityErr(t, []string{"-reference", "no-such.csv"}, "-reference", filepath.Join(dir, "no-such.csv"), "-results", results)
	fidelityErr(t, []string{"-seeds"}, "-seeds", "x", "-results", results)
}

// fidelityOK runs "softshape fidelity args..." and returns its output.
func fidelityOK(t *testing.T, args ...string) string {
	t.Helper()
	var out bytes.Buffer
	if err := runFidelity(args, &out); err != nil {
		t.Fatalf("fidelity %q: %v\n%s", args, err, out.String())
	}
	return out.String()
}

// fidelityErr runs "softshape fidelity args..." and checks its error text.
func fidelityErr(t *testing.T, want []string, args ...string) {
	t.Helper()
	var out bytes.Buffer
	err := runFidelity(args, &out)
	if err == nil {
		t.Fatalf("fidelity %q: no error, want %q", args, want)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("fidelity %q: error %q does not contain %q", args, err, w)
		}
	}
}
