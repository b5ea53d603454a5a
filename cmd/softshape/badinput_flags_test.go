package main

import (
	"bytes"
	"flag"
	"fmt"
	"strings"
	"testing"
)

// Flag mistakes that were accepted and did other than meant: repeated -set
// flags, a switch's value after a space, a -set item without a name,
// -epochs without -warmup.

// TestSetFlagsJoined: several -set flags are joined, not the last kept; a
// setting given in two of them is an error.
func TestSetFlagsJoined(t *testing.T) {
	variants := func(args ...string) (string, error) {
		var out bytes.Buffer
		err := runVariants(append([]string{"-table", "sparse_ratio"}, args...), &out)
		return out.String(), err
	}
	joint, err := variants("-set", "depth=3;embed_dim=64")
	if err != nil {
		t.Fatal(err)
	}
	apart, err := variants("-set", "depth=3", "-set", "embed_dim=64")
	if err != nil {
		t.Fatal(err)
	}
	if apart != joint {
		t.Errorf("-set depth=3 -set embed_dim=64:\n%s\nwant as -set \"depth=3;embed_dim=64\":\n%s", apart, joint)
	}
	if _, err := variants("-set", "depth=3", "-set", "depth=4"); err == nil || !strings.Contains(err.Error(), "depth is given twice (depth=3 and depth=4)") {
		t.Errorf("-set depth=3 -set depth=4: %v", err)
	}
}

// TestSilentFlagMistakes: a switch's value given after a space, and a -set
// item without a name, get errors naming the mistake.
func TestSilentFlagMistakes(t *testing.T) {
	checkBadInputs(t, []badInput{
		{name: "train -run-axis off", cmd: "train", args: []string{"-run-axis", "off"},
			want: []string{`unexpected argument "off"`, "-run-axis is a switch", "-run-axis=off"}},
		{name: "sweep -run-axis off", cmd: "sweep", args: []string{"-table", "ablation", "-run-axis", "off"},
			want: []string{"-run-axis is a switch", "-run-axis=off"}},
		{name: "train -quiet false", cmd: "train", args: []string{"-quiet", "false"},
			want: []string{"-quiet is a switch", "-quiet=false"}},
		{name: "train -quiet GunPoint", cmd: "train", args: []string{"-quiet", "GunPoint"},
			want: []string{`unexpected argument "GunPoint" (name the dataset with -dataset)`}},
		{name: "train -set =1", cmd: "train", args: []string{"-set", "=1"},
			want: []string{`item "=1" is not name=value`}},
		{name: "train -set depth", cmd: "train", args: []string{"-set", "embed_dim=16;depth"},
			want: []string{`item "depth" is not name=value`}},
	})
}

// TestEpochsAloneScalesWarmUp: -epochs without -warmup (nor a warmup_epochs
// setting) keeps the paper's share of warm-up, 150 of 500, and says so in
// one line; -warmup or a warmup_epochs setting is kept as given.
func TestEpochsAloneScalesWarmUp(t *testing.T) {
	for _, c := range []struct {
		args           []string
		set            string
		epochs, warmUp int
		note           string
	}{
		{[]string{"-epochs", "40"}, "", 40, 12, "-epochs 40 without -warmup: 12 warm-up epochs, the warmup_epochs setting's 150 of 500 epochs scaled to 40"},
		{[]string{"-epochs", "3"}, "", 3, 1, "-epochs 3 without -warmup: 1 warm-up epochs"},
		{[]string{"-epochs", "40", "-warmup", "30"}, "", 40, 30, ""},
		{[]string{"-epochs", "40"}, "warmup_epochs=5", 40, 5, ""},
		{[]string{"-epochs", "500"}, "", 500, 150, ""},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		s := addScheduleFlags(fs)
		if err := fs.Parse(c.args); err != nil {
			t.Fatal(err)
		}
		cfg, notes, err := configFromFlags(c.set, s)
		if err != nil || cfg.Epochs != c.epochs || cfg.WarmUpEpochs != c.warmUp {
			t.Errorf("%v -set %q: epochs %d, warm-up %d, %v; want %d, %d", c.args, c.set, cfg.Epochs, cfg.WarmUpEpochs, err, c.epochs, c.warmUp)
		}
		if got := fmt.Sprint(notes); (c.note == "") != (len(notes) == 0) || !strings.Contains(got, c.note) {
			t.Errorf("%v -set %q: notes %s; want %q", c.args, c.set, got, c.note)
		}
	}
}
