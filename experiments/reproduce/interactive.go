package reproduce

import (
	"fmt"
	"html"
	"time"

	"github.com/janpfeifer/gonb/gonbui"
	"github.com/janpfeifer/gonb/gonbui/widgets"
)

// FrontEndWait is how long Slider waits for the browser to answer before it
// concludes that nobody is looking (e.g. nbconvert) and returns.
var FrontEndWait = 15 * time.Second

// Slider is the interactive panel of a notebook: a slider from min to max
// (step 1) labelled label, and below it the HTML that render returns for the
// value picked, redrawn on every change. render is called once for value
// first. Slider returns when no value was picked for idle, and at once after
// the first render when headless ($SOFTSHAPE_HEADLESS set, or not inside a
// notebook) or when no browser answers within FrontEndWait — so a headless
// run never blocks.
//
// The label and the slider live in a transient panel (as GoNB's own widget
// examples do with dom.CreateTransientDiv): the slider is inserted by
// JavaScript, which saved notebooks and HTML exports do not keep, and the
// panel is emptied when Slider returns, so no dead control is left behind;
// the rendered HTML stays.
func Slider(label string, min, max, value int, idle time.Duration, render func(v int) string) {
	first := render(value)
	if headless() {
		Markdownf("*Interactive panel “%s”: headless run, shown for the default value %d only. Open the notebook in Jupyter to move the slider.*", label, value)
		if gonbui.IsNotebook {
			displayHTML(markPanel, first)
		} else {
			fmt.Println(first)
		}
		return
	}
	panel := newTransientPanel(fmt.Sprintf("<b>%s</b> (%d … %d; the panel stops listening after %s without a change)", html.EscapeString(label), min, max, idle))
	defer panel.close()
	ready := make(chan *widgets.SliderBuilder, 1)
	go func() { ready <- widgets.Slider(min, max, value).AppendTo(panel.id).Done() }()
	out := gonbui.UniqueId()
	updateHTML(markPanel, out, first)
	var s *widgets.SliderBuilder
	select {
	case s = <-ready:
	case <-time.After(FrontEndWait):
		updateHTML(markPanel, out, first+fmt.Sprintf("<p><i>No browser answered within %s: slider disabled (headless run).</i></p>", FrontEndWait))
		return
	}
	ch := s.Listen().LatestOnly()
	defer ch.Close()
	current := first
	for {
		select {
		case v := <-ch.C:
			updateHTML(markPanel, out, current+fmt.Sprintf("<p><i>computing for %d …</i></p>", v))
			current = render(v)
			updateHTML(markPanel, out, current)
		case <-time.After(idle):
			updateHTML(markPanel, out, current+fmt.Sprintf("<p><i>Slider idle for %s: panel closed (re-run the cell to use it again).</i></p>", idle))
			return
		}
	}
}

// transientPanel is a <div> shown through updateHTML, so that it can be
// emptied again (dom.CreateTransientDiv, which does not say how to remove it).
type transientPanel struct{ id, displayID string }

// newTransientPanel shows a panel holding header; controls go inside it by
// its id.
func newTransientPanel(header string) transientPanel {
	uid := gonbui.UniqueId()
	p := transientPanel{id: "softshape_panel_" + uid, displayID: "softshape_panel_display_" + uid}
	updateHTML("", p.displayID, fmt.Sprintf(`<div id="%s">%s</div>`, p.id, header))
	return p
}

// close empties the panel, controls included.
func (p transientPanel) close() { updateHTML("", p.displayID, "") }
