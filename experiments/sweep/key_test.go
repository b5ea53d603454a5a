package sweep

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/softshape-go/softshape/ablations"
	"github.com/softshape-go/softshape/softshape"
)

// otherValue returns a different valid-looking value for a setting.
func otherValue(name, value string) string {
	switch value {
	case "true":
		return "false"
	case "false":
		return "true"
	}
	switch name {
	case softshape.ParamNumExperts:
		return "2C"
	case softshape.ParamStride:
		return "m"
	case softshape.ParamSchedule:
		return "every_layer"
	case softshape.ParamMoELayers:
		return "all"
	case softshape.ParamShapeEmbed:
		return "linear"
	case softshape.ParamBatchRule:
		return "large"
	case softshape.ParamMoEExpert:
		return "fcn"
	case softshape.ParamSharedExpert:
		return "mlp"
	case softshape.ParamMultiSeq:
		return "8,16,32"
	case softshape.ParamFoldReset:
		return "carry"
	case softshape.ParamEvalPath:
		return "sparse"
	case softshape.ParamSelectionStat:
		return "batch_scaled"
	case softshape.ParamSelectionWindow:
		return "all"
	}
	if i, err := strconv.Atoi(value); err == nil {
		return strconv.Itoa(i + 1)
	}
	if f, err := strconv.ParseFloat(value, 64); err == nil {
		return strconv.FormatFloat(f/2+0.0125, 'g', -1, 64)
	}
	panic("no other value for " + name + "=" + value)
}

// TestKeysStable: the same configuration gives the same hash and key, and a
// change of any single hyperparameter, or of the quick flag, another hash.
// The default configuration's hash is the one its runs have had since before
// key schema 2 (the committed records of reproduction/fidelity/default are
// named by it), and a stored configuration string hashes as its Config.
func TestKeysStable(t *testing.T) {
	def := softshape.DefaultConfig()
	h := ConfigHash(def, false)
	if h != "c5193767545e" || h != ConfigHash(softshape.DefaultConfig(), false) {
		t.Fatalf("hash %q, want c5193767545e", h)
	}
	if hs, err := ConfigStringHash(def.String(), false); err != nil || hs != h {
		t.Errorf("ConfigStringHash(default) = %q, %v; want %q", hs, err, h)
	}
	if ConfigHash(def, true) == h {
		t.Error("the quick flag does not change the hash")
	}
	// A cell's key is the configuration's but where stride "auto" moved
	// (ItalyPowerDemand's fixed m = 4: q = 4 now, 2 before): there it has a
	// key of its own, which records validate under, as they do under the one
	// before (a run trained at q = 2 stays a valid record, of no grid).
	for ds, moved := range map[string]bool{"GunPoint": false, "DistalPhalanxOutlineAgeGroup": false, "ItalyPowerDemand": true,
		"SyntheticControl": true, "PLAID": true, "not-in-the-registry": false} {
		if got := CellHash(def, false, ds) != h; got != moved {
			t.Errorf("%s: cell key differs from the configuration's: %t, want %t", ds, got, moved)
		}
		if hs, err := CellStringHash(def.String(), false, ds); err != nil || hs != CellHash(def, false, ds) {
			t.Errorf("%s: CellStringHash = %q, %v; want %q", ds, hs, err, CellHash(def, false, ds))
		}
		for _, hash := range []string{h, CellHash(def, false, ds)} {
			if err := checkCellHash(def.String(), false, ds, hash); err != nil {
				t.Errorf("%s: record hash #%s: %v", ds, hash, err)
			}
		}
	}
	q2, err := def.WithSettings("stride=2")
	if err != nil {
		t.Fatal(err)
	}
	if CellHash(q2, false, "ItalyPowerDemand") != ConfigHash(q2, false) {
		t.Error("an explicit stride moved on ItalyPowerDemand")
	}
	if err := checkCellHash(def.String(), false, "ItalyPowerDemand", ConfigHash(q2, false)); err == nil {
		t.Error("a record of stride=2's hash validates as the default's")
	}
	seen := map[string]string{h: "default"}
	params := strings.Split(def.String(), ";")
	if len(params) != 31 {
		t.Errorf("%d settings in Config.String; update this test", len(params))
	}
	for _, p := range params {
		name, value, _ := strings.Cut(p, "=")
		cfg, err := def.WithSettings(name + "=" + otherValue(name, value))
		if err != nil {
			t.Fatal(err)
		}
		hc := ConfigHash(cfg, false)
		if prev, dup := seen[hc]; dup {
			t.Errorf("changing %s gives the hash of %s", name, prev)
		}
		seen[hc] = name
	}
	// Grids: the same spec gives the same keys and id; another setting other keys.
	spec := GridSpec{Table: "depth_L", Datasets: []string{"GunPoint"}, Folds: []int{1}, Seeds: []int64{42}, Settings: tinySettings}
	a, b := mustGrid(t, spec), mustGrid(t, spec)
	if fmt.Sprint(a.Keys()) != fmt.Sprint(b.Keys()) || a.ID() != b.ID() {
		t.Error("the same grid spec gives different keys")
	}
	spec.Settings += ";dropout=0.2"
	c := mustGrid(t, spec)
	if c.Keys()[0].Hash == a.Keys()[0].Hash || c.ID() == a.ID() {
		t.Error("a setting change keeps the keys")
	}
	if k := a.Keys()[0]; k.RelPath() != "depth_L/GunPoint/l-1/fold1-seed42-"+k.Hash+".json" {
		t.Errorf("record path %s", k.RelPath())
	}
}

// TestSlugsUnique: every variant gets its own folder name.
func TestSlugsUnique(t *testing.T) {
	seen := map[string]string{}
	for _, v := range ablations.All() {
		s := Slug(v.Name)
		if prev, ok := seen[s]; ok {
			t.Errorf("%q and %q share the slug %q", prev, v.Name, s)
		}
		seen[s] = v.Name
	}
	for in, want := range map[string]string{"w/o Intra & Inter": "w-o-intra-and-inter", "30%": "30pct", "q=m": "q-m",
		"lambda = 0.0001": "lambda-0.0001", "hatC=C/2": "hatc-c-2", "m=0.1T": "m-0.1t", "MoE expert: TSLANet (ICB)": "moe-expert-tslanet-icb"} {
		if got := Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
}
