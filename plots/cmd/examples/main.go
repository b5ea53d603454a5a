// Command examples regenerates one example PNG of each figure type of
// package plots, from deterministic synthetic inputs (and a real GunPoint
// series for the attention map when the UCR archive is found), for
// docs/usage.md ("Figures"):
//
//	go run ./plots/cmd/examples -out docs/img
//
// Flags: -out sets the output folder, -ucr the folder holding the UCR
// archive (GunPoint/GunPoint_TRAIN.tsv; a synthetic series is used when it is
// missing), -dpi the PNG resolution.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/softshape-go/softshape/plots"
	"github.com/softshape-go/softshape/plots/tsne"
)

func main() {
	out := flag.String("out", "docs/img", "output folder for the PNG files")
	ucr := flag.String("ucr", defaultUCR(), "UCR archive folder (for GunPoint); empty or missing: synthetic series")
	dpi := flag.Int("dpi", plots.DefaultDPI, "PNG resolution in dots per inch")
	flag.Parse()
	if err := run(*out, *ucr, *dpi); err != nil {
		log.Fatal(err)
	}
}

// defaultUCR returns $SOFTSHAPE_SHARED/ucr, or ../shared/ucr (beside the
// checkout, run from the repository root) when it exists.
func defaultUCR() string {
	if d := os.Getenv("SOFTSHAPE_SHARED"); d != "" {
		return filepath.Join(d, "ucr")
	}
	if _, err := os.Stat(filepath.Join("..", "shared", "ucr")); err == nil {
		return filepath.Join("..", "shared", "ucr")
	}
	return ""
}

// example is one figure to write.
type example struct {
	name string
	make func() (*plots.Figure, error)
}

func run(out, ucr string, dpi int) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("examples: %w", err)
	}
	synthetic := "synthetic example data"
	examples := []example{
		{"sweep_sparse_ratio", func() (*plots.Figure, error) { return sweepSparse(synthetic) }},
		{"sweep_step_q", func() (*plots.Figure, error) { return sweepStep(synthetic) }},
		{"rank_bars", func() (*plots.Figure, error) { return rankBars(synthetic) }},
		{"cd_diagram", func() (*plots.Figure, error) { return cdDiagram(synthetic) }},
		{"attention_map", func() (*plots.Figure, error) { return attention(ucr) }},
		{"tsne_panels", func() (*plots.Figure, error) { return tsnePanels(synthetic) }},
		{"running_time", func() (*plots.Figure, error) { return runningTime(synthetic) }},
		{"training_curves", func() (*plots.Figure, error) { return curves() }},
	}
	for _, ex := range examples {
		f, err := ex.make()
		if err != nil {
			return fmt.Errorf("examples: %s: %w", ex.name, err)
		}
		f.SetDPI(dpi)
		w, h := f.Size()
		path := filepath.Join(out, ex.name+".png")
		if err := f.Save(path, w, h); err != nil {
			return fmt.Errorf("examples: %s: %w", ex.name, err)
		}
		fmt.Println(path)
	}
	return nil
}

// sweepSparse is a sparse-ratio sweep over four datasets with paper values.
func sweepSparse(cfg string) (*plots.Figure, error) {
	ratios := []float64{0, 10, 30, 50, 70, 90}
	names := []string{"ArrowHead", "BME", "CBF", "ECG200"}
	base := []float64{0.86, 0.98, 0.99, 0.90}
	var ours, paper []plots.SweepSeries
	avg := plots.SweepAverage{Label: "average (ours)", X: ratios, Y: make([]float64, len(ratios)), SE: make([]float64, len(ratios))}
	for i, n := range names {
		y := make([]float64, len(ratios))
		yp := make([]float64, len(ratios))
		se := make([]float64, len(ratios))
		for j, r := range ratios {
			drop := 0.0
			if r > 50 {
				drop = 0.0009 * (r - 50) * float64(i+1)
			}
			y[j] = base[i] - drop + 0.004*math.Sin(float64(3*i+j))
			yp[j] = base[i] + 0.01 - 0.8*drop
			se[j] = 0.005 + 0.002*float64(i)
			avg.Y[j] += y[j] / float64(len(names))
			avg.SE[j] += se[j] / float64(len(names)) // demo data: a plausible band
		}
		ours = append(ours, plots.SweepSeries{Label: n, X: ratios, Y: y, SE: se})
		paper = append(paper, plots.SweepSeries{Label: n, X: ratios, Y: yp})
	}
	meta := plots.Meta{Title: "Accuracy vs sparse ratio", Config: "4 UCR datasets; " + cfg}
	return plots.SweepChart(meta, "Sparse ratio 1−η (%)", nil, ours, paper, plots.WithAverage(avg))
}

