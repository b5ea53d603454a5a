package data

import (
	"testing"
	"time"
)

// BenchmarkLoadEOGVerticalSignal loads the largest shared dataset (6.8 MB
// of .tsv, 724 series of 1250 values).
func BenchmarkLoadEOGVerticalSignal(b *testing.B) {
	root := ucrRoot(b)
	for b.Loop() {
		if _, err := Load(root, "EOGVerticalSignal"); err != nil {
			b.Fatal(err)
		}
	}
}

// TestLoadEOGVerticalSignalFast asserts that the largest shared dataset
// loads in under a second (the best of three tries, as the machine is
// shared).
func TestLoadEOGVerticalSignalFast(t *testing.T) {
	root := ucrRoot(t)
	best := time.Duration(1<<63 - 1)
	for range 3 {
		start := time.Now()
		d, err := Load(root, "EOGVerticalSignal")
		if err != nil {
			t.Fatal(err)
		}
		best = min(best, time.Since(start))
		if len(d.Series) != 724 || d.Length != 1250 {
			t.Fatalf("%d rows of %d", len(d.Series), d.Length)
		}
		if best < time.Second {
			break
		}
	}
	t.Logf("EOGVerticalSignal loads in %v", best)
	if best >= time.Second {
		t.Errorf("EOGVerticalSignal took %v to load, want < 1s", best)
	}
}
