//go:build unix

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// lockedBuffer is a bytes.Buffer that one goroutine writes while another
// reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestSweepStopsOnSignal: SIGTERM during a sweep (what a Slurm time limit
// sends first) stops the fold in training at the end of its epoch with its
// progress saved, starts no other cell, writes no record, and exits with an
// error saying how to continue; the same command then continues the fold
// from its saved epoch and trains the rest.
func TestSweepStopsOnSignal(t *testing.T) {
	results := filepath.Join(t.TempDir(), "results")
	args := []string{"-table", "ablation", "-datasets", "ItalyPowerDemand", "-variants", "SoftShape,w/o Intra", "-folds", "1", "-quick",
		"-set", "embed_dim=16;epochs=6;warmup_epochs=2", "-results", results, "-data", bundledOnly(t), "-offline", "-backend", "go", "-max-runs", "1", "-workers", "1"}
	out := &lockedBuffer{}
	errc := make(chan error, 1)
	go func() { errc <- runSweep(args, out) }()
	for deadline := time.Now().Add(2 * time.Minute); !strings.Contains(out.String(), "start  [1/2]"); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the sweep did not start a cell:\n%s", out.String())
		}
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	err := <-errc
	if err == nil || !strings.Contains(err.Error(), "stopped by a signal (1 fold stopped in training, its progress saved)") {
		t.Fatalf("stopped sweep: error %v\n%s", err, out.String())
	}
	contains(t, out.String(), "sweep: terminated: stopping", "stop   ablation/ItalyPowerDemand/", "the next sweep continues it")
	if strings.Contains(out.String(), "start  [2/2]") {
		t.Errorf("the stopped sweep started another cell:\n%s", out.String())
	}
	saved, _ := filepath.Glob(filepath.Join(results, "ablation", "ItalyPowerDemand", "*", "fold1-seed42-*.resume"))
	records, _ := filepath.Glob(filepath.Join(results, "ablation", "ItalyPowerDemand", "*", "fold1-seed42-*.json"))
	if len(saved) != 1 || len(records) != 0 {
		t.Fatalf("after the stop: saved progress %v, records %v; want one and none", saved, records)
	}
	var again bytes.Buffer
	if err := runSweep(args, &again); err != nil {
		t.Fatalf("continuing: %v\n%s", err, again.String())
	}
	contains(t, again.String(), "from its saved progress", "sweep ablation: 2 trained (0 failed, 0 invalid)")
}
