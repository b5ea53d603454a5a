package main

import (
	"flag"

	"github.com/softshape-go/softshape/data"
)

// backendHelp documents every -backend flag.
const backendHelp = "GoMLX backend: go, onnx:cpu (binary built with -tags onnx), xla:cpu, xla:cuda, or fastest (the fastest one built in and installed); default $GOMLX_BACKEND, else go"

// runFlags are the flags shared by the commands that train: where the data is,
// which folds, which backend, and whether downloading is allowed.
type runFlags struct {
	dataRoot, folds, backend *string
	offline                  *bool
}

// addRunFlags declares -data, -folds, -backend and -offline on fs.
func addRunFlags(fs *flag.FlagSet) runFlags {
	return runFlags{
		dataRoot: fs.String("data", data.DefaultRoot(), "folder holding UCR datasets as NAME/NAME_TRAIN.tsv (default $SOFTSHAPE_DATA or the user cache)"),
		folds:    fs.String("folds", "1-5", "folds to run, 1-based: a range \"1-5\", a list \"1,3\" or one fold \"2\""),
		backend:  fs.String("backend", "", backendHelp),
		offline:  fs.Bool("offline", false, "never download a dataset that is not under -data"),
	}
}
