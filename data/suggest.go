package data

import (
	"sort"
	"strings"
)

// closeNames returns up to limit candidates close to name: a case-insensitive
// match, names containing it (or contained in it), and names within a small
// edit distance, nearest first.
func closeNames(name string, candidates []string, limit int) []string {
	q := strings.ToLower(name)
	type scored struct {
		name  string
		score int
	}
	var found []scored
	maxDist := max(2, len(q)/4)
	for _, c := range candidates {
		lc := strings.ToLower(c)
		d := editDistance(q, lc)
		switch {
		case lc == q:
			d = 0
		case len(q) >= 3 && (strings.Contains(lc, q) || strings.Contains(q, lc)):
			d = min(d, 1)
		case d > maxDist:
			continue
		}
		found = append(found, scored{c, d})
	}
	sort.SliceStable(found, func(i, j int) bool {
		if found[i].score != found[j].score {
			return found[i].score < found[j].score
		}
		return found[i].name < found[j].name
	})
	var out []string
	for _, f := range found {
		if len(out) == limit {
			break
		}
		out = append(out, f.name)
	}
	return out
}

// suggestion formats closeNames as "; did you mean A, B or C?", or "" when
// nothing is close.
func suggestion(name string, candidates []string) string {
	names := closeNames(name, candidates, 5)
	switch len(names) {
	case 0:
		return ""
	case 1:
		return "; did you mean " + names[0] + "?"
	}
	return "; did you mean " + strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1] + "?"
}

// editDistance is the Levenshtein distance between a and b (bytes).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
