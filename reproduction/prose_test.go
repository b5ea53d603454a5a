package reproduction

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/softshape-go/softshape/ablations"
	"github.com/softshape-go/softshape/data"
	"github.com/softshape-go/softshape/experiments/sweep"
	"github.com/softshape-go/softshape/paper"
	"github.com/softshape-go/softshape/softshape"
)

// proseFact is a number the prose of docs/reproduction.md states that the
// generated blocks do not hold: a setting of the protocol, checked here, or
// a measurement of how the runs were made (the appendix), which no record
// holds. check is nil for those; source says where the number comes from.
type proseFact struct {
	text   string
	source string
	check  func() error
}

var proseFacts = []proseFact{
	{text: "500 epochs, 150", source: "softshape.DefaultConfig", check: func() error {
		if c := softshape.DefaultConfig(); c.Epochs != 500 || c.WarmUpEpochs != 150 {
			return fmt.Errorf("the default schedule is %d epochs, %d warm-up", c.Epochs, c.WarmUpEpochs)
		}
		return nil
	}},
	{text: "Over 500 epochs", source: "softshape.DefaultConfig", check: func() error {
		if e := softshape.DefaultConfig().Epochs; e != 500 {
			return fmt.Errorf("the default schedule is %d epochs", e)
		}
		return nil
	}},
	{text: "5 stratified folds with 60/20/20 splits", source: "sweep.NumFolds: a fifth for test, a quarter of the rest for validation", check: func() error {
		if sweep.NumFolds != 5 {
			return fmt.Errorf("the protocol has %d folds", sweep.NumFolds)
		}
		return nil
	}},
	{text: "learning rate 1e-3", source: "softshape.DefaultConfig", check: func() error {
		if lr := softshape.DefaultConfig().LearningRate; lr != 1e-3 {
			return fmt.Errorf("the default learning rate is %g", lr)
		}
		return nil
	}},
	{text: "+9.75 pp on ECG200", source: "docs/fidelity.md", check: func() error {
		b, err := os.ReadFile(filepath.Join("..", "docs", "fidelity.md"))
		if err == nil && !strings.Contains(string(b), "+9.75 pp") {
			err = fmt.Errorf("docs/fidelity.md does not say +9.75 pp")
		}
		return err
	}},
	{text: "ItalyPowerDemand L = 6 fold 3 (451 s", source: "its record", check: func() error {
		r, err := readRecord("reference_compat", "depth_L", "ItalyPowerDemand", "l-6", 3)
		if err == nil && math.Round(float64(r.WallSeconds)) != 451 {
			err = fmt.Errorf("its wall time is %.0f s", float64(r.WallSeconds))
		}
		return err
	}},
	{text: "L = 275), so q = m leaves one shape", source: "the dataset registry and softshape.Config.Resolve", check: func() error {
		return checkShapes("Trace", 275, softshape.StrideShapeLength, 220, 1)
	}},
	{text: "(at q = 4 the same m gives 14 overlapping shapes)", source: "softshape.Config.Resolve", check: func() error {
		return checkShapes("Trace", 275, "4", 220, 14)
	}},
	{text: "the 13 datasets whose table fixes m = 4", source: "data/reference_shape_length_m.csv", check: func() error {
		n := 0
		for _, info := range data.Registry() {
			if !info.ShapeUseRatio && info.ShapeM == 4 {
				n++
			}
		}
		if n != 13 {
			return fmt.Errorf("%d datasets have a fixed m = 4", n)
		}
		return nil
	}},
	{text: "(11 shapes instead of 6)", source: "softshape.Config.Resolve and softshape.LegacyAutoStride", check: func() error {
		if err := checkShapes("ItalyPowerDemand", 24, "2", 4, 11); err != nil {
			return err
		}
		if q := softshape.LegacyAutoStride(4); q != 2 {
			return fmt.Errorf("the old stride auto at m = 4 is q = %d", q)
		}
		return checkShapes("ItalyPowerDemand", 24, softshape.StrideAuto, 4, 6)
	}},
	{text: "170 runs of Tables 3, 4, 6 and 2 (5.38 h of training)", source: "the records of ItalyPowerDemand, seed 42, stride auto, trained (not reused) since the fix", check: checkRetrained},
	{text: "The 220 records at q = 2", source: "git diff --stat 37596ed of reproduction/results/*/*/ItalyPowerDemand (220 deleted)"},
	{text: "−0.16 ± 0.10 pp over 85 runs", source: "the q = 2 records at 37596ed paired with the q = 4 records (same table, variant, fold, seed 42; reused records left out)"},
	{text: "−0.14 ± 0.10 pp over 85", source: "the same pairing under reference_fresh"},
	{text: "(−0.82 ± 0.30 pp over its 5 runs)", source: "the same pairing, Table 4's k = 2 under reference_fresh"},
	{text: "of which 224 s paused", source: "the SIGSTOP and SIGCONT times: 00:15:58–00:16:55 and 00:17:19–00:20:06 UTC"},
	{text: "(the same 224 s)", source: "the same SIGSTOP and SIGCONT times"},
	{text: "warm-up epoch 9 (test accuracy 0.3810, where Fixed-8 reaches 0.9048", source: "the records of ArrowHead's fold 3 under reference_fresh", check: func() error {
		r, err := readRecord("reference_fresh", "shape_length_m", "ArrowHead", "multi-seq", 3)
		if err != nil {
			return err
		}
		if r.BestEpoch != 9 || !r.SelectedWarmUp || math.Round(float64(r.TestAccuracy)*1e4) != 3810 || r.EpochsRun != 500 {
			return fmt.Errorf("Multi-Seq: selected epoch %d (warm-up %v), test accuracy %.4f, %d epochs", r.BestEpoch, r.SelectedWarmUp, float64(r.TestAccuracy), r.EpochsRun)
		}
		if r, err = readRecord("reference_fresh", "shape_length_m", "ArrowHead", "fixed-8", 3); err == nil && math.Round(float64(r.TestAccuracy)*1e4) != 9048 {
			err = fmt.Errorf("Fixed-8: test accuracy %.4f", float64(r.TestAccuracy))
		}
		return err
	}},
	{text: "in 500 epochs never falls back below epoch 9's", source: "the same record: selected epoch 9 of 500 run (checked above)"},
	{text: "from epoch 10 on", source: "softshape train -dataset ArrowHead -set 'protocol=reference_fresh;multi_seq=8,16,32' -folds 3 -epochs 40 -warmup 40, binary 013978b, 2026-11-27 (and the same with shape_length=8)"},
	{text: "a 40-epoch rerun", source: "that rerun: selected epoch 9, validation loss 1.0489, test accuracy 0.3810, as the record"},
	{text: "Multi-Seq reaches 1.0000 there", source: "the record of ArrowHead's fold 3 under reference_compat", check: func() error {
		r, err := readRecord("reference_compat", "shape_length_m", "ArrowHead", "multi-seq", 3)
		if err == nil && float64(r.TestAccuracy) != 1 {
			err = fmt.Errorf("its test accuracy is %.4f", float64(r.TestAccuracy))
		}
		return err
	}},
	// Measured while the runs were made; no record holds these.
	{text: "12-epoch", source: "two runs of the DistalPhalanxOutlineAgeGroup fold, the command given"},
	{text: "8th–9th significant digit", source: "those two runs' validation losses"},
	{text: "one of four 30-call runs on two cores, none in 180 calls", source: "the merge measured at validation size"},
	{text: "1.40 h of training", source: "the sweeps' logs: retrained folds write no record"},
	{text: "25-minute pause", source: "the sweeps' logs"},
	{text: "2-minute one", source: "the sweeps' logs"},
	{text: "about 1.5 hours", source: "the machine's uptime and load average during those runs"},
	{text: "load average of 7–12 on the 2 cores", source: "the machine's uptime and load average during those runs"},
	{text: "nice 10 for its first 45 minutes", source: "the sweep's renice"},
	{text: "(SIGSTOP) for 13 minutes", source: "the SIGSTOP and SIGCONT times (788 s)"},
	{text: "0.09 s per epoch", source: "the sweeps' logs"},
	{text: "≈0.4 s", source: "the sweeps' logs"},
	{text: "family 25 model 1", source: "/proc/cpuinfo of that machine"},
	{text: "3–5× dearer", source: "the per-epoch times of the records"},
	{text: "60-epoch GunPoint folds", source: "a timing of one machine"},
	{text: "31.1 and 33.8 s of CPU", source: "a timing of one machine"},
	{text: "46% of the core", source: "perf"},
	{text: "1.5–2.5× slower", source: "environment.md, \"Threads\""},
	{text: "1.2–1.7 s at L = 6, against 2.8–3.7 s at L = 5", source: "the sweeps' logs"},
	{text: "53 of fixed length, 9 of variable length", source: "Table1Datasets in the data registry", check: func() error {
		variable := 0
		for _, d := range Table1Datasets {
			info, err := data.Lookup(d)
			if err != nil {
				return err
			}
			if info.VariableLength {
				variable++
			}
		}
		if variable != 9 || len(Table1Datasets)-variable != 53 {
			return fmt.Errorf("Table1Datasets has %d of fixed length, %d of variable length", len(Table1Datasets)-variable, variable)
		}
		return nil
	}},
	{text: "other 66 UCR datasets", source: "the paper's Table 1 less Table1Datasets", check: func() error {
		pt, err := paper.PerDataset(Table1)
		if err == nil && len(pt.Datasets)-len(Table1Datasets) != 66 {
			err = fmt.Errorf("the paper's Table 1 has %d datasets, the plan %d", len(pt.Datasets), len(Table1Datasets))
		}
		return err
	}},
	{text: "an NVIDIA H100, code b661c8e", source: "reproduction/manifest.json", check: func() error {
		m, err := ReadManifest("manifest.json")
		if err == nil && (!strings.Contains(m.Machine, "NVIDIA H100") || !strings.Contains(m.CodeCommit, "b661c8e (the five XLA CUDA runs)")) {
			err = fmt.Errorf("the manifest says machine %q, code %q", m.Machine, m.CodeCommit)
		}
		return err
	}},
}

