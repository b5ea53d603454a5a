// Package notebook shows figures and Markdown inline in a GoNB notebook
// (or prints them, or saves the figure, outside one; Name.Show): the display that
// experiments/reproduce and a notebook's own cells share, without the
// experiments tree.
//
// Every output carries a mark in its metadata (MarkKey), which
// notebooks/check_outputs.py checks against the `// expect:` lines of a
// cell: "figure NAME", "markdown", or "missing " and the mark of an output
// replaced by the line saying why it is not shown.
package notebook

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/janpfeifer/gonb/gonbui"
	"github.com/janpfeifer/gonb/gonbui/protocol"

	"github.com/softshape-go/softshape/plots"
)

// MarkKey is the key, in the metadata of each output shown here, of the
// output's mark: what it is ("table sparse_ratio", "figure
// sparse_ratio_sweep", "markdown", "env-help", "panel"), or, for a line
// shown in its place, "missing " and that mark (Missing). A notebook cell
// declares the marks it must show in lines "// expect: table sparse_ratio,
// figure" ("// expect-full:" and "// expect-quick:" for one mode; "missing
// figure x" for the line), and notebooks/check_outputs.py fails the
// executed notebook when one is missing: an output replaced by its line
// does not count as shown.
const MarkKey = "softshape"

// The marks of a figure and of Markdown (MarkKey); a figure's carries its
// name too.
const (
	MarkFigure   = "figure"
	MarkMarkdown = "markdown"
)

// Missing is the mark of a line shown in place of the output marked mark:
// "missing figure main_cd".
func Missing(mark string) string { return "missing " + mark }

// deliveryWait bounds how long Send waits for GoNB to confirm that the
// output reached Jupyter; it takes milliseconds normally.
const deliveryWait = 20 * time.Second

// Send shows content as MIME type mime in a notebook, marked with mark
// (MarkKey; "" for none) and replacing the output displayID (when not ""),
// then waits until GoNB has published it to Jupyter; outside a notebook it
// does nothing.
//
// The wait is what keeps outputs from vanishing: GoNB reads display data from
// a named pipe in its own goroutine and ends the cell when the program's
// stdout and stderr close, without draining that pipe, so data the program
// wrote just before exiting could be published after the cell had finished —
// and then be dropped by nbconvert (and by Jupyter's front end) — or not at
// all. gonbui.Sync sends a request through the same pipe, which GoNB
// acknowledges only after publishing everything sent before it.
func Send(mark, displayID string, mime protocol.MIMEType, content any) {
	if !gonbui.IsNotebook {
		return
	}
	d := &protocol.DisplayData{Data: map[protocol.MIMEType]any{mime: content}, DisplayID: displayID}
	if mark != "" {
		d.Metadata = map[string]any{MarkKey: mark}
	}
	gonbui.SendData(d)
	delivered := make(chan struct{})
	go func() {
		gonbui.Sync()
		close(delivered)
	}()
	select {
	case <-delivered:
	case <-time.After(deliveryWait):
		fmt.Fprintf(os.Stderr, "softshape: GoNB did not confirm within %s that an output (%s) reached Jupyter; it may be missing (gonbui error: %v)\n",
			deliveryWait, cmp.Or(mark, string(mime)), gonbui.Error())
	}
}

// Markdown shows md inline in a notebook, marked "markdown", or prints it.
func Markdown(md string) { MarkdownAs(MarkMarkdown, md) }

// Markdownf is Markdown with fmt.Sprintf.
func Markdownf(format string, args ...any) { Markdown(fmt.Sprintf(format, args...)) }

// MarkdownAs is Markdown marked mark.
func MarkdownAs(mark, md string) {
	if gonbui.IsNotebook {
		Send(mark, "", protocol.MIMETextMarkdown, md)
		return
	}
	fmt.Println(md)
}

// Line returns s as one line of Markdown table text: newlines become
// spaces, vertical bars are escaped.
func Line(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\n", " "), "|", "\\|")
}

// Name is the name of a figure that Show shows: its mark is
// "figure <name>".
type Name string

// Show shows a figure inline in a notebook, marked "figure <name>", or,
// outside one, saves it as <name>.png in the system's temporary folder and
// prints the path (ShowFigure). A nil figure shows err instead, in one line
// marked "missing figure <name>". It takes a figure function's results as
// they come:
//
//	notebook.Name("curves").Show(modelplots.TrainingCurves(meta, result, warmUp))
func (n Name) Show(f *plots.Figure, err error) {
	ShowFigure(filepath.Join(os.TempDir(), "softshape-figures"), string(n), f, err)
}

// ShowFigure is Name(name).Show that saves the figure, outside a notebook,
// as <dir>/<name>.png.
func ShowFigure(dir, name string, f *plots.Figure, err error) {
	mark := MarkFigure + " " + name
	if err != nil || f == nil {
		MarkdownAs(Missing(mark), fmt.Sprintf("*Figure %s not drawn: %s*", name, Line(fmt.Sprint(err))))
		return
	}
	var show func([]byte) // nil: saved to a file instead
	if gonbui.IsNotebook {
		show = func(png []byte) { Send(mark, "", protocol.MIMEImagePNG, png) }
	}
	path, err := f.Display(filepath.Join(dir, name+".png"), show)
	if err != nil {
		MarkdownAs(Missing(mark), fmt.Sprintf("*Figure %s: %s*", name, Line(err.Error())))
		return
	}
	if path != "" {
		fmt.Println("figure saved to", path)
	}
}
