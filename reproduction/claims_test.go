package reproduction

import (
	"math"
	"strings"
	"testing"

	"github.com/softshape-go/softshape/experiments/tables"
)

// handTable7 is a hand-made Table 7 of two datasets and two folds:
// Fixed-8 − Val-Select is −.05 −.05 −.04 −.06 (mean −.05, SE .0040825),
// Multi-Seq − Fixed-8 +.05 +.07 +.04 +.03 (mean .0475, SE .0085391),
// Multi-Seq − Val-Select 0 +.02 0 −.03 (mean −.0025, SE .0103078); the
// paper's, averaged over A and B: −.005, +.01 and +.005.
func handTable7() *tables.Table {
	runs := func(accs ...float64) tables.Value {
		v := tables.Value{Runs: len(accs), Expected: len(accs)}
		for i, a := range accs {
			v.PerRun = append(v.PerRun, tables.RunAcc{Seed: 42, Fold: i + 1, Acc: a})
		}
		return v
	}
	return &tables.Table{Name: "shape_length_m", Default: "Val-Select",
		Columns: []tables.Column{{Name: "Val-Select", Kind: tables.Ours, Variant: "SoftShape"}, {Name: "Fixed-8", Kind: tables.Ours, Variant: "Fixed-8"},
			{Name: "Multi-Seq", Kind: tables.Ours, Variant: "Multi-Seq"}},
		Rows: []tables.Row{
			{Dataset: "A", Ours: []tables.Value{runs(0.90, 0.80), runs(0.85, 0.75), runs(0.90, 0.82)}, Paper: []float64{0.95, 0.93, 0.96}},
			{Dataset: "B", Ours: []tables.Value{runs(0.70, 0.60), runs(0.66, 0.54), runs(0.70, 0.57)}, Paper: []float64{0.80, 0.81, 0.80}},
		}}
}

// TestClaimsByHand: the paper's claims about Table 7 on hand-computed runs,
// in the claims table, the status line and the differences line.
func TestClaimsByHand(t *testing.T) {
	e := Entry{Table: "shape_length_m", Preset: "reference_fresh", Expected: 90, Recorded: 12, Built: handTable7()}
	var b strings.Builder
	writeClaims(&b, []Entry{e, {Table: "shape_length_m", Preset: "reference_compat", Expected: 90}})
	for _, line := range []string{
		"| Val-Select is at least as good as Fixed-8 | reference_fresh | Fixed-8 − Val-Select | −5.00 ± 0.41 pp (n=4) | — (one seed) | −0.50 pp | same sign; the paper's beyond 2 SE of ours | holds: negative beyond 2 SE |",
		"| Multi-Seq is at least as good as Fixed-8 | reference_fresh | Multi-Seq − Fixed-8 | +4.75 ± 0.85 pp (n=4) | — (one seed) | +1.00 pp | same sign; the paper's beyond 2 SE of ours | holds: positive beyond 2 SE |",
		"| Val-Select is at least as good as Fixed-8 | reference_compat | Fixed-8 − Val-Select | not started | — | — | — | — |",
	} {
		if !strings.Contains(b.String(), line+"\n") {
			t.Errorf("no line\n%s\nin\n%s", line, b.String())
		}
	}
	ours, paper := verdictLine(e)
	if want := "partial (12 of 90 runs): Fixed-8 − Val-Select −5.00 ± 0.41 pp: holds; Multi-Seq − Fixed-8 +4.75 ± 0.85 pp: holds"; ours != want {
		t.Errorf("verdict %q, want %q", ours, want)
	}
	if want := "Fixed-8 − Val-Select −0.50; Multi-Seq − Fixed-8 +1.00 pp"; paper != want {
		t.Errorf("paper %q, want %q", paper, want)
	}
	// The same table read as one without claims: each setting from the default.
	ours, paper = differencesLine(e.Built)
	if want := "beyond 2 SE from Val-Select: Fixed-8 −5.00 ± 0.41 pp; within 2 SE: Multi-Seq"; ours != want || paper != "Fixed-8 −0.50 pp" {
		t.Errorf("differences %q / %q, want %q / Fixed-8 −0.50 pp", ours, paper, want)
	}
	e.Built.Columns[1].Kind = tables.NotRun // Fixed-8 not run: no trend left
	ours, paper = differencesLine(e.Built)
	if want := "no setting differs from Val-Select beyond 2 SE (closest: Multi-Seq −0.25 ± 1.03 pp)"; ours != want || paper != "+0.50 pp" {
		t.Errorf("differences %q / %q, want %q / +0.50 pp", ours, paper, want)
	}
	if ours, _ := verdictLine(Entry{Table: "stride_q", Expected: 150}); !strings.Contains(ours, "not started: `"+RunSweeps+"`") {
		t.Errorf("a table without runs: %q", ours)
	}
}

