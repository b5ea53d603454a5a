// Package golden records what training computes, bit for bit, so that a
// change meant to keep behaviour (the merge of the training loops of
// softshape's train.go, batched.go and batched_axis.go into one) can show
// that it did: the same per-epoch losses and accuracies, selected epochs and
// test accuracies, to the last bit, before and after.
//
// A record (File, written by `softshape golden`) holds the results of a
// fixed set of cases (Cases) and the environment they were recorded in
// (Environment). Each case trains one bundled dataset (ItalyPowerDemand,
// GunPoint, ArrowHead) with a short protocol (Protocol: 4 dense warm-up
// epochs, up to 8 sparse ones, early stopping that stops some folds), seed
// 42, under a preset (Fresh: reference_fresh, 2 folds; Carry:
// reference_compat, 5 folds, each continuing from the previous one), on a
// backend (pure Go "go", ONNX Runtime "onnx:cpu" with one thread) through
// one path as RunOptions select it today: one run at a time (PathSingle,
// softshape.Train with MaxRuns 1) or R = 2 runs in one graph (PathCopies,
// TrainRuns with the run axis off; PathAxis, the run axis on). Per run it
// keeps every epoch's training and validation loss and accuracy, the
// selected epoch, phase and validation loss, the epochs run and the test
// accuracy, each float as the hex of its bits beside its decimal (Float).
// The whole record takes 4 to 5 minutes of one core (both backends, about
// half each; 283 s of CPU without GOEXPERIMENT=simd and 241 s with it on
// the machine of the committed records).
//
// Environment says on what the bits depend: the Go version, GOARCH and its
// level, GOEXPERIMENT=simd (the pure-Go backend's vector kernels), the
// CPU's vector features (the kernels chosen at run time), the GoMLX module
// versions and each backend's description (ONNX Runtime's version and
// threads), with the commit and CPU for provenance. The results do not
// depend on the number of cores (checked: pure Go on one and on two), nor
// on the cases recorded before in the same process (each case starts its
// own backend), so a subset (-cases) reproduces its part of a full record.
//
// testdata holds the records of the commit named in each: golden.json
// built without GOEXPERIMENT=simd, golden-simd.json with it, both with
// -tags onnx, on the machine their environment names. Their ONNX Runtime
// cases are identical; their pure-Go ones differ in the last bits from the
// first epoch on (the simd kernels sum in another order), and so, over the
// epochs, in selections and test accuracies too. The tests check
// that two records in one process agree (TestRecordDeterministic), that a
// comparison finds a one-bit change, and, where the build and machine are
// a committed record's environment, that today's code reproduces its
// GunPoint cases (TestMatchesCommittedRecord; elsewhere it skips, saying
// what differs).
//
// # How a refactor uses it
//
// Record the commit before the change and the changed tree on the same
// machine, each built the same way, then compare. The base is best built
// from a git worktree, so that no edit in progress leaks into it:
//
//	eval "$(scripts/install-onnxruntime.sh)"
//	git worktree add /tmp/golden-base BASE
//	(cd /tmp/golden-base && GOEXPERIMENT=simd go build -tags onnx -o /tmp/softshape-base ./cmd/softshape &&
//	  taskset -c 1 /tmp/softshape-base golden -o /tmp/base.json)
//	GOEXPERIMENT=simd go build -tags onnx -o /tmp/softshape-new ./cmd/softshape
//	taskset -c 1 /tmp/softshape-new golden -o /tmp/new.json
//	/tmp/softshape-new golden -compare /tmp/base.json /tmp/new.json
//	git worktree remove /tmp/golden-base
//
// -compare prints one line per value that differs (case, seed, fold,
// epoch, field, both values) and exits 1 if any does; it notes first how
// the two environments differ, if they do. On the machine of a committed
// record, `softshape golden -check experiments/golden/testdata/golden-simd.json`
// (built with GOEXPERIMENT=simd) records this build's cases and compares
// them with it in one step. Do the same without GOEXPERIMENT=simd, as the
// plain build is the one a fresh clone makes.
//
// A case names the RunOptions it asks for, not the code that answers: a
// "copies" case is TrainRuns with MaxRuns = R and the run axis off, and
// its runs record whether they trained on a run axis (run_axis), so a
// refactor that sends such runs through another mechanism shows up as
// differences rather than a failure to record. In today's records the
// copies equal the single runs bit for bit (every path reports the
// training accuracy as GoMLX's trainer computes it, a float32 running
// mean: fit.Run.TrainAcc), and the run axis differs from both in the last
// bits of the losses, as its doc says.
package golden
