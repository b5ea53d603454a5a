// Package baseline trains baseline classifiers on the folds SoftShape is
// evaluated on, stores one record per dataset and seed, and loads them by
// method name for the tables.
//
// Two protocols:
//
//   - ProtocolFolds: SoftShape's own folds (data.Folds, 5 stratified folds
//     per seed, 60/20/20 train/validation/test) and its input preparation
//     (data.Prepare: NaN filled with the train split's per-step mean, each
//     series z-normalised). The baseline is fitted on train + validation
//     and scored on the test part: SoftShape uses its validation part only
//     to select an epoch, and the baselines (MiniRocket,
//     MultiRocket-Hydra) select their regularisation by their own
//     leave-one-out, so train + validation gives both the same test rows
//     and the same rows to learn from.
//   - ProtocolStandard: the UCR archive's own train/test split on the raw
//     series, as the baseline's authors published it; used to check the
//     implementation against their results (Reference, Compare).
//
// Records are JSON files <dir>/<method>/<protocol>/<dataset>/seed-<seed>.json,
// written once: a run skips what is stored and never overwrites a record.
package baseline