// checkRetrained checks the count and training hours of ItalyPowerDemand's
// runs of seed 42 whose stride auto the fix moved (their hash is not the
// legacy ConfigStringHash: the key carries the stride mark), trained rather
// than reused.
func checkRetrained() error {
	var files []string
	for _, preset := range []string{"reference_compat", "reference_fresh"} {
		// The tables the prose counts: those trained before the fix and
		// retrained by 91da33c (the appendix's studies trained after it).
		for _, table := range []string{"sparse_ratio", "experts_k", "depth_L", "ablation"} {
			fs, _ := filepath.Glob(filepath.Join(ResultsDir(".", preset), table, "ItalyPowerDemand", "*", "fold*-seed42-*.json"))
			files = append(files, fs...)
		}
	}
	n, secs := 0, 0.0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		var r sweep.Record
		if err := json.Unmarshal(b, &r); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		legacy, err := sweep.ConfigStringHash(r.Config, r.Quick)
		if err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		if r.Status != sweep.StatusOK || r.ReusedFrom != "" || r.Hash == legacy { // a cell the fix did not move
			continue
		}
		n++
		secs += float64(r.RunWallSeconds())
	}
	if n != 170 || math.Round(secs/3600*100) != 538 {
		return fmt.Errorf("%d runs, %.2f h", n, secs/3600)
	}
	return nil
}

