package main

import (
	"fmt"
	"io"
	"os"

	"github.com/softshape-go/softshape/data"
	"github.com/softshape-go/softshape/experiments/flops"
	"github.com/softshape-go/softshape/internal/backends"
	"github.com/softshape-go/softshape/softshape"
)

// runFLOPs implements "softshape flops": the matrix-product arithmetic of one
// epoch of each phase of a run on a dataset, as the compiled graphs compute
// it and as the paper's operations need it (flops.Count).
func runFLOPs(args []string, stdout io.Writer) error {
	fs := newFlagSet("flops", "Usage: softshape flops [flags]\n\nCounts the FLOPs of the matrix products of one training epoch of each phase (the training\n"+
		"steps at the protocol's batch size, and the validation pass) on a dataset: as the backend's\n"+
		"compiled graphs compute them (it builds them and runs one step of each) and as the paper's\n"+
		"operations need them (convolution taps that meet a token, the selected experts only).\n\nFlags:\n", stdout)
	dataset := fs.String("dataset", data.CBFName, "dataset name: any UCR name, or "+data.CBFName+" (generated, needs no files)")
	xf := addExecFlags(fs, execParts{Fast: "count the model's speed forms (softshape.RunOptions.Fast) instead of its plain graphs"})
	settings := addSettingsFlag(fs, "", "hyperparameters and protocol, e.g. \"protocol=reference_fresh\"; -set help lists them")
	seed := fs.Int64("seed", 42, "seed of the folds (fold 1 gives the training and validation sizes)")
	ops := fs.Int("ops", 8, "list this many operations per graph, by elements written (0: none)")
	onnxDir := fs.String("onnx", "", "also save the ONNX models of the epoch's graphs (training step and validation of each phase) into this folder, for scripts/ort-profile.sh (ONNX Runtime backend only)")
	if helped, err := parseDatasetFlags(fs, args, settings, stdout); err != nil || helped {
		return err
	}
	if *ops < 0 {
		return fmt.Errorf("-ops %d: must be ≥ 0", *ops)
	}
	cfg, err := softshape.DefaultConfig().WithSettings(*settings)
	if err != nil {
		return err
	}
	exec, err := xf.execution()
	if err != nil {
		return err
	}
	if err := checkDataRoot(fs, exec.DataRoot); err != nil {
		return err
	}
	ds, backend, err := openRun(exec, *dataset, *seed)
	if err != nil {
		return err
	}
	opts := softshape.RunOptions{Execution: exec, Backend: backend, Seed: *seed, RefShapeLen: softshape.RefShapeLength(ds.Name, ds.Length)}
	fmt.Fprintf(stdout, "backend: %s\n", backends.Description(backend))
	rep, err := flops.Count(ds, cfg, opts)
	if err != nil {
		return err
	}
	fmt.Fprint(stdout, flops.Format(rep, *ops))
	if *onnxDir == "" {
		return nil
	}
	if err := os.MkdirAll(*onnxDir, 0o755); err != nil {
		return fmt.Errorf("-onnx: %w", err)
	}
	files, err := flops.SaveStepModels(ds, cfg, opts, *onnxDir)
	for _, f := range files {
		fmt.Fprintf(stdout, "wrote %s\n", f)
	}
	return err
}