// sweepStep is a sliding-step sweep with categorical ticks over eighteen
// datasets (per-dataset lines grey).
func sweepStep(cfg string) (*plots.Figure, error) {
	xs := []float64{1, 2, 3, 4, 5}
	ticks := []string{"q=1", "q=2", "q=3", "q=4", "q=m"}
	rng := rand.New(rand.NewPCG(1, 2))
	var ours []plots.SweepSeries
	for d := 0; d < 18; d++ {
		b := 0.7 + 0.3*rng.Float64()
		y := make([]float64, len(xs))
		for j := range xs {
			y[j] = math.Min(1, b+0.01*float64(j)-0.02*math.Max(0, float64(j-3))+0.01*rng.NormFloat64())
		}
		ours = append(ours, plots.SweepSeries{Label: fmt.Sprintf("D%02d", d+1), X: xs, Y: y})
	}
	meta := plots.Meta{Title: "Accuracy vs sliding step", Config: "18 UCR datasets; " + cfg, Quick: true}
	return plots.SweepChart(meta, "Sliding step q", ticks, ours, nil)
}

// rankBars compares average ranks with the paper's Table (sliding step q).
func rankBars(cfg string) (*plots.Figure, error) {
	methods := []string{"q=1", "q=2", "q=3", "q=4", "q=m"}
	paper := []float64{3.83, 2.78, 2.44, 1.78, 2.94}
	ours := []float64{3.61, 2.94, 2.50, 2.06, 2.89}
	meta := plots.Meta{Title: "Average rank by sliding step", Config: "18 UCR datasets; " + cfg}
	return plots.RankBars(meta, methods, ours, paper)
}

// cdDiagram draws the 18 methods of the paper with synthetic ranks.
func cdDiagram(cfg string) (*plots.Figure, error) {
	methods := []string{"FCN", "T-Loss", "SelfTime", "TS-TCC", "TST", "TS2Vec", "TimesNet", "PatchTST", "GPT4TS",
		"RDST", "MR-H", "InceptionTime", "ShapeConv", "ModernTCN", "TSLANet", "UniTS", "Medformer", "SoftShape"}
	ranks := []float64{8.9, 10.8, 13.9, 10.2, 15.6, 7.4, 14.1, 12.8, 13.0, 5.9, 4.1, 5.2, 9.6, 9.9, 7.7, 12.1, 11.3, 3.6}
	// Cliques: methods within 3 rank units of each other, in rank order.
	order := make([]int, len(ranks))
	for i := range order {
		order[i] = i
	}
	for i := 1; i < len(order); i++ {
		for j := i; j > 0 && ranks[order[j]] < ranks[order[j-1]]; j-- {
			order[j], order[j-1] = order[j-1], order[j]
		}
	}
	var cliques [][]int
	for a := 0; a < len(order); a++ {
		cl := []int{order[a]}
		for b := a + 1; b < len(order) && ranks[order[b]]-ranks[order[a]] < 3; b++ {
			cl = append(cl, order[b])
		}
		cliques = append(cliques, cl)
	}
	meta := plots.Meta{Title: "Critical difference diagram", Config: "128 UCR datasets; " + cfg}
	return plots.CDDiagram(meta, methods, ranks, cliques, plots.WithCriticalDifference(3))
}

// attention colours a GunPoint series (or a synthetic one) with synthetic
// shape scores peaking on the gesture.
func attention(ucr string) (*plots.Figure, error) {
	series, dataset := gunPoint(ucr)
	m, q := 16, 4
	nShapes := (len(series)-m)/q + 1
	scores := make([]float64, nShapes)
	for j := range scores {
		c := float64(j*q+m/2) / float64(len(series))
		scores[j] = math.Exp(-math.Pow((c-0.35)/0.08, 2)) + 0.7*math.Exp(-math.Pow((c-0.7)/0.06, 2)) + 0.05*math.Sin(float64(j))
	}
	meta := plots.Meta{Title: "MIL attention", Dataset: dataset, Config: "synthetic scores, m=16, q=4"}
	return plots.AttentionMap(meta, series, scores, m, q)
}

