package timing

import (
	"strings"
	"testing"
	"time"
)

// TestFormatBatchTimingsSpeedUp checks the speed-up column by hand: it is the
// one-run-at-a-time wall of the same dataset and round over the batched one,
// also when the batched measurement came first, for a run axis as for runs
// alone (the form column says which), and "-" without a baseline.
func TestFormatBatchTimingsSpeedUp(t *testing.T) {
	ts := []BatchTiming{
		{Dataset: "GunPoint", R: 10, Runs: 10, Wall: 20 * time.Second},
		{Dataset: "GunPoint", R: 1, Runs: 10, Wall: 50 * time.Second},
		{Dataset: "GunPoint", R: 10, Runs: 10, Wall: 10 * time.Second, RunAxis: true}, // another form, same round
		{Dataset: "GunPoint", R: 10, Runs: 10, Wall: 25 * time.Second},                // round 2: its own baseline
		{Dataset: "GunPoint", R: 1, Runs: 10, Wall: 100 * time.Second},
		{Dataset: "ECG200", R: 5, Runs: 10, Wall: 8 * time.Second}, // no R = 1 for ECG200
	}
	lines := strings.Split(strings.TrimSpace(FormatBatchTimings(ts)), "\n")
	if len(lines) != 1+len(ts) {
		t.Fatalf("%d lines, want a header and %d rows:\n%s", len(lines), len(ts), strings.Join(lines, "\n"))
	}
	want := []string{"2.50x", "-", "5.00x", "4.00x", "-", "-"}
	forms := []string{"alone", "-", "axis", "alone", "-", "alone"}
	for i, w := range want {
		fields := strings.Fields(lines[1+i])
		if len(fields) < 5 || fields[4] != w {
			t.Errorf("row %d %q: speed-up column %v, want %s", i+1, lines[1+i], fields, w)
		}
		if len(fields) < 9 || fields[8] != forms[i] {
			t.Errorf("row %d %q: form column %q, want %s", i+1, lines[1+i], fields[8], forms[i])
		}
	}
}
