package benchenv

import (
	"slices"
	"testing"
)

// TestReadsTheEnvironment: unset variables give the default, set ones are
// parsed item by item (trimmed), and Count takes whole numbers ≥ 1 only.
func TestReadsTheEnvironment(t *testing.T) {
	t.Setenv("BENCHENV_TEST", "")
	if got := Or("BENCHENV_TEST", "x"); got != "x" {
		t.Errorf("Or, unset: %q, want the default", got)
	}
	if got := Int(t, "BENCHENV_TEST", 7); got != 7 {
		t.Errorf("Int, unset: %d, want 7", got)
	}
	if got := List(t, "BENCHENV_TEST", "1,10", Count); !slices.Equal(got, []int{1, 10}) {
		t.Errorf("List, unset: %v, want the default [1 10]", got)
	}
	t.Setenv("BENCHENV_TEST", " 3, 20 ")
	if got := List(t, "BENCHENV_TEST", "1", Count); !slices.Equal(got, []int{3, 20}) {
		t.Errorf("List of %q: %v, want [3 20]", " 3, 20 ", got)
	}
	t.Setenv("BENCHENV_TEST", "12")
	if got := Int(t, "BENCHENV_TEST", 7); got != 12 {
		t.Errorf("Int of \"12\": %d", got)
	}
	for _, bad := range []string{"0", "-1", "ten", ""} {
		if _, err := Count(bad); err == nil {
			t.Errorf("Count(%q) accepted it", bad)
		}
	}
}