// checkShapes checks that the authors' shape length for dataset (series
// length seriesLen) is m and that stride gives it shapes shapes.
func checkShapes(dataset string, seriesLen int, stride softshape.Stride, m, shapes int) error {
	ref := softshape.RefShapeLength(dataset, seriesLen)
	cfg := softshape.DefaultConfig()
	cfg.Stride = stride
	s, err := cfg.Resolve(seriesLen, 4, ref)
	if err != nil {
		return err
	}
	if ref != m || s.ShapeLen != m || s.NumShapes != shapes {
		return fmt.Errorf("%s: the authors' m %d, resolved m %d, %d shapes at stride %s", dataset, ref, s.ShapeLen, s.NumShapes, stride)
	}
	return nil
}

// readRecord reads the committed record of one run of seed 42.
func readRecord(preset, table, dataset, variantDir string, fold int) (*sweep.Record, error) {
	files, _ := filepath.Glob(filepath.Join(ResultsDir(".", preset), table, dataset, variantDir, fmt.Sprintf("fold%d-seed42-*.json", fold)))
	if len(files) != 1 {
		return nil, fmt.Errorf("%s %s %s %s fold %d: %d records", preset, table, dataset, variantDir, fold, len(files))
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		return nil, err
	}
	var r sweep.Record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", files[0], err)
	}
	return &r, nil
}

