package reproduce

import (
	"encoding/base64"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/janpfeifer/gonb/gonbui"
	"github.com/janpfeifer/gonb/gonbui/protocol"

	"github.com/softshape-go/softshape/plots"
	"github.com/softshape-go/softshape/plots/notebook"
)

// MarkKey is the key, in the metadata of each output this package shows in
// a notebook, of the output's mark (notebook.MarkKey, where the marks are
// described): notebooks/check_outputs.py checks them against each cell's
// `// expect:` lines.
const MarkKey = notebook.MarkKey

// The kinds of marks (MarkKey); tables and figures carry their name too.
const (
	markTable    = "table"
	markFigure   = notebook.MarkFigure
	markMarkdown = notebook.MarkMarkdown
	markEnvHelp  = "env-help"
	markPanel    = "panel"
)

// missingMark is the mark of a line shown in place of the output marked
// mark: "missing figure main_cd" (notebook.Missing).
func missingMark(mark string) string { return notebook.Missing(mark) }

// display is the one way this package shows something in a notebook
// (notebook.Send).
func display(mark, displayID string, mime protocol.MIMEType, content any) {
	notebook.Send(mark, displayID, mime, content)
}

// displayHTML shows HTML (display).
func displayHTML(mark, html string) { display(mark, "", protocol.MIMETextHTML, html) }

// updateHTML shows HTML in the output block id, replacing what it showed
// before (display; gonbui.UpdateHTML).
func updateHTML(mark, id, html string) { display(mark, id, protocol.MIMETextHTML, html) }

// mdLine keeps a text on one Markdown line (notebook.Line).
func mdLine(s string) string { return notebook.Line(s) }

// FigureDir is where figures go when the program does not run in a
// notebook (Show, ShowFigure): <Results>/figures.
func (p Params) FigureDir() string { return filepath.Join(p.Results, "figures") }

// Markdown shows md inline in a GoNB notebook, or prints it.
func Markdown(md string) { notebook.Markdown(md) }

// markdownAs is Markdown with the output's mark (MarkKey).
func markdownAs(mark, md string) { notebook.MarkdownAs(mark, md) }

// Markdownf is Markdown with fmt.Sprintf.
func Markdownf(format string, args ...any) { Markdown(fmt.Sprintf(format, args...)) }

// ShowFigure shows a figure inline in a GoNB notebook, or saves it as
// <dir>/<name>.png and prints the path. A nil figure shows err instead.
// The figure is marked "figure <name>" (MarkKey), the reason it is not
// drawn "missing figure <name>" (notebook.ShowFigure).
func ShowFigure(dir, name string, f *plots.Figure, err error) { notebook.ShowFigure(dir, name, f, err) }

// Show shows the table (Markdown) and its standard figures.
func (r *TableResult) Show() {
	r.ShowTable()
	r.ShowFigures()
}

// ShowTable shows the table's Markdown, marked "table <name>" (MarkKey).
func (r *TableResult) ShowTable() { showTable(r.Name, r.Markdown()) }

// showTable shows a table's Markdown md, after tableStyle, marked
// "table <name>".
func showTable(name, md string) {
	tableStyle()
	markdownAs(markTable+" "+name, md)
}

// tableCSS keeps wide tables readable in Jupyter (Notebook 6 and Lab) and
// in nbconvert's HTML export: text wraps to the page, a wide table gets its
// own horizontal scroll bar instead of widening (and clipping) the whole
// output, smaller type, and row labels that do not wrap into tall rows.
const tableCSS = `<style>
.jp-OutputArea-child { display: flex !important; }
.jp-OutputArea-output { display: block !important; min-width: 0; flex: 1 1 auto; overflow-x: auto; }
.output_subarea { min-width: 0; }
.rendered_html table, .jp-RenderedHTMLCommon table { font-size: 12px; display: block; overflow-x: auto; max-width: 100%; }
.rendered_html td:first-child, .jp-RenderedHTMLCommon td:first-child { min-width: 13em; }
</style>`

// tableStyle emits tableCSS once per cell, inside a notebook.
func tableStyle() {
	if gonbui.IsNotebook && !styled {
		styled = true
		displayHTML("", tableCSS)
	}
}

var styled bool

// ShowFigures shows the standard figures (Figures).
func (r *TableResult) ShowFigures() {
	for _, n := range r.Figures() {
		ShowFigure(r.Params.FigureDir(), n.Name, n.Figure, n.Err)
	}
}

// imgHTML returns an <img> tag with the PNG embedded.
func imgHTML(png []byte, width int) string {
	return fmt.Sprintf(`<img width="%d" src="data:image/png;base64,%s"/>`, width, base64.StdEncoding.EncodeToString(png))
}

// headless reports whether interactive cells must not wait for a person:
// $SOFTSHAPE_HEADLESS is set to a true value, or the program does not run in
// a notebook.
func headless() bool {
	if !gonbui.IsNotebook {
		return true
	}
	v := strings.ToLower(strings.TrimSpace(os.Getenv(EnvHeadless)))
	return v != "" && v != "0" && v != "false"
}

// liveLog is an io.Writer for the runner's log inside a notebook: instead of
// one output line per run it keeps one live-updated block with the number of
// lines and the last few of them.
type liveLog struct {
	id    string
	n     int
	last  []string
	start time.Time
}

func newLiveLog() *liveLog { return &liveLog{id: gonbui.UniqueId(), start: time.Now()} }

func (l *liveLog) Write(b []byte) (int, error) {
	for _, line := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		l.n++
		l.last = append(l.last, line)
		if len(l.last) > 4 {
			l.last = l.last[1:]
		}
	}
	updateHTML("", l.id, fmt.Sprintf("<pre style=\"font-size:11px\">training log: %d lines in %.0f s; the last ones:\n%s</pre>",
		l.n, time.Since(l.start).Seconds(), html.EscapeString(strings.Join(l.last, "\n"))))
	return len(b), nil
}

// ShowEnvHelp lists the environment variables of the notebooks (EnvVars,
// as EnvHelp): inside a notebook as a folded table under the parameter
// cell, else printed.
func ShowEnvHelp() {
	if !gonbui.IsNotebook {
		fmt.Print(EnvHelp())
		return
	}
	var b strings.Builder
	b.WriteString("<details><summary>Environment variables override the parameters (how CI runs this notebook headless)</summary>\n<table>\n")
	b.WriteString("<tr><th>variable</th><th>example</th><th>what it does</th><th>now</th></tr>\n")
	for _, e := range envVars {
		now := ""
		if v := strings.TrimSpace(os.Getenv(e.Name)); v != "" {
			now = "<code>" + html.EscapeString(v) + "</code>"
		}
		fmt.Fprintf(&b, "<tr><td><code>%s</code></td><td><code>%s</code></td><td>%s</td><td>%s</td></tr>\n",
			html.EscapeString(e.Name), html.EscapeString(e.Example), html.EscapeString(e.Help), now)
	}
	b.WriteString("</table></details>")
	displayHTML(markEnvHelp, b.String())
}