// TestClaimOutcomes: what each kind of claim makes of a trend up, none and
// down (beyond two standard errors or not), and the comparison with the
// paper's difference in sign and size.
func TestClaimOutcomes(t *testing.T) {
	up := tables.Difference{Mean: 0.03, SE: 0.01, N: 30, Paper: 0.02}
	none := tables.Difference{Mean: 0.01, SE: 0.01, N: 30, Paper: -0.04}
	down := tables.Difference{Mean: -0.03, SE: 0.01, N: 30, Paper: math.NaN()}
	for _, c := range []struct {
		expect         Relation
		up, none, down string
	}{
		{Below, "contradicted", "not shown", "holds"},
		{NotBelow, "holds", "consistent", "contradicted"},
		{NotAbove, "contradicted", "consistent", "holds"},
		{SmallCost, "a cost beyond 2 SE", "consistent", "consistent"},
	} {
		cl := Claim{Expect: c.expect}
		for _, x := range []struct {
			d    tables.Difference
			want string
		}{{up, c.up}, {none, c.none}, {down, c.down}} {
			if got := cl.Outcome(x.d); !strings.HasPrefix(got, x.want) {
				t.Errorf("relation %d, %+v: %q, want %q…", c.expect, x.d, got, x.want)
			}
		}
	}
	if got := (Claim{}).Outcome(tables.Difference{N: 1, Mean: 0.1}); got != "too few runs" {
		t.Errorf("one pair: %q", got)
	}
	for _, c := range []struct {
		d    tables.Difference
		want string
	}{
		{up, "same sign; the paper's within 2 SE of ours"},
		{none, "opposite sign; the paper's beyond 2 SE of ours"},
		{down, "no paper figure"},
	} {
		if got := versusPaper(c.d); got != c.want {
			t.Errorf("%+v: %q, want %q", c.d, got, c.want)
		}
	}
	if got := pp(-0.01234); got != "−1.23" {
		t.Errorf("pp(−0.01234) = %q", got)
	}
}

// TestFold1Pairs: fold-1 runs pair by dataset, variant and seed across the
// presets; reused records are left out, runs on two backends apart, and the
// check counts the same accuracies and epochs.
func TestFold1Pairs(t *testing.T) {
	run := func(ds, v string, acc float64, epoch int, backend string, reused bool) Fold1Run {
		return Fold1Run{Dataset: ds, Variant: v, Seed: 42, Acc: acc, BestEpoch: epoch, Backend: backend, Reused: reused}
	}
	entries := []Entry{
		{Table: "experts_k", Preset: "reference_compat", Fold1: []Fold1Run{run("A", "k=1", 0.9, 10, "onnxruntime", true),
			run("A", "k=2", 0.8, 20, "onnxruntime", false), run("B", "k=2", 0.7, 30, "onnxruntime", false), run("C", "k=2", 0.6, 40, "onnxruntime", false),
			run("D", "k=2", 0.5, 50, "onnxruntime", false)}},
		{Table: "experts_k", Preset: "reference_fresh", Fold1: []Fold1Run{run("A", "k=1", 0.9, 10, "onnxruntime", true),
			run("A", "k=2", 0.8, 20, "onnxruntime", false), run("B", "k=2", 0.7, 31, "onnxruntime", false), run("C", "k=2", 0.65, 40, "onnxruntime", false),
			run("D", "k=2", 0.5, 50, "xla", false)}},
	}
	same, other := Fold1Pairs(entries)
	if len(same) != 3 || len(other) != 1 || other[0].Compat.Dataset != "D" {
		t.Fatalf("pairs %+v, other backends %+v; want A, B, C and D apart", same, other)
	}
	var b strings.Builder
	writeFold1(&b, entries)
	for _, line := range []string{
		"| Table 4: number of activated experts k | 3 | 2 | 1 |",
		"| every table | 3 | 2 | 1 |",
		"| Table 4 | B | k=2 | onnxruntime | 0.7000 / 0.7000 | 30 / 31 |",
		"| Table 4 | C | k=2 | onnxruntime | 0.6000 / 0.6500 | 40 / 40 |",
		"Left out, trained on two backends (compat / fresh): Table 4's D k=2 (onnxruntime / xla).",
	} {
		if !strings.Contains(b.String(), line) {
			t.Errorf("no %q in\n%s", line, b.String())
		}
	}
}
