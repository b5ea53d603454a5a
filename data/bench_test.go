package data

import (
	"testing"
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

// TestLoadEOGVerticalSignal loads the largest shared dataset and checks its
// size. Its load time is BenchmarkLoadEOGVerticalSignal's to report: a unit
// test does not assert times, which vary on a shared machine.
func TestLoadEOGVerticalSignal(t *testing.T) {
	d, err := Load(ucrRoot(t), "EOGVerticalSignal")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Series) != 724 || d.Length != 1250 {
		t.Fatalf("%d rows of %d", len(d.Series), d.Length)
	}
}
