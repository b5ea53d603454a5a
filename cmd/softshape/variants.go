package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/softshape-go/softshape/ablations"
	"github.com/softshape-go/softshape/data"
	"github.com/softshape-go/softshape/internal/backends"
	"github.com/softshape-go/softshape/softshape"
)

// runVariants implements "softshape variants": the named variants (of one
// table, or all), the settings each changes, and its parameter count on a
// dataset's shape.
func runVariants(args []string, stdout io.Writer) error {
	fs := newFlagSet("variants", "Usage: softshape variants [flags]\n\nLists the named variants of the paper's tables, the settings each one changes, and the\nnumber of trainable parameters of its model on a dataset's shape (no data is read).\n\nFlags:\n", stdout)
	table := fs.String("table", "", "only the variants of this paper table: "+strings.Join(ablations.TableNames(), ", "))
	dataset := fs.String("dataset", data.CBFName, "dataset whose series length, classes and authors' m size the models (UCR registry name, or "+data.CBFName+")")
	length := fs.Int("length", 0, "series length T (overrides -dataset's)")
	classes := fs.Int("classes", 0, "number of classes C (overrides -dataset's)")
	settings := addSettingsFlag(fs, "", "base hyperparameters before each variant, e.g. \"embed_dim=64\"")
	backendName := fs.String("backend", "", backendHelp)
	if err := parseFlags(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	T, C, refM := data.CBFDefaultLength, 3, 0
	if *dataset != data.CBFName {
		info, err := data.Lookup(*dataset)
		if err != nil {
			return err
		}
		T, C, refM = info.Length, info.Classes, info.RefShapeLength
	}
	if *length > 0 {
		T = *length
	}
	if *classes > 0 {
		C = *classes
	}
	if T < 1 {
		return fmt.Errorf("dataset %s has variable length: give -length", *dataset)
	}
	variants := ablations.All()
	if *table != "" {
		plan, err := ablations.ForTable(*table)
		if err != nil {
			return err
		}
		variants = plan.Variants()
	}
	base, err := softshape.DefaultConfig().WithSettings(*settings)
	if err != nil {
		return err
	}
	backend, err := backends.New(cliBackend(*backendName))
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "models for %s: T=%d, C=%d", *dataset, T, C)
	if refM > 0 {
		fmt.Fprintf(stdout, ", authors' m=%d", refM)
	}
	fmt.Fprintln(stdout)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "variant\tsettings changed\tparameters")
	for _, v := range variants {
		cfg, err := v.Config(base)
		if err != nil {
			fmt.Fprintf(tw, "%s\t-\t%v\n", v.Name, err)
			continue
		}
		n, err := ablations.ParameterCount(cfg, T, C, refM, backend)
		count := fmt.Sprint(n)
		if err != nil {
			count = "invalid: " + err.Error()
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", v.Name, settingsChanged(base, cfg), count)
	}
	return tw.Flush()
}

// settingsChanged lists the "name=value" settings of cfg that differ from base,
// or "(none)".
func settingsChanged(base, cfg softshape.Config) string {
	b := strings.Split(base.String(), ";")
	var out []string
	for i, s := range strings.Split(cfg.String(), ";") {
		if s != b[i] {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return "(none)"
	}
	return strings.Join(out, ";")
}