// gunPoint reads the first series of GunPoint_TRAIN.tsv (class label first,
// then tab-separated values), or returns a synthetic series.
func gunPoint(ucr string) ([]float64, string) {
	if ucr != "" {
		if s, label, err := readFirstSeries(filepath.Join(ucr, "GunPoint", "GunPoint_TRAIN.tsv")); err == nil {
			return s, "GunPoint train #0 (class " + label + ")"
		}
	}
	s := make([]float64, 150)
	for t := range s {
		x := float64(t) / 150
		s[t] = math.Exp(-math.Pow((x-0.45)/0.15, 2)) - 0.5
	}
	return s, "synthetic series"
}

// readFirstSeries reads the first line of a UCR TSV file.
func readFirstSeries(path string) ([]float64, string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	if !sc.Scan() {
		return nil, "", fmt.Errorf("%s: empty", path)
	}
	fields := strings.Split(strings.TrimSpace(sc.Text()), "\t")
	if len(fields) < 2 {
		return nil, "", fmt.Errorf("%s: short line", path)
	}
	vals := make([]float64, 0, len(fields)-1)
	for _, s := range fields[1:] {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, "", fmt.Errorf("%s: %w", path, err)
		}
		vals = append(vals, v)
	}
	return vals, fields[0], nil
}

// tsnePanels embeds synthetic 3-class data at four "stages" of increasing
// class separation.
func tsnePanels(cfg string) (*plots.Figure, error) {
	titles := []string{"(a) Input shapes", "(b) Intra-shape", "(c) Inter-shape", "(d) Output"}
	seps := []float64{0.4, 1.2, 2.0, 3.5}
	var panels []plots.Scatter2D
	for s, sep := range seps {
		rng := rand.New(rand.NewPCG(11, 3))
		var x [][]float64
		var cls []int
		centres := [3][8]float64{}
		for c := range centres {
			for j := range centres[c] {
				centres[c][j] = rng.NormFloat64()
			}
		}
		for c := 0; c < 3; c++ {
			for i := 0; i < 60; i++ {
				row := make([]float64, 8)
				for j := range row {
					row[j] = sep*centres[c][j] + rng.NormFloat64()
				}
				x = append(x, row)
				cls = append(cls, c+1)
			}
		}
		y, err := tsne.Embed(x, tsne.Options{Perplexity: 30, Seed: 1})
		if err != nil {
			return nil, err
		}
		p := plots.Scatter2D{Title: titles[s], Class: cls}
		for _, v := range y {
			p.X = append(p.X, v[0])
			p.Y = append(p.Y, v[1])
		}
		panels = append(panels, p)
	}
	names := []string{"", "Cylinder", "Bell", "Funnel"}
	meta := plots.Meta{Title: "t-SNE of shape embeddings", Dataset: "CBF-like 3 classes", Config: cfg}
	return plots.ScatterPanels(meta, panels, names)
}

// runningTime is a synthetic running-time curve per sparse ratio.
func runningTime(cfg string) (*plots.Figure, error) {
	lengths := []float64{166, 1660, 4980, 8300, 11620, 16600}
	series := map[string][]float64{}
	for _, r := range []float64{0, 10, 50, 90} {
		ys := make([]float64, len(lengths))
		for i, l := range lengths {
			ys[i] = 20 + (1-r/100)*0.05*l + 0.01*l
		}
		series[fmt.Sprintf("sparse %g%%", r)] = ys
	}
	series["sparse 90%"][len(lengths)-1] = math.NaN() // not measured
	meta := plots.Meta{Title: "Running time vs sequence length", Dataset: "ChlorineConcentration (concatenated)", Config: cfg}
	return plots.RunningTime(meta, lengths, series)
}

// curves is a synthetic training run with a warm-up of 10 epochs.
func curves() (*plots.Figure, error) {
	n := 60
	var c plots.Curves
	for e := 1; e <= n; e++ {
		x := float64(e)
		c.TrainLoss = append(c.TrainLoss, 1.2*math.Exp(-x/12)+0.05)
		c.ValLoss = append(c.ValLoss, 1.2*math.Exp(-x/14)+0.12+0.002*math.Max(0, x-40))
		c.TrainAcc = append(c.TrainAcc, 1-0.6*math.Exp(-x/10))
		c.ValAcc = append(c.ValAcc, 0.95-0.6*math.Exp(-x/12)-0.001*math.Max(0, x-40))
	}
	c.WarmUp = 10
	meta := plots.Meta{Title: "Training curves", Dataset: "GunPoint", Config: "synthetic, seed 0", Quick: true}
	return plots.TrainingCurves(meta, c)
}
