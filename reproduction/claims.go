package reproduction

import (
	"fmt"
	"math"
	"strings"

	"github.com/softshape-go/softshape/ablations"
	"github.com/softshape-go/softshape/experiments/tables"
)

// Claim is one claim the paper makes about a table, checked on our runs as
// the paired difference Setting − Base over every (dataset, seed, fold) run
// both have (tables.Table.Between), beside the paper's own difference on the
// same datasets.
type Claim struct {
	// Table is the paper table; Text the claim.
	Table, Text string
	// Setting and Base are the table's columns: the claim is about
	// Setting − Base.
	Setting, Base string
	// Expect is what the claim says of Setting − Base.
	Expect Relation
}

// Relation is what a claim says of the difference Setting − Base.
type Relation int

const (
	// Below: the setting is worse than the base.
	Below Relation = iota
	// NotBelow: the setting is at least as good as the base.
	NotBelow
	// NotAbove: the base is at least as good as the setting.
	NotAbove
	// SmallCost: the base costs little accuracy against the setting. How
	// little is a matter of size: ours is given beside the paper's.
	SmallCost
)

// Claims are the paper's claims about the tables of the reproduction, in
// the order of Tables. Tables 3, 4 and 6 have none beyond their default
// setting; each of their settings is compared with the default instead.
func Claims() []Claim {
	out := []Claim{
		{Table: "stride_q", Text: "q = 4 costs little accuracy against q = 1", Setting: "q=1", Base: "q=4", Expect: SmallCost},
		{Table: "stride_q", Text: "q = m is clearly worse than q = 4", Setting: "q=m", Base: "q=4", Expect: Below},
		{Table: "shape_length_m", Text: "Val-Select is at least as good as Fixed-8", Setting: ablations.FixedName, Base: ablations.ValSelectName, Expect: NotAbove},
		{Table: "shape_length_m", Text: "Multi-Seq is at least as good as Fixed-8", Setting: ablations.MultiSeqName, Base: ablations.FixedName, Expect: NotBelow},
	}
	for _, v := range ablations.Table2() {
		if v.Name != ablations.DefaultName {
			out = append(out, Claim{Table: "ablation", Text: v.Name + " is below SoftShape", Setting: v.Name, Base: ablations.DefaultName, Expect: Below})
		}
	}
	return out
}

// claimsOf returns the claims about table.
func claimsOf(table string) []Claim {
	var out []Claim
	for _, c := range Claims() {
		if c.Table == table {
			out = append(out, c)
		}
	}
	return out
}

// Name is "Setting − Base".
func (c Claim) Name() string { return c.Setting + " − " + c.Base }

// Outcome says what a difference d of our runs makes of the claim: a trend
// is called only beyond two standard errors (tables.Difference.Trend). The
// first word is the verdict: holds, consistent, "not shown", contradicted,
// or, for a small cost, "a cost" whose size the reader compares with the
// paper's.
func (c Claim) Outcome(d tables.Difference) string {
	if d.N < 2 {
		return d.Verdict() // no paired runs, too few runs
	}
	t := d.Trend()
	switch c.Expect {
	case Below:
		return [...]string{"contradicted: positive beyond 2 SE", "not shown: within 2 SE", "holds: negative beyond 2 SE"}[1-t]
	case NotBelow:
		return [...]string{"holds: positive beyond 2 SE", "consistent: within 2 SE", "contradicted: negative beyond 2 SE"}[1-t]
	case NotAbove:
		return [...]string{"contradicted: positive beyond 2 SE", "consistent: within 2 SE", "holds: negative beyond 2 SE"}[1-t]
	default: // SmallCost
		return [...]string{"a cost beyond 2 SE: compare its size with the paper's", "consistent: no cost beyond 2 SE", "consistent: no cost (negative beyond 2 SE)"}[1-t]
	}
}

