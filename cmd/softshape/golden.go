package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/softshape-go/softshape/experiments/golden"
	"github.com/softshape-go/softshape/internal/backends"
)

// runGolden implements "softshape golden": record the golden training
// results of this build (experiments/golden), check this build against a
// record, or compare two records.
func runGolden(args []string, stdout io.Writer) error {
	fs := newFlagSet("golden", "Usage: softshape golden [-o FILE] [-cases REGEXP] [-backends go,onnx:cpu]\n"+
		"       softshape golden -check FILE [-cases REGEXP]\n"+
		"       softshape golden -compare [-cases REGEXP] A.json B.json\n\n"+
		"Records the training results of a fixed set of short runs (the bundled datasets, fresh and carry\n"+
		"folds, pure Go and ONNX Runtime, one run at a time and R runs per graph) bit for bit, with the\n"+
		"environment they were recorded in; -check and -compare list every value that differs (case,\n"+
		"seed, fold, epoch, field) and exit 1 when any does. See experiments/golden for how a refactor\n"+
		"uses it.\n\nFlags:\n", stdout)
	out := fs.String("o", "", "write the record to this file (default: stdout)")
	force := fs.Bool("force", false, "let -o replace a file that exists")
	backends := fs.String("backends", golden.BackendGo+","+golden.BackendONNX, "comma-separated backends of the standard cases (onnx:cpu needs a build with -tags onnx)")
	settings := addSettingsFlag(fs, golden.Protocol, "settings of the standard cases, applied after each one's preset (its protocol)")
	pattern := fs.String("cases", "", "record (or -check, or -compare) only the cases whose names this regular expression matches")
	list := fs.Bool("list", false, "list the cases' names and exit")
	check := fs.String("check", "", "record the cases of this record file (those -cases matches) with this build and compare them with it")
	compare := fs.Bool("compare", false, "compare the two record files given as arguments")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *compare {
		if fs.NArg() != 2 || *check != "" {
			return fmt.Errorf("-compare takes two record files (and no -check), got %d arguments", fs.NArg())
		}
		a, err := golden.Read(fs.Arg(0))
		if err != nil {
			return err
		}
		b, err := golden.Read(fs.Arg(1))
		if err != nil {
			return err
		}
		keep, err := golden.Filter(a.Union(b), *pattern)
		if err != nil {
			return fmt.Errorf("-cases: %w", err)
		}
		return reportDifferences(stdout, a.Keep(keep), b.Keep(keep), fs.Arg(0), fs.Arg(1))
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q (two record files go with -compare)", fs.Arg(0))
	}
	var cases []golden.Case
	var want *golden.File
	if *check != "" {
		var err error
		if want, err = golden.Read(*check); err != nil {
			return err
		}
		cases = want.CaseList()
	} else {
		var names []string
		for b := range strings.SplitSeq(*backends, ",") {
			names = append(names, strings.TrimSpace(b))
		}
		cases = golden.Cases(names, *settings)
	}
	cases, err := golden.Filter(cases, *pattern)
	if err != nil {
		return err
	}
	if *list {
		for _, c := range cases {
			fmt.Fprintln(stdout, c.Name())
		}
		return nil
	}
	if err := setGoldenONNXThreads(cases); err != nil {
		return err
	}
	got, err := golden.Record(cases, golden.Options{Log: os.Stderr})
	if err != nil {
		return err
	}
	if want != nil {
		return reportDifferences(stdout, want.Keep(cases), got, *check, "this build")
	}
	if *out == "" {
		return got.Encode(stdout)
	}
	if err := got.Write(*out, *force); err != nil {
		if errors.Is(err, os.ErrExist) {
			return fmt.Errorf("%w (add -force to replace it)", err)
		}
		return err
	}
	fmt.Fprintf(os.Stderr, "wrote %s (%d cases)\n", *out, len(got.Cases))
	return nil
}

// setGoldenONNXThreads gives ONNX Runtime the one intra-op thread records
// are made with, when a case uses it and $ORT_INTRA_OP_NUM_THREADS is unset
// (golden.Record refuses any other count).
func setGoldenONNXThreads(cases []golden.Case) error {
	for _, c := range cases {
		if backends.ONNXOnCPU(c.Backend) {
			if _, set := os.LookupEnv(backends.ONNXThreadsEnvVar); !set {
				return os.Setenv(backends.ONNXThreadsEnvVar, "1")
			}
			return nil
		}
	}
	return nil
}

// reportDifferences prints how the environments of a and b differ (for
// the backends of a's cases), then every difference of their results; an
// error (exit 1) when any.
func reportDifferences(w io.Writer, a, b *golden.File, nameA, nameB string) error {
	for _, m := range b.Environment.Mismatches(a.Environment, a.BackendNames()) {
		fmt.Fprintf(w, "note: environments differ: %s (%s against %s)\n", m, nameB, nameA)
	}
	diffs := golden.Compare(a, b)
	for _, d := range diffs {
		fmt.Fprintln(w, d)
	}
	if len(diffs) > 0 {
		return fmt.Errorf("%d differences between %s and %s (values: %s ≠ %s)", len(diffs), nameA, nameB, nameA, nameB)
	}
	fmt.Fprintf(w, "%d cases, identical bit for bit\n", len(a.Cases))
	return nil
}
