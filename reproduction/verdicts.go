package reproduction

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/softshape-go/softshape/experiments/tables"
)

// ClaimVerdict is the verdict of our runs on one claim about a table under one
// preset: the claim's difference over every seed the preset has runs of,
// and the verdict docs/reproduction.md gives it.
type ClaimVerdict struct {
	// Claim is the claim ("q = m is clearly worse than q = 4"), or for a
	// table without claims the setting's difference from the default
	// ("0% − 50%").
	Claim, Preset string
	// Seeds are the seeds pooled.
	Seeds []int64
	// Diff is the paired difference over them (Diff.Paper the paper's).
	Diff tables.Difference
	// Word is the verdict: for a claim its Outcome's first words ("holds",
	// "not shown", "contradicted", "consistent", "a cost beyond 2 SE"),
	// else the difference's (tables.Difference.Verdict: "matches",
	// "opposite", "no trend (within 2 SE)").
	Word string
	// Seed42 is the verdict of seed 42's runs alone where it differs from
	// Word (the per-preset tables of seed 42 give that one), else "".
	Seed42 string
	// Driver is the dataset the trend rests on (tables.Table.Driver), ""
	// when none does; Share is its share of the difference and Without the
	// difference without its runs.
	Driver  string
	Share   float64
	Without tables.Difference
	// Partial says how many runs are recorded when not all are ("110 of
	// 360 runs"), else "".
	Partial string
}

// TableVerdicts returns the verdicts of every claim about the named table
// (Claims; for a table without claims, each setting against the default),
// per preset, from the entry of the most seeds that has runs: an entry of
// MoreSeeds over an entry of Seeds. entries are Load's (any order; other
// tables' are ignored). A preset without runs gives no verdict: NotYet
// counts its runs.
func TableVerdicts(entries []Entry, table string) []ClaimVerdict {
	var out []ClaimVerdict
	for _, preset := range Presets {
		e, base, ok := verdictEntry(entries, table, preset)
		if !ok {
			continue
		}
		for _, v := range entryVerdicts(e) {
			if base != nil {
				for _, b := range entryVerdicts(*base) {
					if b.Claim == v.Claim && b.Word != v.Word {
						v.Seed42 = b.Word
					}
				}
			}
			out = append(out, v)
		}
	}
	return out
}

// verdictEntry is the entry of table under preset with the most seeds and
// runs, and, when that is an entry of MoreSeeds, the entry of Seeds alone.
func verdictEntry(entries []Entry, table, preset string) (e Entry, seed42 *Entry, ok bool) {
	for _, x := range entries {
		if x.Table != table || x.Preset != preset || x.Built == nil {
			continue
		}
		switch {
		case !ok:
			e, ok = x, true
		case x.Extra() && !e.Extra():
			first := e
			e, seed42 = x, &first
		case !x.Extra() && e.Extra():
			first := x
			seed42 = &first
		}
	}
	return e, seed42, ok
}

// entryVerdicts are the verdicts of one entry's table.
func entryVerdicts(e Entry) []ClaimVerdict {
	var out []ClaimVerdict
	add := func(claim, setting, base string, d tables.Difference, word string) {
		v := ClaimVerdict{Claim: claim, Preset: e.Preset, Seeds: e.item().pooledSeeds(), Diff: d, Word: word}
		v.Driver, v.Share, v.Without, _ = e.Built.Driver(setting, base)
		if !e.Complete() {
			v.Partial = fmt.Sprintf("%d of %d runs", e.Recorded, e.Expected)
		}
		out = append(out, v)
	}
	if cs := claimsOf(e.Table); len(cs) > 0 {
		for _, c := range cs {
			d, ok := claimDifference(e, c)
			if !ok {
				continue
			}
			word, _, _ := strings.Cut(c.Outcome(d), ":")
			add(c.Text, c.Setting, c.Base, d, word)
		}
		return out
	}
	for _, d := range e.Built.Differences() {
		add(d.Column+" − "+e.Built.Default, d.Column, e.Built.Default, d, d.Verdict())
	}
	return out
}

