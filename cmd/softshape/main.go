// Command softshape is the command-line front end of softshape-go: it lists and
// inspects UCR datasets, trains and evaluates SoftShape models, and runs the
// experiments of the paper.
//
// Usage:
//
//	softshape <command> [flags]
//
// Run "softshape help" for the list of commands and "softshape <command> -h"
// for the flags of one command.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
)

// command is one sub-command of the CLI.
type command struct {
	summary string
	run     func(args []string, stdout io.Writer) error
}

// commands returns the sub-commands by name.
func commands() map[string]command {
	return map[string]command{
		"datasets":     {summary: "list the UCR registry, or `datasets info NAME` for one dataset", run: runDatasets},
		"train":        {summary: "train and evaluate SoftShape on one dataset over its folds", run: runTrain},
		"sweep":        {summary: "run (or resume) the grid of runs behind a paper table, crash-safe and shardable", run: runSweep},
		"table":        {summary: "build a paper table from stored results, ours beside the paper's", run: runTable},
		"variants":     {summary: "the named variants of the paper's tables, their settings and parameter counts", run: runVariants},
		"status":       {summary: "done / running / failed / missing runs in a results folder", run: runStatus},
		"plot":         {summary: "figures (PNG and SVG) from a results folder or a checkpoint: sweep, ranks, cd, curves, attention, tsne", run: runPlot},
		"timing":       {summary: "training time vs series length per sparse ratio (paper Fig 3), parameters and inference time", run: runTiming},
		"reproduction": {summary: "check the committed full-protocol results; rewrite their manifest and docs/reproduction.md's tables", run: runReproduction},
		"fidelity":     {summary: "the full protocol on a few datasets and seeds per preset, beside the authors' code and the paper", run: runFidelity},
		"flops":        {summary: "FLOPs of one epoch of a run on a dataset, as the graphs compute them and as the paper's operations need", run: runFLOPs},
		"golden":       {summary: "record short training runs bit for bit, or compare records: what a refactor must reproduce", run: runGolden},
		"baseline":     {summary: "a baseline (MiniRocket) on SoftShape's folds or the UCR split, resumable records, its table", run: runBaseline},
	}
}

func usage(w io.Writer) {
	fmt.Fprintf(w, "softshape: SoftShape (Liu et al., ICML 2025) for time-series classification, in Go.\n\n")
	fmt.Fprintf(w, "Usage: softshape <command> [flags]\n\nCommands:\n")
	cmds := commands()
	names := make([]string, 0, len(cmds))
	for name := range cmds {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		fmt.Fprintf(w, "  %-10s %s\n", name, cmds[name].summary)
	}
	fmt.Fprintf(w, "\nRun 'softshape <command> -h' for the flags of a command.\n")
}

func main() {
	// The commands write their results (tables, CSV) to out; anything a
	// library prints to os.Stdout goes to stderr instead, so that stdout can
	// be redirected to a file and parsed. GoMLX's pure-Go backend, for one,
	// prints "Go backend: parallelism set to -1" when it starts.
	out := os.Stdout
	os.Stdout = os.Stderr
	os.Exit(run(os.Args[1:], out, os.Stderr))
}

// run runs the command line args (the program name left out), writing the
// results and help to stdout and errors to stderr, and returns the exit
// status: 0, 1 when the command fails, 2 for an unknown command. Help asked
// for (-h, -help, help) is not a failure: 0, as for Go's own tools.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) < 1 || args[0] == "help" || args[0] == "-h" || args[0] == "-help" || args[0] == "--help" {
		usage(stdout)
		return 0
	}
	cmd, ok := commands()[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "softshape: unknown command %q\n\n", args[0])
		usage(stderr)
		return 2
	}
	if err := cmd.run(args[1:], stdout); err != nil {
		if errors.Is(err, flag.ErrHelp) { // the flag package printed the usage
			return 0
		}
		fmt.Fprintf(stderr, "softshape %s: %v\n", args[0], err)
		return 1
	}
	return 0
}
