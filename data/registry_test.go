package data

import (
	"slices"
	"testing"
)

func TestRegistry(t *testing.T) {
	infos := Registry()
	if len(infos) != 128 {
		t.Fatalf("%d datasets, want 128", len(infos))
	}
	seen := map[string]bool{}
	variable := 0
	for i, info := range infos {
		if info.ID != i+1 {
			t.Errorf("%s: id %d, want %d", info.Name, info.ID, i+1)
		}
		if seen[info.Name] {
			t.Errorf("%s listed twice", info.Name)
		}
		seen[info.Name] = true
		if info.Train < 1 || info.Test < 1 || info.Classes < 2 || info.RefShapeLength < 1 {
			t.Errorf("%+v: implausible entry", info)
		}
		if info.VariableLength {
			variable++
			if info.Length != 0 {
				t.Errorf("%s: variable length with Length %d", info.Name, info.Length)
			}
		} else if info.RefShapeLength > info.Length {
			t.Errorf("%s: m = %d longer than the series (%d)", info.Name, info.RefShapeLength, info.Length)
		}
	}
	if variable != 11 {
		t.Errorf("%d variable-length datasets, want 11", variable)
	}
	// The returned slice is a copy.
	infos[0].Name = "changed"
	if Registry()[0].Name != "ACSF1" {
		t.Error("Registry() exposes its internal slice")
	}
}

// TestShapeLengths checks the shape length table against the reference
// notes: 34 ratio entries (18 at 0.1, 16 at 0.8) and the fixed m counts.
func TestShapeLengths(t *testing.T) {
	ratios := map[float64]int{}
	fixed := map[int]int{}
	for _, info := range Registry() {
		if info.ShapeUseRatio {
			ratios[info.ShapeRatio]++
		} else {
			fixed[info.ShapeM]++
		}
	}
	if ratios[0.1] != 18 || ratios[0.8] != 16 || len(ratios) != 2 {
		t.Errorf("ratio entries %v, want 18 at 0.1 and 16 at 0.8", ratios)
	}
	wantFixed := map[int]int{4: 13, 8: 9, 16: 18, 24: 8, 32: 13, 48: 13, 64: 20}
	for m, n := range wantFixed {
		if fixed[m] != n {
			t.Errorf("m = %d for %d datasets, want %d", m, fixed[m], n)
		}
	}
	for _, tc := range []struct {
		name string
		m    int
	}{
		{"ACSF1", 64},              // fixed
		{"Adiac", 17},              // int(0.1·176)
		{"Beef", 376},              // int(0.8·470)
		{"CricketX", 30},           // int(0.1·300)
		{"Trace", 220},             // int(0.8·275)
		{"GunPoint", 32},           // fixed
		{"GesturePebbleZ1", 24},    // variable, fixed m
		{"AllGestureWiimoteX", 16}, // variable with ratio: the m column
		{"MelbournePedestrian", 8},
	} {
		info, err := Lookup(tc.name)
		if err != nil {
			t.Fatal(err)
		}
		if info.RefShapeLength != tc.m {
			t.Errorf("%s: m = %d, want %d", tc.name, info.RefShapeLength, tc.m)
		}
	}
	wx, _ := Lookup("AllGestureWiimoteX")
	if m := wx.ShapeLengthFor(500); m != 50 {
		t.Errorf("AllGestureWiimoteX at T=500: m = %d, want int(0.1·500) = 50", m)
	}
	gp, _ := Lookup("GunPoint")
	if m := gp.ShapeLengthFor(1000); m != 32 {
		t.Errorf("GunPoint m at any T = %d, want 32", m)
	}
	if !wx.ShapeUseRatio || wx.ShapeRatio != 0.1 {
		t.Errorf("AllGestureWiimoteX: use ratio %v, ratio %v", wx.ShapeUseRatio, wx.ShapeRatio)
	}
}

func TestLookup(t *testing.T) {
	info, err := Lookup("EOGVerticalSignal")
	if err != nil {
		t.Fatal(err)
	}
	if info.Train != 362 || info.Test != 362 || info.Classes != 12 || info.Length != 1250 || info.Total() != 724 {
		t.Errorf("%+v", info)
	}
	_, err = Lookup("GunPiont")
	wantError(t, err, `unknown dataset "GunPiont"`, "did you mean GunPoint")
	_, err = Lookup("gunpoint")
	wantError(t, err, `"gunpoint"`, "GunPoint")
	_, err = Lookup("Cricket")
	wantError(t, err, "CricketX", "CricketY", "CricketZ")
	_, err = Lookup("Zzzzzzzzzzzzzz")
	wantError(t, err, "not one of the paper's 128")
}

func TestParseRegistryErrors(t *testing.T) {
	const shapes = "dataset,use_ratio,ratio,m\nA,0,0.1,8\n"
	for _, tc := range []struct {
		name, datasets, shapes string
		want                   []string
	}{
		{"bad header", "x\n", shapes, []string{"ucr128_datasets.csv"}},
		{"bad total", "id,dataset,train,test,total,classes,length\n1,A,1,2,4,2,10\n", shapes, []string{":2", "!= total"}},
		{"bad length", "id,dataset,train,test,total,classes,length\n1,A,1,2,3,2,ten\n", shapes, []string{"length"}},
		{"no shape row", "id,dataset,train,test,total,classes,length\n1,B,1,2,3,2,10\n", shapes, []string{"no row for B"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseRegistry(tc.datasets, tc.shapes)
			wantError(t, err, tc.want...)
		})
	}
}

// TestNoRatioShapeLengthAtMostFour checks what softshape's stride "auto"
// relies on: the authors' code takes q = min(2, m) only for a shape length
// from the ratio column with m ≤ 4, and no fixed-length dataset of their table
// has one (the three variable-length ratio datasets are padded to at least
// 360 points, m ≥ 36), so a registry m can be taken as fixed. It also pins the
// 13 datasets whose fixed m is 4, where that rule changed the stride.
func TestNoRatioShapeLengthAtMostFour(t *testing.T) {
	var fixedFour []string
	for _, info := range Registry() {
		if info.ShapeUseRatio && info.Length > 0 && info.ShapeLengthFor(info.Length) <= 4 {
			t.Errorf("%s: ratio %g of T=%d gives m=%d ≤ 4: stride auto would take min(2, m) there",
				info.Name, info.ShapeRatio, info.Length, info.ShapeLengthFor(info.Length))
		}
		if !info.ShapeUseRatio && info.ShapeM <= 4 {
			fixedFour = append(fixedFour, info.Name)
		}
	}
	if len(fixedFour) != 13 || !slices.Contains(fixedFour, "ItalyPowerDemand") {
		t.Errorf("datasets with a fixed m ≤ 4: %v, want the 13 with m = 4 (ItalyPowerDemand among them)", fixedFour)
	}
}
