package reproduction

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestVerdictsAreTheDocuments: the verdicts that open each table notebook
// are those of docs/reproduction.md's status table for the entry of the most
// seeds under each preset (every claim's difference ± SE and verdict word
// stands in that entry's row), computed over every seed committed; where
// seed 42 alone gives another verdict it is named, and where a trend rests
// on one dataset, leaving that dataset's runs out brings it within 2 SE.
func TestVerdictsAreTheDocuments(t *testing.T) {
	entries, err := Load(".")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join("..", "docs", "reproduction.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, table := range Tables {
		vs := TableVerdicts(entries, table)
		for _, preset := range Presets {
			e, seed42, ok := verdictEntry(entries, table, preset)
			if !ok {
				continue
			}
			row := "" // the status table's row, the first of the document's rows that start so
			for _, line := range strings.Split(string(doc), "\n") {
				if strings.HasPrefix(line, "| "+rowTitle(e)+" | "+preset+" |") {
					row = line
					break
				}
			}
			if row == "" {
				t.Fatalf("%s under %s: no status row %q in docs/reproduction.md", table, preset, rowTitle(e))
			}
			n := 0
			for _, v := range vs {
				if v.Preset != preset {
					continue
				}
				n++
				if !slices.Equal(v.Seeds, e.item().pooledSeeds()) {
					t.Errorf("%s, %s: seeds %v, want every committed seed %v", table, v.Claim, v.Seeds, e.item().pooledSeeds())
				}
				// The status row states the difference of every claim and of
				// every setting beyond 2 SE; the verdict word where a claim's.
				if claimsOf(table) != nil || v.Diff.Trend() != 0 {
					if !strings.Contains(row, ppSESeeds(v.Diff)) {
						t.Errorf("%s, %s under %s: %s not in the status row %s", table, v.Claim, preset, ppSESeeds(v.Diff), row)
					}
				}
				if claimsOf(table) != nil && !strings.Contains(row, ppSESeeds(v.Diff)+": "+v.Word) {
					t.Errorf("%s, %s under %s: verdict %q not the status row's %s", table, v.Claim, preset, v.Word, row)
				}
				if seed42 != nil {
					again := ""
					for _, b := range entryVerdicts(*seed42) {
						if b.Claim == v.Claim && b.Word != v.Word {
							again = b.Word
						}
					}
					if v.Seed42 != again {
						t.Errorf("%s, %s: seed 42 alone %q, want %q", table, v.Claim, v.Seed42, again)
					}
				}
				if v.Driver != "" && ((v.Without.Trend() == v.Diff.Trend() && v.Share <= 0.5) || v.Without.N >= v.Diff.N) {
					t.Errorf("%s, %s: carried by %s (share %.2f), yet without it %+v", table, v.Claim, v.Driver, v.Share, v.Without)
				}
			}
			want := len(claimsOf(table))
			if want == 0 {
				want = len(e.Built.Differences())
			}
			if n != want {
				t.Errorf("%s under %s: %d verdicts, want %d", table, preset, n, want)
			}
		}
	}
}

// TestVerdictsOfTable3 reconciles Table 3's seed-42 and pooled verdicts:
// under reference_fresh the verdicts pool seeds 42, 0 and 1, and a
// setting whose seed-42 difference alone lies beyond 2 SE while the pooled
// one does not names seed 42's verdict beside the pooled one.
func TestVerdictsOfTable3(t *testing.T) {
	entries, err := Load(".")
	if err != nil {
		t.Fatal(err)
	}
	_, seed42, ok := verdictEntry(entries, "sparse_ratio", "reference_fresh")
	if !ok || seed42 == nil {
		t.Skip("no runs of more seeds of Table 3 committed")
	}
	md := VerdictsMarkdown(entries, "sparse_ratio")
	for _, v := range TableVerdicts(entries, "sparse_ratio") {
		if v.Preset != "reference_fresh" {
			continue
		}
		col, _, _ := strings.Cut(v.Claim, " − ")
		alone, _ := seed42.Built.Between(col, seed42.Built.Default)
		if alone.Verdict() != v.Word && !strings.Contains(md, "(seed 42 alone, the tables below: "+alone.Verdict()+")") {
			t.Errorf("%s: pooled %q, seed 42 alone %q, not reconciled in\n%s", v.Claim, v.Word, alone.Verdict(), md)
		}
		if (alone.Verdict() != v.Word) != (v.Seed42 != "") {
			t.Errorf("%s: Seed42 %q, seed 42's own verdict %q, pooled %q", v.Claim, v.Seed42, alone.Verdict(), v.Word)
		}
	}
}

// TestNotYet counts the runs of a table without runs: a reproduction
// folder where no sweep ran.
func TestNotYet(t *testing.T) {
	var entries []Entry
	empty := t.TempDir()
	for _, p := range Presets {
		e, err := LoadEntry(empty, "num_experts", p)
		if err != nil {
			t.Fatal(err)
		}
		if e.Built != nil {
			t.Fatalf("num_experts under %s: runs in an empty folder", p)
		}
		entries = append(entries, e)
	}
	got := NotYet(entries, "num_experts")
	if !strings.HasPrefix(got, "not yet: 0 of ") || strings.Count(got, " runs committed under") != 2 || !strings.Contains(got, "under reference_fresh") {
		t.Errorf("%q", got)
	}
	if entries[0].Expected == 0 || !strings.Contains(got, "0 of "+strconv.Itoa(entries[0].Expected)+" runs") {
		t.Errorf("%q does not count the %d planned runs", got, entries[0].Expected)
	}
	if len(TableVerdicts(entries, "num_experts")) != 0 {
		t.Error("verdicts without runs")
	}
}
