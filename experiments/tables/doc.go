// Package tables builds, for each table of the SoftShape paper (Liu et al.,
// "Learning Soft Sparse Shapes for Efficient Time-Series Classification",
// ICML 2025), our results beside the paper's, from the records of a results
// folder written by experiments/sweep.
//
// Build reads the sweeps recorded for a table (sweep.Store.Expected), maps
// the paper's columns onto variants (ablations.ForTable) and returns a Table:
//
//   - per dataset and column, our accuracy (the mean over folds and seeds of
//     the ok records; Table 7's Val-Select is the default configuration,
//     the authors' per-dataset m: ablations.ValSelectName), the paper's value
//     and the difference;
//   - summary rows for ours and for the paper on the same datasets: Avg. Acc,
//     Avg. Rank (ties get the minimum rank, the paper's convention), Win, the
//     paper's p-value (half the two-sided paired t-test p) and the two-sided
//     Wilcoxon signed-rank p-value against the reference column, computed by
//     stats.Summarize; and the paper's printed summary (paper.Summary), the
//     only paper figures for the appendix studies without a per-dataset
//     table. Columns we do not run (the paper's baseline methods, variants
//     that need model support) enter our summary with the paper's figures and
//     are marked so. Summary statistics use accuracies rounded to four
//     decimals, as the paper prints them;
//   - the list of every expected run that has no ok record (missing, running,
//     failed or corrupt), with what makes each state's runs, and apart the
//     runs recorded invalid, which no sweep can make: nothing is skipped
//     silently.
//
// Markdown and CSV write a table; quick-mode tables carry sweep.QuickLabel in
// their title and CSV header.
package tables