// NotYet says, per preset, how many of the planned runs of a table are
// committed when some preset has none: "not yet: 0 of 90 runs committed
// under reference_compat, 0 of 90 under reference_fresh". "" when every
// preset has runs.
func NotYet(entries []Entry, table string) string {
	var parts []string
	for _, preset := range Presets {
		for _, e := range entries {
			if e.Table == table && e.Preset == preset && !e.Extra() && e.Built == nil {
				parts = append(parts, fmt.Sprintf("%d of %d runs committed under %s", e.Recorded, e.Expected, preset))
			}
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "not yet: " + strings.Join(parts, ", ")
}

// VerdictsMarkdown is the block that opens a table's notebook: one row per
// claim and preset (TableVerdicts) with the difference ± its standard error
// over every seed present, the paper's difference on the same datasets and
// the verdict of docs/reproduction.md, the dataset a trend rests on, and
// where seed 42's runs alone (the per-preset tables below) give another
// verdict, that one; then NotYet's line for a preset without runs.
func VerdictsMarkdown(entries []Entry, table string) string {
	var b strings.Builder
	vs := TableVerdicts(entries, table)
	fmt.Fprintf(&b, "### Verdicts: %s\n\n", table)
	if len(vs) > 0 {
		b.WriteString("Each claim as the paired difference of two settings over every (dataset, seed, fold) run both have, in percentage points ± its standard error, " +
			"pooling every seed committed under the preset; a trend is called only beyond two standard errors (the rule and the verdicts of docs/reproduction.md). " +
			"n counts the paired runs and the datasets they come from: a setting some datasets cannot take (invalid) pairs fewer. " +
			"Paper: its own difference over the same datasets (for a study it prints as a summary only, the difference of its printed Avg. Acc, over all its datasets). Carried by: the dataset whose runs make more than half of the difference, or without whose runs the trend falls within 2 SE.\n\n")
		b.WriteString("| claim | preset | seeds | ours (pp ± SE) | paper (pp) | verdict | carried by |\n|---|---|---|---:|---:|---|---|\n")
		for _, v := range vs {
			word := "**" + v.Word + "**"
			if v.Seed42 != "" {
				word += fmt.Sprintf(" (seed 42 alone, the tables below: %s)", v.Seed42)
			}
			if v.Partial != "" {
				word = "partial (" + v.Partial + "): " + word
			}
			paperPP := "—"
			if !math.IsNaN(v.Diff.Paper) {
				paperPP = pp(v.Diff.Paper)
			}
			if v.Diff.PaperPrinted {
				paperPP += printedNote
			}
			driver := "—"
			if v.Driver != "" {
				driver = fmt.Sprintf("%s (%.0f%% of the difference; without it: %s)", v.Driver, 100*v.Share, ppSE(v.Without))
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s (n=%d, %d dataset%s) | %s | %s | %s |\n", v.Claim, v.Preset, seedsText(v.Seeds), ppSE(v.Diff), v.Diff.N,
				v.Diff.Datasets, map[bool]string{true: "", false: "s"}[v.Diff.Datasets == 1], paperPP, word, driver)
		}
		b.WriteString("\n")
		if slices.ContainsFunc(vs, func(v ClaimVerdict) bool { return v.Seed42 != "" }) {
			b.WriteString("Where seed 42's runs alone give another verdict, the verdict above, over more seeds, is the one docs/reproduction.md gives: " +
				"one seed's difference carries that seed's training noise, which the standard error over folds does not count.\n\n")
		}
	}
	if n := NotYet(entries, table); n != "" {
		fmt.Fprintf(&b, "**%s.**\n\n", strings.ToUpper(n[:1])+n[1:])
	}
	return b.String()
}
