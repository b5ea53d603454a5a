package reproduction

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/softshape-go/softshape/softshape"
)

// Fold1Pair is one fold-1 run trained under both presets: the same
// computation, since the fold leak starts at fold 2.
type Fold1Pair struct {
	// Table is the paper table; Setting the column of the run.
	Table, Setting string
	Compat, Fresh  Fold1Run
}

// Same reports whether both presets gave the same test accuracy (the
// records keep float32 accuracies: sameAccuracy).
func (p Fold1Pair) Same() bool { return math.Abs(p.Compat.Acc-p.Fresh.Acc) <= sameAccuracy }

// Fold1Pairs pairs the fold-1 runs of every table under reference_compat and
// reference_fresh by dataset, setting and seed. Records reused from another
// table are left out (their run is counted in the table that trained it).
// sameBackend holds the pairs trained on one backend, otherBackend those
// trained on two (a different computation).
func Fold1Pairs(entries []Entry) (sameBackend, otherBackend []Fold1Pair) {
	for _, table := range fold1Tables() {
		var compat, fresh *Entry
		for i := range entries {
			e := &entries[i]
			switch {
			case e.Table != table, e.Extra(): // fold 1 of the seed-42 runs
			case e.Preset == softshape.ProtocolReferenceCompat:
				compat = e
			case e.Preset == softshape.ProtocolReferenceFresh:
				fresh = e
			}
		}
		if compat == nil || fresh == nil {
			continue
		}
		type key struct {
			dataset, variant string
			seed             int64
		}
		byKey := map[key]Fold1Run{}
		for _, r := range fresh.Fold1 {
			if !r.Reused {
				byKey[key{r.Dataset, r.Variant, r.Seed}] = r
			}
		}
		for _, c := range compat.Fold1 {
			f, ok := byKey[key{c.Dataset, c.Variant, c.Seed}]
			if c.Reused || !ok {
				continue
			}
			p := Fold1Pair{Table: table, Setting: settingName(*compat, c.Variant), Compat: c, Fresh: f}
			if c.Backend == f.Backend {
				sameBackend = append(sameBackend, p)
			} else {
				otherBackend = append(otherBackend, p)
			}
		}
	}
	return sameBackend, otherBackend
}

// fold1Tables are the tables whose fold-1 runs are checked: the sweep
// tables and Table 1 (the LightTS/Shapeformer table's runs are Table 1's).
func fold1Tables() []string { return append(slices.Clone(Tables), Table1) }

// settingName is the paper's column of a variant of e's table (Table 7's
// Val-Select is the variant SoftShape), the variant itself without one.
func settingName(e Entry, variant string) string {
	if e.Built != nil {
		for _, c := range e.Built.Columns {
			if c.Variant == variant {
				return c.Name
			}
		}
	}
	return variant
}

// writeFold1 writes the check of fold 1, per table and over every table:
// how many runs trained under both presets agree in test accuracy and in
// the selected epoch, and those that do not.
func writeFold1(b *strings.Builder, entries []Entry) {
	pairs, other := Fold1Pairs(entries)
	if len(pairs)+len(other) == 0 {
		return
	}
	b.WriteString("### Fold 1 under both presets\n\n")
	b.WriteString("Fold 1 is the same computation under both presets (the fold leak starts at fold 2), so a run trained under both should end the same. " +
		"Per table, the fold-1 runs trained under both presets on one backend (records reused from another table counted where they were trained), " +
		"how many have the same test accuracy under both, and how many of those also the same selected epoch.\n\n")
	b.WriteString("| table | pairs | same test accuracy | and same selected epoch |\n|---|---:|---:|---:|\n")
	var differ []Fold1Pair
	count := func(ps []Fold1Pair) (same, sameEpoch int) {
		for _, p := range ps {
			if p.Same() {
				same++
			}
			if p.Same() && p.Compat.BestEpoch == p.Fresh.BestEpoch {
				sameEpoch++
			}
		}
		return same, sameEpoch
	}
	for _, table := range fold1Tables() {
		var ps []Fold1Pair
		for _, p := range pairs {
			if p.Table == table {
				ps = append(ps, p)
				if !p.Same() || p.Compat.BestEpoch != p.Fresh.BestEpoch {
					differ = append(differ, p)
				}
			}
		}
		if len(ps) == 0 {
			continue
		}
		same, sameEpoch := count(ps)
		fmt.Fprintf(b, "| %s | %d | %d | %d |\n", shortTitle(Entry{Table: table}), len(ps), same, sameEpoch)
	}
	same, sameEpoch := count(pairs)
	fmt.Fprintf(b, "| every table | %d | %d | %d |\n\n", len(pairs), same, sameEpoch)
	if len(differ) > 0 {
		b.WriteString("Those that differ:\n\n| table | dataset | setting | backend | test accuracy, compat / fresh | selected epoch, compat / fresh |\n|---|---|---|---|---:|---:|\n")
		for _, p := range differ {
			fmt.Fprintf(b, "| %s | %s | %s | %s | %.4f / %.4f | %d / %d |\n", tableLabel(p.Table), p.Compat.Dataset, p.Setting,
				p.Compat.Backend, p.Compat.Acc, p.Fresh.Acc, p.Compat.BestEpoch, p.Fresh.BestEpoch)
		}
		b.WriteString("\n")
	}
	if len(other) > 0 {
		var list []string
		for _, p := range other {
			list = append(list, fmt.Sprintf("%s's %s %s (%s / %s)", tableLabel(p.Table), p.Compat.Dataset, p.Setting, p.Compat.Backend, p.Fresh.Backend))
		}
		fmt.Fprintf(b, "Left out, trained on two backends (compat / fresh): %s.\n\n", strings.Join(list, "; "))
	}
}
