package main

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
)

// TestVariantsCommand: the shared-expert table lists its three networks with
// their parameter counts on GunPoint's shape (T=150, C=2, m=32), differing by
// exactly the appendix's +242,944 (Transformer) and −21,760 (MLP); a variant
// impossible on a short dataset says why.
func TestVariantsCommand(t *testing.T) {
	var out bytes.Buffer
	if err := runVariants([]string{"-table", "shared_expert_network", "-dataset", "GunPoint"}, &out); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	// m=32 on T=150, q=4: J=30 shapes; P = 128·32+128 + 128·30 + 1041 + (2·128+2·33024+128) + 2·77056 + 129·2.
	base := 128*32 + 128 + 128*30 + 1041 + (2*128 + 2*33024 + 128) + 2*77056 + 129*2
	for _, w := range []string{
		"models for GunPoint: T=150, C=2, authors' m=32",
		"Shared expert: Inception    (none)                     " + strconv.Itoa(base),
		"Shared expert: Transformer  shared_expert=transformer  " + strconv.Itoa(base+242944),
		"Shared expert: MLP          shared_expert=mlp          " + strconv.Itoa(base-21760),
	} {
		if !strings.Contains(got, w) {
			t.Errorf("output lacks %q:\n%s", w, got)
		}
	}
	out.Reset()
	if err := runVariants([]string{"-table", "shape_length_m", "-dataset", "ItalyPowerDemand"}, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `invalid: multi_seq="8,16,32", scale m=32: shape_length: m=32 is longer than the series (T=24)`) {
		t.Errorf("Multi-Seq on T=24 not reported as invalid:\n%s", out.String())
	}
	if err := runVariants([]string{"-table", "nope"}, &out); err == nil {
		t.Error("unknown table accepted")
	}
}