// versusPaper compares a difference with the paper's in sign and size: the
// signs of the two means, and whether the paper's lies within two of our
// standard errors of ours.
func versusPaper(d tables.Difference) string {
	switch {
	case math.IsNaN(d.Paper):
		return "no paper figure"
	case d.N < 2 || math.IsNaN(d.SE):
		return "—"
	}
	sign := "same sign"
	switch {
	case d.Paper == 0 || d.Mean == 0:
		sign = "one of them zero"
	case (d.Paper > 0) != (d.Mean > 0):
		sign = "opposite sign"
	}
	size := "the paper's within 2 SE of ours"
	if math.Abs(d.Mean-d.Paper) > 2*d.SE {
		size = "the paper's beyond 2 SE of ours"
	}
	return sign + "; " + size
}

// pp formats a difference in accuracy in percentage points with its sign
// ("+0.31", "−1.24": a true minus sign, as in the prose).
func pp(x float64) string {
	return strings.Replace(fmt.Sprintf("%+.2f", 100*x), "-", "−", 1)
}

// ppSE is a difference in percentage points ± its standard error:
// "−1.24 ± 0.48 pp"; "—" without runs, no SE for one run.
func ppSE(d tables.Difference) string {
	switch {
	case d.N == 0:
		return "—"
	case d.N < 2 || math.IsNaN(d.SE):
		return pp(d.Mean) + " pp"
	}
	return fmt.Sprintf("%s ± %.2f pp", pp(d.Mean), 100*d.SE)
}

// ppSESeeds is ppSE, with the standard error between seeds when d pairs
// runs of several seeds: "−1.24 ± 0.48 pp (between seeds ± 0.30 pp, 3 seeds)".
func ppSESeeds(d tables.Difference) string {
	if d.Seeds < 2 || math.IsNaN(d.SeedSE) {
		return ppSE(d)
	}
	return fmt.Sprintf("%s (between seeds ± %.2f pp, %d seeds)", ppSE(d), 100*d.SeedSE, d.Seeds)
}

// seedsCell is the standard error between seeds of d, or why there is none.
func seedsCell(d tables.Difference) string {
	if d.Seeds < 2 {
		return "— (one seed)"
	}
	return fmt.Sprintf("± %.2f pp (%d seeds)", 100*d.SeedSE, d.Seeds)
}

// writeClaims writes the claims about table under each preset that has
// runs: the difference, its standard errors, the paper's and the verdict.
func writeClaims(b *strings.Builder, byPreset []Entry) {
	if len(byPreset) == 0 {
		return
	}
	claims := claimsOf(byPreset[0].Table)
	if len(claims) == 0 {
		return
	}
	b.WriteString("#### The paper's claims\n\n")
	b.WriteString("Each claim as the paired difference of two settings over every (dataset, seed, fold) run both have, in percentage points ± its standard error " +
		"(over datasets × folds × seeds; between seeds apart); a trend is called only beyond two standard errors. " +
		"Paper: the mean of its per-dataset differences over the same datasets, compared with ours in sign and size.\n\n")
	b.WriteString("| claim | preset | difference | ours | between seeds | paper | sign, size | verdict |\n|---|---|---|---:|---:|---:|---|---|\n")
	for _, c := range claims {
		for _, e := range byPreset {
			d, ok := claimDifference(e, c)
			switch {
			case e.Built == nil:
				fmt.Fprintf(b, "| %s | %s | %s | not started | — | — | — | — |\n", c.Text, presetLabel(e), c.Name())
				continue
			case !ok || d.N == 0:
				fmt.Fprintf(b, "| %s | %s | %s | no paired runs yet | — | — | — | — |\n", c.Text, presetLabel(e), c.Name())
				continue
			}
			paperPP := "—"
			if !math.IsNaN(d.Paper) {
				paperPP = pp(d.Paper) + " pp"
			}
			fmt.Fprintf(b, "| %s | %s | %s | %s (n=%d) | %s | %s | %s | %s |\n", c.Text, presetLabel(e), c.Name(), ppSE(d), d.N,
				seedsCell(d), paperPP, versusPaper(d), c.Outcome(d))
		}
	}
	b.WriteString("\n")
}

// claimDifference is the difference a claim is about, measured on e; ok is
// false when e has no runs of one of its settings.
func claimDifference(e Entry, c Claim) (tables.Difference, bool) {
	if e.Built == nil {
		return tables.Difference{}, false
	}
	return e.Built.Between(c.Setting, c.Base)
}
