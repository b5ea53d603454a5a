package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/softshape-go/softshape/data"
)

// TestFLOPsCommand: "softshape flops" on the generated CBF data (no files) prints the
// model's sizes and, per phase, the epoch's FLOPs as computed and as needed;
// a negative -ops is an error naming the flag.
func TestFLOPsCommand(t *testing.T) {
	var out bytes.Buffer
	if err := runFLOPs([]string{"-dataset", data.CBFName, "-backend", "go", "-set", "protocol=reference_fresh", "-ops", "3"}, &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{data.CBFName + " on ", "J=", "GFLOP per epoch", "dense  epoch (val on sparse)", "sparse epoch", "useful", "training step graph, batch"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if err := runFLOPs([]string{"-ops", "-1"}, &out); err == nil || !strings.Contains(err.Error(), "-ops -1") {
		t.Errorf("-ops -1: error %v, want one naming -ops", err)
	}
}
