package stats_test

import (
	"fmt"

	"github.com/softshape-go/softshape/experiments/stats"
	"github.com/softshape-go/softshape/paper"
)

// Reproduce Table 3 of Liu et al. (ICML 2025) from its per-dataset table:
// the paper compares every sparse ratio with no sparsification (0%).
func ExampleSummarize() {
	tb, err := paper.PerDataset("sparse_ratio")
	if err != nil {
		panic(err)
	}
	s, err := stats.Summarize(tb.Methods, tb.Acc, tb.Reference)
	if err != nil {
		panic(err)
	}
	for j, m := range s.Methods {
		fmt.Printf("%-4s acc %.4f rank %.2f win %d paper-p %.2E wilcoxon-p %.3f\n",
			m, s.AvgAcc[j], s.AvgRank[j], s.Wins[j], s.PaperP[j], s.WilcoxonP[j])
	}
	// Output:
	// 0%   acc 0.9461 rank 2.44 win 4 paper-p NaN wilcoxon-p NaN
	// 10%  acc 0.9469 rank 2.39 win 7 paper-p 2.97E-01 wilcoxon-p 0.733
	// 30%  acc 0.9448 rank 2.78 win 5 paper-p 2.66E-01 wilcoxon-p 0.510
	// 50%  acc 0.9453 rank 2.61 win 6 paper-p 3.46E-01 wilcoxon-p 0.820
	// 70%  acc 0.9323 rank 3.89 win 5 paper-p 9.37E-03 wilcoxon-p 0.011
	// 90%  acc 0.9261 rank 4.50 win 2 paper-p 4.02E-04 wilcoxon-p 0.001
}

// The p-value the paper prints is half a two-sided paired t-test p-value.
func ExamplePaperPValue() {
	tb, err := paper.PerDataset("main")
	if err != nil {
		panic(err)
	}
	ref, _ := tb.Column("SoftShape")
	tsla, _ := tb.Column("TSLANet")
	p, err := stats.PaperPValue(ref, tsla)
	if err != nil {
		panic(err)
	}
	w, err := stats.WilcoxonSignedRank(ref, tsla, stats.TwoSided)
	if err != nil {
		panic(err)
	}
	fmt.Printf("paper %.2E, Wilcoxon two-sided %.2E (%s, n=%d)\n", p, w.PValue, w.Method, w.N)
	// Output:
	// paper 1.06E-03, Wilcoxon two-sided 1.46E-05 (normal approximation, n=113)
}