// proseReferences are the numbers of the prose that name something (a
// table, notebook, fold, equation, setting, commit, date), or sit in code or
// a link, not a result.
var proseReferences = regexp.MustCompile(`(?m)` + strings.Join([]string{
	"`[^`]*`",
	`\]\([^)]*\)`,
	`\b(?:Tables?|notebooks?|Eq\.)\s+\d+(?:\s*(?:,|and|–)\s*\d+)*`,
	`\b[Ff]olds?\s+\d+(?:–\d+)?`,
	`(?:k|L|q|m|η|Ĉ)\s*(?:=|≥|≤|>|<)\s*\d+%?(?:\s*(?:,|and)\s*\d+%?)*`,
	`\b\d{4}-\d{2}-\d{2}\b`,
	`1−η`,
}, "|"))

// commit matches what may be an abbreviated commit: seven or more hex
// digits, a reference when one of them is a letter.
var commit = regexp.MustCompile(`\b[0-9a-f]{7,40}\b`)

// TestProseNumbers: every number docs/reproduction.md states outside its
// generated blocks is a reference, one of proseFacts (whose check holds),
// or stands in the generated blocks — a difference "x ± y pp" word for word,
// any other number as a whole number, with its sign when it has one — so
// the prose cannot state a result that the records do not give.
func TestProseNumbers(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "docs", "reproduction.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	var generated []string
	for _, bl := range []Block{StatusBlock, ResultsBlock, TimingBlock} {
		g, err := bl.In(doc)
		if err != nil {
			t.Fatal(err)
		}
		generated = append(generated, g)
		doc = strings.Replace(doc, g, "", 1)
	}
	gen := strings.ReplaceAll(strings.Join(generated, "\n"), "−", "-")
	// Facts are found whatever the line breaks of the prose.
	flat := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	prose := flat(doc)
	for _, f := range proseFacts {
		f.text = flat(f.text)
		if !strings.Contains(prose, f.text) {
			t.Errorf("proseFacts lists %q (%s), which the prose no longer says: remove it", f.text, f.source)
			continue
		}
		if f.check != nil {
			if err := f.check(); err != nil {
				t.Errorf("the prose says %q: %v", f.text, err)
			}
		}
		prose = strings.ReplaceAll(prose, f.text, "")
	}
	// Differences quoted with their standard error stand word for word in
	// the status table or a claims table.
	for _, d := range regexp.MustCompile(`[−+]\d+\.\d+ ± \d+\.\d+ pp`).FindAllString(prose, -1) {
		if !strings.Contains(gen, strings.ReplaceAll(d, "−", "-")) {
			t.Errorf("the prose quotes %q, which the generated blocks do not hold", d)
		}
	}
	prose = regexp.MustCompile(`[−+]\d+\.\d+ ± \d+\.\d+ pp`).ReplaceAllString(prose, "")
	prose = proseReferences.ReplaceAllString(prose, "")
	prose = commit.ReplaceAllStringFunc(prose, func(h string) string {
		if strings.ContainsAny(h, "abcdef") {
			return ""
		}
		return h
	})
	prose = columnNames().ReplaceAllString(prose, "$1")
	var missing []string
	for _, m := range regexp.MustCompile(`[−+-]?\d+(?:[.,]\d+)*`).FindAllString(prose, -1) {
		tok := strings.Replace(m, "−", "-", 1)
		if strings.HasPrefix(m, "-") { // a hyphen, not a minus
			tok = tok[1:]
		}
		// A signed number stands there with its sign; an unsigned one with
		// any sign (the prose says "2.15 pp below").
		re := regexp.MustCompile(`(?:^|[^\d.,])` + regexp.QuoteMeta(tok) + `(?:$|[^\d]|[.,][^\d])`)
		if !re.MatchString(gen) {
			missing = append(missing, m)
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		t.Errorf("the prose of docs/reproduction.md states numbers that neither the generated blocks hold nor a test checks: %v "+
			"(quote the generated figure, or add a proseFact)", slices.Compact(missing))
	}
}

// columnNames matches the names of the columns of every table of the plan
// that hold digits (0%, k=1, Fixed-8), which name settings; the longest
// first, and not inside a longer number.
func columnNames() *regexp.Regexp {
	var names []string
	for _, table := range Tables {
		p, err := ablations.ForTable(table)
		if err != nil {
			panic(err)
		}
		for _, c := range p.Columns {
			if strings.ContainsAny(c.Name, "0123456789") {
				names = append(names, regexp.QuoteMeta(c.Name))
			}
		}
	}
	sort.Slice(names, func(i, j int) bool { return len(names[i]) > len(names[j]) })
	return regexp.MustCompile(`(^|[^\d.])(?:` + strings.Join(names, "|") + `)`)
}
