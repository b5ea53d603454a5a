package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/softshape-go/softshape/ablations"
	"github.com/softshape-go/softshape/experiments/slurm"
	"github.com/softshape-go/softshape/experiments/sweep"
)

// runStatus implements "softshape status": done, running, failed, invalid and
// missing runs of the sweeps recorded in a results folder.
func runStatus(args []string, stdout io.Writer) error {
	fs := newFlagSet("status", "Usage: softshape status [flags]\n\nCounts the done, running, failed, invalid and missing runs of every sweep recorded in a\nresults folder (all shards that write to it) and lists the cells that are not done.\n\nFlags:\n", stdout)
	results := fs.String("results", sweep.DefaultRoot, "results folder written by softshape sweep")
	table := fs.String("table", "", "only this table (default: every table with a recorded sweep)")
	merge := fs.String("merge", "", "first copy the records of these comma-separated results folders (e.g. shards run elsewhere) into -results")
	limit := fs.Int("list", 50, "list at most this many cells not done per table (0: all)")
	shards := fs.Int("shards", 0, "also give the state of each of N shards (-shard i/N, Slurm array task i) of every recorded grid, and the --array of the incomplete ones")
	retry := fs.Bool("retry-failed", false, "with -shards: count shards with failed cells as incomplete (as sweep -retry-failed would re-run them)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *table != "" && !slices.Contains(ablations.TableNames(), *table) {
		return fmt.Errorf("-table %q: unknown table, want one of %s", *table, strings.Join(ablations.TableNames(), ", "))
	}
	if *limit < 0 {
		return fmt.Errorf("-list %d: want 0 (all) or more", *limit)
	}
	if *shards < 0 {
		return fmt.Errorf("-shards %d: want 0 (none) or more", *shards)
	}
	if *retry && *shards == 0 {
		return fmt.Errorf("-retry-failed applies with -shards only")
	}
	if st, err := os.Stat(*results); err == nil && !st.IsDir() {
		return fmt.Errorf("results folder %s is a file, not a folder written by softshape sweep", *results)
	} else if err != nil && *merge == "" {
		return fmt.Errorf("results folder %s not found", *results)
	}
	store, err := sweep.Open(*results)
	if err != nil {
		return err
	}
	// Locks left on other nodes by Slurm jobs that are gone count as stale.
	store.SetForeignLockCheck(slurm.LockOwnerAlive())
	for _, src := range sweep.SplitList(*merge) {
		rep, err := store.Merge(src)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "merged %s: %d records copied, %d already present, %d grids copied", src, rep.Copied, rep.Identical, rep.Grids)
		if len(rep.Conflicts) > 0 || len(rep.Errors) > 0 {
			fmt.Fprintf(stdout, ", %d conflicts (kept %s's), %d unreadable", len(rep.Conflicts), store.Root(), len(rep.Errors))
		}
		fmt.Fprintln(stdout)
		for _, c := range rep.Conflicts {
			fmt.Fprintf(stdout, "  conflict: %s\n", c)
		}
		for _, e := range rep.Errors {
			fmt.Fprintf(stdout, "  unreadable: %v\n", e)
		}
	}
	sts, unreadable, err := store.Status(*table)
	if err != nil {
		return err
	}
	for _, e := range unreadable {
		fmt.Fprintf(stdout, "unreadable, left out: %v\n", e)
	}
	if err := printStatus(stdout, store, sts, *table, *limit, *shards, *retry); err != nil {
		return err
	}
	if len(unreadable) > 0 {
		return fmt.Errorf("results folder %s: %d grid files unreadable (named above; move them aside, e.g. rename to .bad): the other grids are reported", store.Root(), len(unreadable))
	}
	return nil
}

// printStatus prints the status of each table of sts, then with shards > 0
// the state of each shard (shardStatus).
func printStatus(stdout io.Writer, store *sweep.Store, sts []sweep.TableStatus, table string, limit, shards int, retry bool) error {
	if len(sts) == 0 {
		what := "any table"
		if table != "" {
			what = "table " + table
		}
		fmt.Fprintf(stdout, "no sweep recorded for %s in %s\n", what, store.Root())
		if hint := sweep.NestedHint(store.Root(), table); hint != "" {
			fmt.Fprintln(stdout, hint)
		}
		return nil
	}
	fmt.Fprintf(stdout, "results folder %s\n", store.Root())
	for _, ts := range sts {
		mode := "full"
		if ts.Quick {
			mode = sweep.QuickLabel
		}
		var parts []string
		for _, s := range sweep.States() {
			parts = append(parts, fmt.Sprintf("%d %s", ts.Counts[s], s))
		}
		fmt.Fprintf(stdout, "\n%s (%s), grid %s: %d cells: %s\n", ts.Table, mode, strings.Join(ts.Grids, ", "), ts.Total, strings.Join(parts, ", "))
		for _, v := range ts.Blocked {
			fmt.Fprintf(stdout, "  not run: %s\n", v.Blocked)
		}
		for i, c := range ts.Cells {
			if limit > 0 && i == limit {
				fmt.Fprintf(stdout, "  … and %d more (-list 0 lists all)\n", len(ts.Cells)-i)
				break
			}
			detail := ""
			if c.Detail != "" {
				detail = ": " + c.Detail
			}
			fmt.Fprintf(stdout, "  %-8s %s · %s · seed %d fold %d%s\n", c.State, c.Key.Dataset, c.Key.Variant, c.Key.Seed, c.Key.Fold, detail)
		}
	}
	if shards > 0 {
		return shardStatus(stdout, store, table, shards, retry)
	}
	return nil
}

// shardStatus prints, for every recorded grid, the state of each of its n
// shards and the --array value of those with cells left to run.
func shardStatus(w io.Writer, store *sweep.Store, table string, n int, retry bool) error {
	grids, _, err := store.ReadGrids(table) // the unreadable ones were named above
	if err != nil {
		return err
	}
	for _, g := range grids {
		states, err := slurm.ShardStates(store, g.Cells, n)
		if err != nil {
			return err
		}
		mode := "full"
		if g.Spec.Quick {
			mode = "quick"
		}
		fmt.Fprintf(w, "\n%s (%s), grid %s (%s; folds %v; seeds %v), in %d shards:\n", g.Spec.Table, mode, g.ID(),
			strings.Join(g.Spec.Datasets, ","), g.Spec.Folds, g.Spec.Seeds, n)
		for _, st := range states {
			mark := "complete"
			switch {
			case st.Incomplete(retry):
				mark = "INCOMPLETE"
			case st.Counts[sweep.StateRunning] > 0:
				mark = "running"
			}
			fmt.Fprintf(w, "  %-10s %s\n", mark, st)
		}
		if tasks := slurm.IncompleteTasks(states, retry); len(tasks) > 0 {
			fmt.Fprintf(w, "  incomplete shards: %s (resubmit them: the same sweep flags with -emit-slurm FILE -slurm-tasks %d -only-incomplete -slurm-submit)\n",
				slurm.ArraySpec(tasks), n)
		} else {
			fmt.Fprintf(w, "  no shard has cells left to run\n")
		}
	}
	return nil
}
