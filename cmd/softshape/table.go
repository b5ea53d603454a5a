package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/softshape-go/softshape/ablations"
	"github.com/softshape-go/softshape/experiments/pipeline"
	"github.com/softshape-go/softshape/experiments/sweep"
	"github.com/softshape-go/softshape/experiments/tablefigures"
	"github.com/softshape-go/softshape/experiments/tables"
)

// runTable implements "softshape table": one paper table with our results
// beside the paper's, from the records of a results folder.
func runTable(args []string, stdout io.Writer) error {
	fs := newFlagSet("table", "Usage: softshape table -table NAME [flags]\n\nPrints a paper table with our results beside the paper's: per dataset ours, paper and the\ndifference; summary rows (Avg. Acc, Avg. Rank, Win, p-values) for both; every missing run.\n\nFlags:\n", stdout)
	table := fs.String("table", "", "paper table: "+strings.Join(ablations.TableNames(), ", "))
	format := fs.String("format", "markdown", "output format: markdown or csv")
	results := fs.String("results", sweep.DefaultRoot, "results folder written by softshape sweep")
	quick := fs.Bool("quick", false, "the table of the quick-mode sweeps (labelled "+sweep.QuickLabel+")")
	grid := fs.String("grid", "", "use only this grid id (see softshape status) when several sweeps of the table disagree")
	export := fs.String("export", "", "also write the accuracies in the aeon/tsml-eval results layout to this folder")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *table == "" {
		return fmt.Errorf("-table is required: one of %s", strings.Join(ablations.TableNames(), ", "))
	}
	if !slices.Contains(ablations.TableNames(), *table) {
		return fmt.Errorf("-table %q: unknown table, want one of %s", *table, strings.Join(ablations.TableNames(), ", "))
	}
	if *format != "markdown" && *format != "csv" {
		return fmt.Errorf("-format %q: want markdown or csv", *format)
	}
	store, t, err := pipeline.Stored(*results, *table, tables.Options{Quick: *quick, Grid: *grid})
	if err != nil {
		return err
	}
	t.CDRanks = tablefigures.ShowsCD(*table) // the ranks of "softshape plot cd"
	if *format == "csv" {
		err = t.CSV(stdout)
	} else {
		err = t.Markdown(stdout)
	}
	if err != nil {
		return err
	}
	if *export != "" {
		exp, err := store.ExportAeon(*table, *quick, *grid, *export)
		if err != nil {
			return err
		}
		out := stdout
		if *format == "csv" {
			out = os.Stderr // keep the CSV on stdout clean
		}
		fmt.Fprintf(out, "exported %d files to %s (aeon results layout)", len(exp.Files), *export)
		if len(exp.Incomplete) > 0 {
			fmt.Fprintf(out, "; %d rows left out for missing resamples (see README.txt)", len(exp.Incomplete))
		}
		fmt.Fprintln(out)
	}
	return nil
}
