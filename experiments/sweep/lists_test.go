package sweep

import (
	"slices"
	"testing"
)

func TestSplitList(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{" , ,", nil},
		{"GunPoint", []string{"GunPoint"}},
		{" GunPoint , ECG200,,Wine ", []string{"GunPoint", "ECG200", "Wine"}},
	} {
		if got := SplitList(c.in); !slices.Equal(got, c.want) || (got == nil) != (c.want == nil) {
			t.Errorf("SplitList(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestParseSeeds(t *testing.T) {
	got, err := ParseSeeds("42, 0,-1,,7")
	if err != nil || !slices.Equal(got, []int64{42, 0, -1, 7}) {
		t.Errorf("ParseSeeds = %v, %v; want [42 0 -1 7]", got, err)
	}
	if got, err := ParseSeeds(" "); err != nil || got != nil {
		t.Errorf("ParseSeeds(blank) = %v, %v; want nil, nil", got, err)
	}
	if _, err := ParseSeeds("42,4x"); err == nil || err.Error() != `"4x" is not an integer` {
		t.Errorf("ParseSeeds(42,4x) error = %v, want one naming \"4x\"", err)
	}
}
