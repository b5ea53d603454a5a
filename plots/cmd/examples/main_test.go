package main

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

func TestRunWritesEveryExample(t *testing.T) {
	dir := t.TempDir()
	if err := run(dir, "", 48); err != nil {
		t.Fatal(err)
	}
	names := []string{"sweep_sparse_ratio", "sweep_step_q", "rank_bars", "cd_diagram",
		"attention_map", "tsne_panels", "running_time", "training_curves"}
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join(dir, n+".png"))
		if err != nil {
			t.Errorf("%s: %v", n, err)
			continue
		}
		if _, err := png.Decode(bytes.NewReader(data)); err != nil {
			t.Errorf("%s: %v", n, err)
		}
	}
}
