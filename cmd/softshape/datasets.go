package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/softshape-go/softshape/data"
)

// runDatasets implements "softshape datasets": the registry table, or with
// "info NAME" the description of one dataset.
func runDatasets(args []string, stdout io.Writer) error {
	if len(args) > 0 && args[0] == "info" {
		return runDatasetsInfo(args[1:], stdout)
	}
	if len(args) > 0 && args[0] == "list" {
		args = args[1:]
	}
	fs := newFlagSet("datasets", `Usage: softshape datasets [-data DIR]
       softshape datasets info [flags] NAME

Without a sub-command, prints the paper's 128 UCR datasets: TRAIN and TEST
sizes, classes, series length ("vary" = variable), the authors' shape length
m, and whether the dataset is present under -data ("yes") or, absent there,
bundled inside softshape ("bundled": usable offline). "datasets info -h" lists
the flags of info.

Flags:
`, stdout)
	root := fs.String("data", data.DefaultRoot(), dataFolderHelp)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q (for one dataset: softshape datasets info %s)", fs.Arg(0), fs.Arg(0))
	}
	if err := checkDataRoot(fs, *root); err != nil {
		return err
	}
	printRegistry(stdout, *root)
	return nil
}

// printRegistry writes the registry as an aligned table, marking the
// datasets present under root.
func printRegistry(w io.Writer, root string) {
	infos := data.Registry()
	nameWidth := len("NAME")
	for _, info := range infos {
		nameWidth = max(nameWidth, len(info.Name))
	}
	fmt.Fprintf(w, "%-*s  %5s  %5s  %7s  %6s  %4s  %s\n", nameWidth, "NAME", "TRAIN", "TEST", "CLASSES", "LENGTH", "M", "LOCAL")
	present := 0
	for _, info := range infos {
		length := "vary"
		if !info.VariableLength {
			length = fmt.Sprint(info.Length)
		}
		local := ""
		if data.Present(root, info.Name) {
			local = "yes"
			present++
		} else if data.IsBundled(info.Name) {
			local = "bundled"
		}
		line := fmt.Sprintf("%-*s  %5d  %5d  %7d  %6s  %4d  %s", nameWidth, info.Name, info.Train, info.Test, info.Classes, length, info.RefShapeLength, local)
		fmt.Fprintln(w, strings.TrimRight(line, " "))
	}
	fmt.Fprintf(w, "\n%d of %d datasets present under %s\n", present, len(infos), root)
	fmt.Fprintf(w, "Bundled in softshape, used when not under -data: %s (UCR archive, Dau et al. 2018).\n", strings.Join(data.BundledNames(), ", "))
	fmt.Fprintf(w, "Sizes as in the paper; the MelbournePedestrian files hold 1200/2450 rows (see the data package).\n")
}

// dataFolderHelp documents the -data flag of the datasets commands.
const dataFolderHelp = "data folder, holding NAME/NAME_TRAIN.tsv and NAME_TEST.tsv per dataset; $" + data.DataEnv + " sets the default"

// runDatasetsInfo implements "softshape datasets info".
func runDatasetsInfo(args []string, stdout io.Writer) error {
	fs := newFlagSet("datasets info", fmt.Sprintf(`Usage: softshape datasets info [flags] NAME

Prints one dataset: its source, TRAIN/TEST sizes against the registry, the
classes with their counts, the series length (shortest and longest observed
for variable-length data), the number of missing values, the train/val/test
sizes of each stratified fold and the batch size under both rules (paper:
min(n_train/10, 16); large, the reference default: min(512, n_train)).
NAME is a UCR dataset name or %s (generated, needs no files). A
dataset that is not under -data is downloaded from -url unless -offline.

Flags:
`, data.CBFName), stdout)
	root := fs.String("data", data.DefaultRoot(), dataFolderHelp)
	seed := fs.Int64("seed", 42, "seed of the folds (and of the generated "+data.CBFName+" data)")
	folds := fs.Int("folds", 5, "number of stratified folds")
	offline := fs.Bool("offline", false, offlineHelp)
	baseURL := fs.String("url", data.DefaultBaseURL, "archive to download NAME.zip from when the dataset is not under -data")
	var names []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil
			}
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		names = append(names, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(names) != 1 {
		fs.Usage()
		return fmt.Errorf("datasets info needs exactly one dataset name, got %d", len(names))
	}
	if *folds < 2 {
		return fmt.Errorf("-folds %d: want at least 2 stratified folds", *folds)
	}
	if err := checkDataRoot(fs, *root); err != nil {
		return err
	}
	d, err := data.LoadOrDownload(*root, names[0], data.LoadOptions{
		BaseURL: *baseURL, Offline: *offline, Seed: *seed, Log: stdout,
	})
	if err != nil {
		return err
	}
	printInfo(stdout, d, *folds, *seed)
	return nil
}

