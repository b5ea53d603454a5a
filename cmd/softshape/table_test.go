package main

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTableCommand: Markdown and CSV tables of a quick sweep, with the quick
// label and the paper's values; the aeon export; errors.
func TestTableCommand(t *testing.T) {
	results := filepath.Join(t.TempDir(), "results")
	if out, err := sweepCLI(t, results); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var md bytes.Buffer
	exportDir := filepath.Join(t.TempDir(), "aeon")
	if err := runTable([]string{"-table", "ablation", "-quick", "-results", results, "-export", exportDir}, &md); err != nil {
		t.Fatal(err)
	}
	contains(t, md.String(), "# [QUICK MODE — not a reproduction] Table 2", "| SoftShape ours | SoftShape paper | SoftShape Δ |",
		"| ItalyPowerDemand | ", "| 0.9891 |", "None: every expected run has an ok record.", "exported 3 files to "+exportDir)
	b, err := os.ReadFile(filepath.Join(exportDir, "classification", "accuracy", "QUICK-SoftShape_accuracy.csv"))
	if err != nil || !strings.HasPrefix(string(b), "Resamples:,0\nItalyPowerDemand,") {
		t.Errorf("aeon file: %v\n%s", err, b)
	}
	var cs bytes.Buffer
	if err := runTable([]string{"-table", "ablation", "-quick", "-results", results, "-format", "csv"}, &cs); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&cs).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(rows[0], ",") != "section,dataset,column,metric,ours [QUICK MODE — not a reproduction],paper,diff,runs,expected,detail" {
		t.Errorf("CSV header %q", rows[0])
	}
	var found bool
	for _, r := range rows {
		if r[0] == "per_dataset" && r[1] == "ItalyPowerDemand" && r[2] == "SoftShape" && r[5] == "0.9891" && r[7] == "1" && r[8] == "1" {
			found = true
		}
	}
	if !found {
		t.Errorf("no ItalyPowerDemand SoftShape row:\n%s", cs.String())
	}
	var out bytes.Buffer
	if err := runTable([]string{"-table", "ablation", "-results", results}, &out); err == nil || !strings.Contains(err.Error(), "no sweep recorded") {
		t.Errorf("full table of a quick sweep: %v", err)
	}
	for _, bad := range [][]string{{}, {"-table", "ablation", "-format", "html"}, {"-table", "nope", "-results", results},
		{"-table", "ablation", "-results", filepath.Join(t.TempDir(), "none")}} {
		if err := runTable(bad, &out); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}
