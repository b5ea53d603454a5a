package main

import (
	"bytes"
	"path/filepath"
	"testing"
)

// TestStatusCommand: counts of a partly run sweep, the missing cells listed,
// and the merge of a shard run into another folder.
func TestStatusCommand(t *testing.T) {
	dir := t.TempDir()
	shard1, shard2 := filepath.Join(dir, "shard1"), filepath.Join(dir, "shard2")
	if out, err := sweepCLI(t, shard1, "-shard", "1/2"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var out bytes.Buffer
	if err := runStatus([]string{"-results", shard1}, &out); err != nil {
		t.Fatal(err)
	}
	contains(t, out.String(), "ablation (QUICK MODE — not a reproduction), grid ", "2 cells: 1 done, 0 running, 0 failed, 0 invalid, 1 missing",
		"missing  ItalyPowerDemand · w/o Intra · seed 42 fold 1")
	if out, err := sweepCLI(t, shard2, "-shard", "2/2"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	out.Reset()
	if err := runStatus([]string{"-results", shard1, "-table", "ablation", "-merge", shard2}, &out); err != nil {
		t.Fatal(err)
	}
	contains(t, out.String(), "merged "+shard2+": 1 records copied", "2 cells: 2 done, 0 running")
	out.Reset()
	if err := runStatus([]string{"-results", shard1, "-table", "depth_L"}, &out); err != nil {
		t.Fatal(err)
	}
	contains(t, out.String(), "no sweep recorded for table depth_L")
	if err := runStatus([]string{"-results", filepath.Join(dir, "none")}, &out); err == nil {
		t.Error("missing results folder accepted")
	}
}