// printInfo describes a loaded dataset.
func printInfo(w io.Writer, d *data.Dataset, k int, seed int64) {
	n := len(d.Series)
	fmt.Fprintf(w, "%s\n", d.Name)
	fmt.Fprintf(w, "  source    %s\n", d.Source)
	if d.NumTrain > 0 {
		fmt.Fprintf(w, "  rows      %d (TRAIN %d + TEST %d)\n", n, d.NumTrain, d.NumTest())
	} else {
		fmt.Fprintf(w, "  rows      %d\n", n)
	}
	if d.Name == data.CBFName {
		fmt.Fprintf(w, "  registry  generated here (the archive's CBF is a different, fixed sample)\n")
	} else if info, err := data.Lookup(d.Name); err == nil {
		length := "variable"
		if !info.VariableLength {
			length = fmt.Sprint(info.Length)
		}
		fmt.Fprintf(w, "  registry  TRAIN %d, TEST %d, %d classes, length %s, shape length m %d\n",
			info.Train, info.Test, info.Classes, length, info.RefShapeLength)
		if tr, te := info.FileSizes(); tr != info.Train || te != info.Test {
			fmt.Fprintf(w, "            (the archive's files hold %d/%d rows; all are loaded)\n", tr, te)
		}
	} else {
		fmt.Fprintf(w, "  registry  not one of the paper's 128 datasets\n")
	}
	lo, hi := d.LengthRange()
	if lo == hi && hi == d.Length {
		fmt.Fprintf(w, "  length    %d\n", d.Length)
	} else {
		fmt.Fprintf(w, "  length    %d..%d observed, padded to %d\n", lo, hi, d.Length)
	}
	missing, padding := d.MissingCount()
	if missing+padding == 0 {
		fmt.Fprintf(w, "  missing   none\n")
	} else {
		fmt.Fprintf(w, "  missing   %d NaN values: %d inside series, %d padding after shorter series\n", missing+padding, missing, padding)
	}

	fmt.Fprintf(w, "  classes   %d\n", d.NumClasses())
	counts := d.ClassCounts()
	labelWidth := len("label")
	for _, name := range d.ClassNames {
		labelWidth = max(labelWidth, len(name))
	}
	fmt.Fprintf(w, "    %4s  %-*s  %5s\n", "id", labelWidth, "label", "count")
	for c, name := range d.ClassNames {
		fmt.Fprintf(w, "    %4d  %-*s  %5d\n", c, labelWidth, name, counts[c])
	}

	splits, err := data.Folds(d, k, seed)
	if err != nil {
		fmt.Fprintf(w, "  folds     cannot split: %v\n", err)
		return
	}
	fmt.Fprintf(w, "  folds     %d stratified folds (numbered from 1), seed %d; train/val 3:1 of the rest\n", k, seed)
	fmt.Fprintf(w, "    %4s  %5s  %5s  %5s  %11s  %11s\n", "fold", "train", "val", "test", "batch paper", "batch large")
	for _, s := range splits {
		fmt.Fprintf(w, "    %4d  %5d  %5d  %5d  %11d  %11d\n", s.Fold+1, len(s.Train), len(s.Val), len(s.Test),
			data.BatchSize(len(s.Train), data.BatchPaper), data.BatchSize(len(s.Train), data.BatchLarge))
	}
	nTrain := len(splits[0].Train)
	fmt.Fprintf(w, "  batch     %s: %d, %s: %d (from fold 1's %d training rows, as the reference)\n",
		data.BatchPaper, data.BatchSize(nTrain, data.BatchPaper), data.BatchLarge, data.BatchSize(nTrain, data.BatchLarge), nTrain)
}
