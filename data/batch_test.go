package data

import "testing"

func TestBatchSize(t *testing.T) {
	for _, tc := range []struct {
		n            int
		paper, large int
	}{
		{0, 1, 1}, {5, 1, 5}, {9, 1, 9}, {10, 1, 10}, {30, 3, 30}, {120, 12, 120},
		{159, 15, 159}, {160, 16, 160}, {600, 16, 512}, {14400, 16, 512},
	} {
		if got := BatchSize(tc.n, BatchPaper); got != tc.paper {
			t.Errorf("BatchSize(%d, paper) = %d, want %d", tc.n, got, tc.paper)
		}
		if got := BatchSize(tc.n, BatchLarge); got != tc.large {
			t.Errorf("BatchSize(%d, large) = %d, want %d", tc.n, got, tc.large)
		}
	}
}

func TestParseBatchRule(t *testing.T) {
	for s, want := range map[string]BatchRule{"paper": BatchPaper, "large": BatchLarge, " Large ": BatchLarge} {
		got, err := ParseBatchRule(s)
		if err != nil || got != want {
			t.Errorf("ParseBatchRule(%q) = %v, %v", s, got, err)
		}
	}
	for _, r := range []BatchRule{BatchPaper, BatchLarge} {
		if got, err := ParseBatchRule(r.String()); err != nil || got != r {
			t.Errorf("round trip of %v: %v, %v", r, got, err)
		}
	}
	_, err := ParseBatchRule("huge")
	wantError(t, err, `"huge"`, "paper", "large")
	if s := BatchRule(7).String(); s != "BatchRule(7)" {
		t.Errorf("String of an unknown rule = %q", s)
	}
}
