package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/softshape-go/softshape/experiments/baseline"
)

// TestBaselineCommand runs MiniRocket on SoftShape's folds of the bundled
// GunPoint with one seed, stores its record, prints its table; a rerun
// trains nothing and leaves the record as it was.
func TestBaselineCommand(t *testing.T) {
	out := filepath.Join(t.TempDir(), "baselines")
	args := []string{"-datasets", "GunPoint", "-seeds", "42", "-data", bundledOnly(t), "-out", out, "-workers", "2"}
	first := baselineOK(t, args...)
	path := baseline.Path(out, baseline.MiniRocket, baseline.ProtocolFolds, "GunPoint", 42)
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no record: %v", err)
	}
	if !strings.Contains(first, "GunPoint") || !strings.Contains(first, "accuracy per seed") {
		t.Errorf("table lacks GunPoint:\n%s", first)
	}
	second := baselineOK(t, args...)
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) || second != first {
		t.Errorf("a rerun changed the record or the table:\n%s\n%s", first, second)
	}
	if rep := baselineOK(t, "-report", "-out", out); rep != first {
		t.Errorf("-report prints another table:\n%s", rep)
	}
	for _, c := range []struct {
		want string
		args []string
	}{
		{"-seeds", []string{"-seeds", "x"}},
		{"-seeds: no seeds", []string{"-seeds", ""}},
		{"-workers -1", []string{"-workers", "-1"}},
		{`unknown method "hydra"`, []string{"-method", "hydra", "-datasets", "GunPoint", "-data", bundledOnly(t), "-out", out}},
		{`unknown protocol "cv"`, []string{"-protocol", "cv", "-datasets", "GunPoint", "-data", bundledOnly(t), "-out", out}},
		{"NoSuchSet", []string{"-datasets", "NoSuchSet", "-data", bundledOnly(t), "-out", out}},
	} {
		var buf bytes.Buffer
		if err := runBaseline(c.args, &buf); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("baseline %q: %v, want an error naming %q", c.args, err, c.want)
		}
	}
}

// TestBaselineCommittedFidelity: each method's committed standard-split
// records print one line per dataset the reference has and the summary
// that docs/baselines.md quotes.
func TestBaselineCommittedFidelity(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "baselines.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, method := range baseline.Methods() {
		out := baselineOK(t, "-report", "-method", method, "-protocol", "standard", "-out", filepath.Join("..", "..", baselineDir))
		lines := strings.Split(strings.TrimSpace(out), "\n")
		summary := lines[len(lines)-1]
		if len(lines) < 3 || !strings.Contains(summary, "within ±2.0 pp") {
			t.Fatalf("%s: no summary:\n%s", method, out)
		}
		if !strings.Contains(string(doc), summary) {
			t.Errorf("docs/baselines.md does not quote %s's summary %q", method, summary)
		}
	}
}

// baselineOK runs "softshape baseline args..." and returns its output.
func baselineOK(t *testing.T, args ...string) string {
	t.Helper()
	var out bytes.Buffer
	if err := runBaseline(args, &out); err != nil {
		t.Fatalf("baseline %q: %v\n%s", args, err, out.String())
	}
	return out.String()
}
