package paper_test

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/softshape-go/softshape/paper"
)

func TestNames(t *testing.T) {
	want := []string{
		"main", "ablation", "lightts_shapeformer", "sparse_ratio", "experts_k", "stride_q", "depth_L",
		"shape_length_m", "num_experts", "moe_expert_network", "shared_expert_network", "lambda",
		"params_inference_time",
	}
	if got := paper.Names(); !reflect.DeepEqual(got, want) {
		t.Errorf("Names() = %v, want %v", got, want)
	}
	if got := paper.SummaryNames(); len(got) != len(want) {
		t.Errorf("SummaryNames() = %v", got)
	}
	if got := paper.PerDatasetNames(); !reflect.DeepEqual(got, want[:8]) {
		t.Errorf("PerDatasetNames() = %v", got)
	}
}

func TestPerDatasetShapes(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		name       string
		rows       int
		methods    []string
		ref, def   string
		parameter  string
		values     []float64
		firstValue float64 // Acc[0][0]
	}{
		{"main", 128, []string{"FCN", "T-Loss", "SelfTime", "TS-TCC", "TST", "TS2Vec", "TimesNet", "PatchTST", "GPT4TS",
			"RDST", "MR-H", "InceptionTime", "ShapeConv", "ModernTCN", "TSLANet", "UniTS", "Medformer", "SoftShape"},
			"SoftShape", "SoftShape", "", nil, 0.6250},
		{"ablation", 128, []string{"SoftShape", "w/o Soft Sparse", "w/o Intra", "w/o Inter", "w/o Intra & Inter", "with Linear Shape"},
			"SoftShape", "SoftShape", "", nil, 0.9100},
		{"lightts_shapeformer", 18, []string{"LightTS", "Shapeformer", "SoftShape"}, "SoftShape", "SoftShape", "", nil, 0.9480},
		{"sparse_ratio", 18, []string{"0%", "10%", "30%", "50%", "70%", "90%"}, "0%", "50%", "sparse_ratio",
			[]float64{0, 0.1, 0.3, 0.5, 0.7, 0.9}, 0.9576},
		{"experts_k", 18, []string{"k=1", "k=2", "k=3", "k=4"}, "k=1", "k=1", "k", []float64{1, 2, 3, 4}, 0.9435},
		{"stride_q", 18, []string{"q=1", "q=2", "q=3", "q=4", "q=m"}, "q=4", "q=4", "q", []float64{1, 2, 3, 4, nan}, 0.8913},
		{"depth_L", 18, []string{"L=1", "L=2", "L=3", "L=4", "L=5", "L=6"}, "L=2", "L=2", "L", []float64{1, 2, 3, 4, 5, 6}, 0.9437},
		{"shape_length_m", 18, []string{"Val-Select", "Fixed-8", "Multi-Seq"}, "Multi-Seq", "Val-Select", "m",
			[]float64{nan, 8, nan}, 0.9435},
	}
	main, err := paper.PerDataset("main")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tb, err := paper.PerDataset(c.name)
			if err != nil {
				t.Fatal(err)
			}
			if len(tb.Datasets) != c.rows || len(tb.Acc) != c.rows || !reflect.DeepEqual(tb.Methods, c.methods) {
				t.Fatalf("shape %d x %v", len(tb.Acc), tb.Methods)
			}
			if tb.Name != c.name || tb.Title == "" || tb.Caption == "" {
				t.Errorf("name %q title %q caption %q", tb.Name, tb.Title, tb.Caption)
			}
			if tb.Reference != c.ref || tb.Default != c.def || tb.Parameter != c.parameter {
				t.Errorf("reference %q default %q parameter %q", tb.Reference, tb.Default, tb.Parameter)
			}
			if len(tb.Values) != len(c.values) {
				t.Fatalf("values %v, want %v", tb.Values, c.values)
			}
			for j, v := range c.values {
				got, ok := tb.Value(tb.Methods[j])
				if math.IsNaN(v) {
					if ok || !math.IsNaN(tb.Values[j]) {
						t.Errorf("value of %s = %v, want NaN", tb.Methods[j], got)
					}
				} else if !ok || got != v {
					t.Errorf("value of %s = %v, want %v", tb.Methods[j], got, v)
				}
			}
			if tb.Acc[0][0] != c.firstValue {
				t.Errorf("Acc[0][0] = %v, want %v", tb.Acc[0][0], c.firstValue)
			}
			for i, row := range tb.Acc {
				for j, v := range row {
					if !(v >= 0 && v <= 1) {
						t.Errorf("%s/%s accuracy %v outside [0, 1]", tb.Datasets[i], tb.Methods[j], v)
					}
				}
			}
			// The default column is the main table's SoftShape on these datasets.
			def, err := tb.Column(tb.Default)
			if err != nil {
				t.Fatal(err)
			}
			want, err := main.Subset(tb.Datasets).Column("SoftShape")
			if err != nil {
				t.Fatal(err)
			}
			// The 18-dataset tables were printed with two SoftShape accuracies
			// that differ from Table 1: EOGVerticalSignal 0.9007 (0.8814 in
			// Table 1) and WordSynonyms 0.9161 (0.9175).
			if c.rows == 18 {
				knownDiff := map[string][2]float64{"EOGVerticalSignal": {0.9007, 0.8814}, "WordSynonyms": {0.9161, 0.9175}}
				for i, d := range tb.Datasets {
					if k, ok := knownDiff[d]; ok {
						if def[i] != k[0] || want[i] != k[1] {
							t.Errorf("%s: default %v main %v, want %v", d, def[i], want[i], k)
						}
						def[i] = want[i]
					}
				}
			}
			if !reflect.DeepEqual(def, want) {
				t.Errorf("default column %q differs from the main table's SoftShape:\n%v\n%v", tb.Default, def, want)
			}
		})
	}
	if _, err := paper.PerDataset("lambda"); !errors.Is(err, paper.ErrUnknownTable) {
		t.Errorf("PerDataset(lambda): %v", err)
	}
}

