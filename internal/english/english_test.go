package english

import "testing"

func TestAgree(t *testing.T) {
	for _, c := range []struct {
		n    int
		want string
	}{{0, "differ"}, {1, "differs"}, {2, "differ"}, {-1, "differ"}} {
		if got := Agree(c.n, "differs", "differ"); got != c.want {
			t.Errorf("Agree(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}
