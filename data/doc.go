// Package data loads, splits and prepares the univariate time-series
// classification datasets of the SoftShape paper (Liu et al., ICML 2025):
// the 128 datasets of the UCR Time Series Classification Archive (2018).
// Whoever uses the UCR data should cite Dau et al., "The UCR Time Series
// Classification Archive" (2018), and the archive paper, IEEE/CAA Journal of
// Automatica Sinica 6(6), 2019.
//
// # Files and formats
//
// A dataset named N lives in a folder root/N holding N_TRAIN and N_TEST,
// each either a UCR 2018 .tsv file (ReadTSV: class label in the first
// tab-separated column, then the values, variable-length series padded with
// NaN so that all lines have the same number of columns) or a .ts file of
// timeseriesclassification.com (ReadTS: '@' header, then "v1,v2,...:label"
// lines, '?' for missing values). Load prefers .tsv when both exist. The
// root is DefaultRoot(): $SOFTSHAPE_DATA, else the user cache folder's
// softshape/ucr.
//
// # Bundled datasets
//
// Three small UCR datasets ship inside the module (go:embed), copied
// unchanged from the archive: ArrowHead, GunPoint and ItalyPowerDemand
// (BundledNames, LoadBundled). LoadOrDownload uses them when the data folder
// lacks them, before any download, so that they work offline on a fresh
// clone; a copy under the data folder takes precedence.
//
// # Downloads
//
// Download and LoadOrDownload fetch a missing dataset from
// the archive (DefaultBaseURL/N.zip) and install it only after it has been
// verified, so that an interrupted or bad download leaves nothing behind.
//
// Bad input is never silently dropped or repaired: a row with a different
// number of columns, a value that is not a number, a series with no finite
// value (all NaN, which imputation cannot fill), a value beyond the float32
// range the model computes in, a byte-order mark other than one at the very
// start of a file (which is ignored), an empty file, a missing TEST file, a
// dataset of a single class or of constant series only (every dataset of
// length 1: z-normalisation leaves zeros), or an unknown dataset name is an
// error naming the file and line (or the dataset) and what was expected.
// What trains but deserves a word, some constant series or numeric labels
// spelt two ways ("1" and "1.0", one class), is in Dataset.Warnings, naming
// the files and lines; LoadOrDownload writes it to its Log.
//
// # Protocol of the reference code
//
// This package follows the authors' PyTorch code (github.com/qianlima-lab/
// SoftShape) and the paper's Appendix A.1:
//
//   - TRAIN and TEST are concatenated (Dataset keeps the TRAIN rows first and
//     NumTrain tells where they end) and the labels are remapped to
//     0..C−1 in sorted order of the distinct labels (numeric order when all
//     labels are numbers).
//   - Folds: stratified 5-fold cross-validation; each fold is the test set
//     once, and the remaining rows are split 3:1, stratified, into train and
//     validation, i.e. 60/20/20. The reference draws the permutation from
//     numpy's global RNG seeded with 42; Folds is deterministic in its own
//     seed but does not reproduce numpy's permutation.
//   - Missing values (NaN, including the padding of variable-length series)
//     are replaced, in train, val and test alike, by the mean of the train
//     split at that time step, or 1e-6 where the train split has no observed
//     value (Prepare).
//   - Every series is then z-normalised on its own with the population std;
//     a constant series is divided by 1 (the reference's normalize_way
//     "single", its default).
//   - Batch size: the paper-era rule min(n_train/10, 16), or the reference's
//     current default min(512, n_train) (BatchSize, BatchPaper, BatchLarge).
//   - Shape length m: the authors' per-dataset table (Info.RefShapeLength):
//     either a fixed m or int(ratio·T). For the three variable-length
//     datasets with a ratio entry (AllGestureWiimoteX/Y, GestureMidAirD3) the
//     registry, which has no length for them, gives the table's m column;
//     Info.ShapeLengthFor computes int(ratio·T) for a given padded length T.
//
// # Registry
//
// Registry and Lookup give the paper's table of the 128 datasets (TRAIN and
// TEST sizes, classes, length, "Vary" meaning variable length) joined with
// the shape length table, both embedded from the paper's CSV files.
//
// # MelbournePedestrian
//
// The archive's MelbournePedestrian files hold 1200 TRAIN and 2450 TEST rows
// (as the dataset's own README says), while the archive's summary table, and
// so the paper, give 1194 and 2439: the summary does not count the rows that
// had missing values in the original data (the files of the shared copy hold
// no NaN). This package loads every row of the files, as they are; the
// registry keeps the paper's numbers; Info.FileSizes returns 1200/2450 for
// this dataset and Info.Verify accepts either pair. No other dataset gets
// such an exception.
package data