func TestTableHelpers(t *testing.T) {
	tb, err := paper.PerDataset("experts_k")
	if err != nil {
		t.Fatal(err)
	}
	sub := tb.Subset([]string{"Trace", "NoSuchDataset", "ArrowHead", "Trace"})
	if !reflect.DeepEqual(sub.Datasets, []string{"Trace", "ArrowHead"}) || len(sub.Acc) != 2 {
		t.Fatalf("subset %v", sub.Datasets)
	}
	if sub.Acc[1][0] != 0.9435 || sub.Acc[0][3] != 1 {
		t.Errorf("subset rows %v", sub.Acc)
	}
	sub.Acc[1][0] = 0
	sub.Methods[0] = "changed"
	if tb.Acc[0][0] != 0.9435 || tb.Methods[0] != "k=1" {
		t.Error("Subset shares memory with the table")
	}
	cl := tb.Clone()
	cl.Acc[0][0] = 0
	if tb.Acc[0][0] != 0.9435 {
		t.Error("Clone shares memory with the table")
	}
	col, err := tb.Column("k=2")
	if err != nil || len(col) != 18 || col[0] != 0.9324 {
		t.Errorf("Column(k=2) = %v, %v", col, err)
	}
	if _, err := tb.Column("k=9"); !errors.Is(err, paper.ErrUnknownMethod) {
		t.Errorf("Column(k=9): %v", err)
	}
	if tb.Index("k=4") != 3 || tb.Index("x") != -1 {
		t.Error("Index")
	}
	// Each call returns a fresh copy.
	again, _ := paper.PerDataset("experts_k")
	tb.Acc[0][0] = 0
	if again.Acc[0][0] != 0.9435 {
		t.Error("PerDataset returns shared data")
	}
}

