package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/softshape-go/softshape/internal/hostinfo"
	"github.com/softshape-go/softshape/reproduction"
)

// runReproduction implements "softshape reproduction": it checks the committed
// full-protocol results and rewrites their manifest and the generated blocks
// of docs/reproduction.md (status and results; the prose around them is kept).
func runReproduction(args []string, stdout io.Writer) error {
	flags := newFlagSet("reproduction", "Usage: softshape reproduction [flags]\n\nChecks every record under -dir/results (full protocol, the preset of its folder), rebuilds the\n"+
		"reproduction's tables and rewrites -dir/manifest.json and the generated blocks of -doc (status, results and\nthe running time of -dir/timing, each between its markers; the rest of the document is kept). -check only compares.\n\nFlags:\n", stdout)
	dir := flags.String("dir", "reproduction", "the reproduction folder (results/<preset>, manifest.json)")
	doc := flags.String("doc", filepath.Join("docs", "reproduction.md"), "the document whose generated blocks are rewritten")
	commit := flags.String("commit", "", "commit of the binary that trained the runs (recorded in the manifest; default: keep the manifest's)")
	machine := flags.String("machine", "", "the machine the runs trained on (default: keep the manifest's, else this machine)")
	check := flags.Bool("check", false, "write nothing: exit with an error if the manifest or the document differs from the results")
	if err := parseFlags(flags, args); err != nil {
		return err
	}
	if st, err := os.Stat(*dir); err != nil || !st.IsDir() {
		return fmt.Errorf("-dir %s: not a folder", *dir)
	}
	entries, err := reproduction.Load(*dir)
	if err != nil {
		return err
	}
	manifestPath := filepath.Join(*dir, "manifest.json")
	old, err := reproduction.ReadManifest(manifestPath)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if *commit == "" {
		*commit = old.CodeCommit
	}
	if *machine == "" {
		*machine = old.Machine
	}
	if *machine == "" {
		*machine = hostinfo.Machine()
	}
	if err := reproduction.CheckCodeCommit(entries, *commit); err != nil {
		return fmt.Errorf("-commit: %w", err)
	}
	m := reproduction.NewManifest(entries, *commit, *machine)
	text, err := os.ReadFile(*doc)
	if err != nil {
		return fmt.Errorf("-doc: %w", err)
	}
	// A reproduction folder without timing measurements renders without
	// them; one with a measurement folder must hold them whole.
	var timings []reproduction.Timing
	if _, err := os.Stat(reproduction.TimingDir(*dir)); err == nil {
		if timings, err = reproduction.LoadTiming(*dir); err != nil {
			return err
		}
	}
	newDoc, err := reproduction.RenderDocument(string(text), entries, timings)
	if err != nil {
		return fmt.Errorf("-doc %s: %w", *doc, err)
	}
	oldManifest, _ := os.ReadFile(manifestPath)
	figDir := filepath.Join(filepath.Dir(*doc), filepath.FromSlash(reproduction.FigureDir))
	figs := reproduction.Figures(entries)
	missing, stale, err := figureDrift(figDir, figs)
	if err != nil {
		return err
	}
	if *check {
		var drift []string
		if string(oldManifest) != string(m.JSON()) {
			drift = append(drift, manifestPath)
		}
		if newDoc != string(text) {
			drift = append(drift, *doc+" (generated blocks)")
		}
		for _, name := range missing {
			drift = append(drift, filepath.Join(figDir, name)+" (missing)")
		}
		for _, name := range stale {
			drift = append(drift, filepath.Join(figDir, name)+" (stale)")
		}
		if len(drift) > 0 {
			return fmt.Errorf("out of date with the results: %s; run softshape reproduction", strings.Join(drift, ", "))
		}
		fmt.Fprintln(stdout, "reproduction: manifest and document match the results")
		return nil
	}
	if err := os.WriteFile(manifestPath, m.JSON(), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(*doc, []byte(newDoc), 0o644); err != nil {
		return err
	}
	if err := writeFigures(figDir, figs, missing, stale, stdout); err != nil {
		return err
	}
	for _, e := range entries {
		seeds := ""
		if e.Extra() {
			seeds = fmt.Sprintf(" (seeds %v)", e.Seeds)
		}
		fmt.Fprintf(stdout, "%-13s %-17s %4d of %4d runs, %.2f h%s\n", e.Table, e.Preset, e.Recorded, e.Expected, e.WallSeconds/3600, seeds)
	}
	fmt.Fprintf(stdout, "wrote %s and the generated blocks of %s\n", manifestPath, *doc)
	return nil
}

// figureDrift compares figDir with the figures the document links: missing
// are the linked files absent there, stale the files there that this command
// wrote for other data (only names of its own pattern count).
func figureDrift(figDir string, figs []reproduction.Figure) (missing, stale []string, err error) {
	want := map[string]bool{}
	for _, f := range figs {
		want[f.Name] = true
		if _, err := os.Stat(filepath.Join(figDir, f.Name)); errors.Is(err, fs.ErrNotExist) {
			missing = append(missing, f.Name)
		} else if err != nil {
			return nil, nil, err
		}
	}
	des, err := os.ReadDir(figDir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, nil, fmt.Errorf("figures folder: %w", err)
	}
	for _, d := range des {
		if !d.IsDir() && reproduction.IsFigureFile(d.Name()) && !want[d.Name()] {
			stale = append(stale, d.Name())
		}
	}
	return missing, stale, nil
}

// writeFigures draws every figure and writes those missing from figDir or
// whose file holds other bytes, and removes the stale ones (figures of
// records since replaced). A figure's name holds the hash of its data, not
// of the drawing code: redrawing them all is how a change to the drawing
// reaches the committed figures.
func writeFigures(figDir string, figs []reproduction.Figure, missing, stale []string, stdout io.Writer) error {
	for _, f := range figs {
		fig, err := f.Draw()
		if err != nil {
			return fmt.Errorf("figure of %s under %s: %w", f.Table, f.Preset, err)
		}
		path := filepath.Join(figDir, f.Name)
		w, h := fig.Size()
		data, err := fig.Encode(path, w, h)
		if err != nil {
			return fmt.Errorf("figure of %s under %s: %w", f.Table, f.Preset, err)
		}
		old, err := os.ReadFile(path)
		if err == nil && bytes.Equal(old, data) {
			continue
		}
		if err := fig.Save(path, w, h); err != nil {
			return err
		}
		verb := "redrew"
		if slices.Contains(missing, f.Name) {
			verb = "wrote"
		}
		fmt.Fprintf(stdout, "%s %s\n", verb, path)
	}
	for _, name := range stale {
		if err := os.Remove(filepath.Join(figDir, name)); err != nil {
			return fmt.Errorf("removing the stale figure: %w", err)
		}
		fmt.Fprintf(stdout, "removed the stale figure %s\n", filepath.Join(figDir, name))
	}
	return nil
}
