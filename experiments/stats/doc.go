// Package stats compares classifiers over many datasets the way the SoftShape
// paper (Liu et al., "Learning Soft Sparse Shapes for Efficient Time-Series
// Classification", ICML 2025) reports it, and the way it should be done.
//
// Accuracy matrices are indexed acc[dataset][method]: one row per dataset,
// one column per method, higher is better.
//
// # The paper's conventions (reproduced exactly)
//
// The summary rows of the paper's Tables 1-7 are reproduced from the
// per-dataset tables (see the tests, which use package paper):
//
//   - Avg. Acc: MeanAccuracy, the plain mean over datasets.
//   - Avg. Rank: AverageRanks with TiesMin. Rank 1 is the highest accuracy and
//     tied methods all receive the minimum rank of their tie group, like
//     scipy.stats.rankdata(-acc, method="min"). This favours methods that tie
//     often (on Table 1 SoftShape gets 2.72 with TiesMin but 3.14 with the
//     usual TiesAverage).
//   - Win: Wins, the number of datasets on which a method equals the row
//     maximum (ties count for every tied method).
//   - P-value: PaperPValue. The paper labels this column "Wilcoxon
//     signed-rank", but the printed values are half the two-sided paired
//     t-test p-value between the reference column and the method, i.e. a
//     one-sided paired t-test in the direction of the observed difference.
//     It is not a Wilcoxon test at all.
//
// # The honest default
//
// WilcoxonSignedRank is a real Wilcoxon signed-rank test with the defaults of
// scipy.stats.wilcoxon (zero_method="wilcox", correction=False,
// method="auto"): zero differences are dropped, ties get average ranks and a
// tie-corrected variance, the exact null distribution is used for n <= 50
// without ties or zeros, an exact enumeration conditional on the observed
// ranks for n <= 13 with ties or zeros (scipy's permutation test, which is
// deterministic there), and otherwise the normal approximation without
// continuity correction. Summarize reports the two-sided Wilcoxon p-value
// next to the paper's p-value. For several methods over many datasets use
// Friedman (or ImanDavenport) and CriticalDifference, which forms cliques
// from pairwise two-sided Wilcoxon tests with the Holm correction and ranks
// with TiesAverage, as is usual for critical-difference diagrams.
//
// Bad input (mismatched lengths, fewer than two methods, NaN accuracies, too
// few samples) is reported as an error wrapping one of the Err* values,
// never as a panic.
package stats
