// Package sweep runs the experiments behind the SoftShape paper's tables
// (Liu et al., ICML 2025) as grids of independent training runs, and keeps
// their results in a plain folder that a researcher can read, diff and
// archive.
//
// # Grid and keys
//
// A grid (GridSpec, NewGrid) is datasets × folds × variants × seeds for one
// paper table (the names of package paper; the variants come from
// ablations.ForTable). Each cell is one training run of one fold, identified
// by a Key: table, dataset, variant, fold (1-based), seed, the quick flag and
// ConfigHash, a short sha256 of the resolved configuration's key string
// (KeySchema) and the quick flag. Any hyperparameter change
// gives another hash, hence another cell, but adding a setting does not: the
// key string lists every setting of key schema 1 as "name=value" (for those
// configurations exactly the string softshape.Config.String gave, which the
// older code hashed), followed only by the settings added since that differ
// from their baselines, after the schema version (KeySchema). So a
// new setting at its default leaves every key, and every record's file name,
// unchanged. Records and grid files keep the full configuration string
// (Config.String); ConfigStringHash checks them. (A grid's id hashes those
// full strings, so a sweep re-run after a setting is added writes a grid file
// of its own beside the old one; its cells have the old keys, and Expected
// merges the two.) Quick mode (GridSpec.Quick) trains
// QuickEpochs epochs with QuickWarmUp warm-up epochs and, by default, on a
// few small datasets; its numbers are labelled QuickLabel everywhere.
//
// # The results folder
//
// One JSON file per finished run (Record) at
//
//	<root>/<table>/<dataset>/<variant-slug>/fold<k>-seed<s>-<hash>.json
//
// written atomically (temporary file in the same folder, fsync, rename,
// fsync of the folder), so a record is either complete or absent. A run in
// progress holds the lock file fold<k>-seed<s>-<hash>.running beside it,
// created exclusively (a temporary file made with O_CREATE|O_EXCL and
// hard-linked into place, so that a lock never appears empty) and holding
// the owner's pid, host and start time; a lock whose process is dead on this
// host is stale and reclaimed (under an flock of the folder, so two
// reclaimers cannot both win). Every sweep also writes its grid to
// <root>/<table>/grid-<id>.json, which status, tables and export read to know
// which cells are expected.
//
// A record's status is "ok", "failed" (training failed: the error text is
// kept) or "invalid" (the configuration is impossible on that dataset, e.g.
// k > Ĉ or m > T: the validation error is kept). Resuming skips every cell
// that has a record; re-running never duplicates; failed cells run again
// only with Runner.RetryFailed. A record file that does not parse or
// validate is reported as corrupt and never overwritten. An ok record of the
// same dataset, fold, seed and configuration hash made for another variant
// or table by a binary of the same clean revision (Record.CodeVersion) is
// copied instead of retrained (Record.ReusedFrom says from where).
//
// A fold_reset=carry run's fold starts from the weights and Adam state the
// previous fold ended with. Trained one cell at a time, such a run keeps that
// state in the store (Store.CarryPath: <record base>.carry/, a GoMLX
// checkpoint, saved atomically and removed once the next fold has trained),
// and its next fold continues from it (softshape.RunOptions.CarryIn,
// CarryOut), in the same sweep or in one resumed after a kill; a missing or
// unusable state means the earlier folds are trained again (logged).
// Batched jobs always train a chain's folds from the first.
//
// # Running
//
// Runner.Run trains the cells with Workers concurrent goroutines, sharing
// one backend (the pure-Go backend is safe for concurrent executions) or,
// with Runner.NewBackend, each on a backend of its own. PlanWorkers and
// AutoWorkers choose for the machine: on the pure-Go backend one worker per
// core sharing the all-cores backend (measured ≈1.4× the throughput of one
// worker on 2 cores), on a single-threaded pure-Go config
// (SingleThreadGoBackend) one worker per core each on its own backend, and
// one worker on ONNX Runtime (which runs one graph at a time per process)
// and XLA. Each cell
// is one call of DefaultTrain: softshape.TrainFold, which is softshape.Train
// with Folds = {fold} (same folds, seed and selection), followed by a timed
// evaluation of the fold's test split for the inference time. Any number
// of runners, in one process or several, may work on one folder at once.
// Shard selects a deterministic 1/n of a grid (cell index mod n over the
// sorted key list), so n machines can split a sweep; the union of the shards
// is the grid and they are disjoint. Status reports done, running, failed,
// invalid and missing cells; Merge copies the records of shards kept in
// separate folders into one. ExportAeon writes accuracies in the results
// layout of tsml-eval / aeon.
package sweep