func TestSummaries(t *testing.T) {
	for _, name := range paper.SummaryNames() {
		s, err := paper.Summary(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(s.Methods) == 0 || len(s.Metrics) == 0 || s.Title == "" {
			t.Errorf("%s: empty summary %+v", name, s)
		}
		for _, m := range s.Metrics {
			if len(s.Rows[m]) != len(s.Methods) {
				t.Errorf("%s: row %q has %d values for %d methods", name, m, len(s.Rows[m]), len(s.Methods))
			}
		}
	}
	// Summary methods agree with the per-dataset methods.
	for _, name := range paper.PerDatasetNames() {
		tb, _ := paper.PerDataset(name)
		s, _ := paper.Summary(name)
		for _, m := range s.Methods {
			if tb.Index(m) < 0 {
				t.Errorf("%s: summary method %q not in the per-dataset table", name, m)
			}
		}
		if len(s.Methods) != len(tb.Methods) {
			t.Errorf("%s: %d summary methods, %d table methods", name, len(s.Methods), len(tb.Methods))
		}
	}

	main, err := paper.Summary("main")
	if err != nil {
		t.Fatal(err)
	}
	type check struct {
		what      string
		got, want any
	}
	cases := []check{
		{"main SoftShape acc", get(main.AvgAcc("SoftShape")), 0.9334},
		{"main TSLANet rank", get(main.AvgRank("TSLANet")), 3.68},
		{"main TSLANet win", getInt(main.Win("TSLANet")), 31},
		{"main FCN p", get(main.PValue("FCN")), 1.43e-12},
		{"main reference", main.Reference, "SoftShape"},
		{"main group", main.Groups[main.Index("Medformer")], "DL-Trans"},
	}
	if _, ok := main.PValue("SoftShape"); ok {
		t.Error("reference has a p-value")
	}
	abl, _ := paper.Summary("ablation")
	cases = append(cases, []check{
		{"ablation SoftShape (Ours) renamed", getInt(abl.Win("SoftShape")), 60},
		{"ablation reference", abl.Reference, "SoftShape"},
	}...)
	sr, _ := paper.Summary("sparse_ratio")
	cases = append(cases, []check{
		{"sparse reference", sr.Reference, "0%"},
		{"sparse 90% p", get(sr.PValue("90%")), 4.02e-4},
	}...)
	q, _ := paper.Summary("stride_q")
	l, _ := paper.Summary("depth_L")
	k, _ := paper.Summary("experts_k")
	m, _ := paper.Summary("shape_length_m")
	lt, _ := paper.Summary("lightts_shapeformer")
	lam, _ := paper.Summary("lambda")
	pit, _ := paper.Summary("params_inference_time")
	shared, _ := paper.Summary("shared_expert_network")
	cases = append(cases, []check{
		{"q=3 printed win (appendix)", getInt(q.Win("q=3")), 5},
		{"q=4 rank (main text)", get(q.AvgRank("q=4")), 1.78},
		{"q=m acc (appendix)", get(q.AvgAcc("q=m")), 0.9240},
		{"L=6 printed win (appendix)", getInt(l.Win("L=6")), 4},
		{"k=1 win (appendix)", getInt(k.Win("k=1")), 10},
		{"m reference", m.Reference, "Multi-Seq"},
		{"m Fixed-8 p", get(m.PValue("Fixed-8")), 4.68e-2},
		{"m Multi-Seq win (appendix)", getInt(m.Win("Multi-Seq")), 11},
		{"lightts methods", lt.Methods, []string{"LightTS", "Shapeformer", "SoftShape"}},
		{"lightts p", get(lt.PValue("Shapeformer")), 9.80e-6},
		{"lightts reference", lt.Reference, "SoftShape"},
		{"lambda", get(lam.AvgRank("λ = 0.001")), 2.50},
		{"lambda columns, in the paper's notation", lam.Methods, []string{"λ = 0.0001", "λ = 0.001", "λ = 0.01", "λ = 0.1", "λ = 1", "λ = 10", "λ = 100"}},
		{"params SoftShape", str(pit.Value(paper.MetricParams, "SoftShape")), "472.5 K"},
		{"params MR-H absent", str(pit.Value(paper.MetricParams, "MR-H")), "-"},
		{"inference HouseTwenty", get(pit.Float(paper.MetricInferencePrefix+"HouseTwenty", "SoftShape")), 1.26},
		{"shared params", str(shared.Value(paper.MetricParams, "MLP")), "157.8 K"},
	}...)
	for _, c := range cases {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s: got %v, want %v", c.what, c.got, c.want)
		}
	}
	if _, err := paper.Summary("nope"); !errors.Is(err, paper.ErrUnknownTable) {
		t.Errorf("Summary(nope): %v", err)
	}
}

// get drops the ok flag of a float accessor, mapping absence to NaN.
func get(v float64, ok bool) float64 {
	if !ok {
		return math.NaN()
	}
	return v
}

// getInt drops the ok flag of an int accessor, mapping absence to -1.
func getInt(v int, ok bool) int {
	if !ok {
		return -1
	}
	return v
}

// str drops the ok flag of a string accessor.
func str(v string, _ bool) string { return v }

// TestNotation: the ASCII spellings of the CSVs and variant names become the
// paper's symbols, in labels and in the summaries read from the CSVs; other
// labels are left alone.
func TestNotation(t *testing.T) {
	for in, want := range map[string]string{
		"hatC=C/2": "Ĉ=C/2", "hatC=2C": "Ĉ=2C", "lambda = 0.001": "λ = 0.001", "lambda = 100": "λ = 100",
		"k=2": "k=2", "50%": "50%", "SoftShape": "SoftShape", "Original MoE expert": "Original MoE expert", "xhatC=C": "xhatC=C",
	} {
		if got := paper.Notation(in); got != want {
			t.Errorf("Notation(%q) = %q, want %q", in, got, want)
		}
	}
	s, err := paper.Summary("num_experts")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s.Methods, []string{"Ĉ=C/2", "Ĉ=C", "Ĉ=2C"}) || !strings.Contains(s.Title, "experts Ĉ on") {
		t.Errorf("num_experts summary: columns %q, title %q; want the paper's Ĉ", s.Methods, s.Title)
	}
	if v, _ := s.Value(paper.MetricAvgAcc, "Ĉ=C"); v != "0.9453" {
		t.Errorf("num_experts Avg. Acc of Ĉ=C: %q, want the printed 0.9453", v)
	}
}
