//go:build unix

package reproduce

import (
	"bytes"
	"encoding/gob"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/janpfeifer/gonb/gonbui/protocol"
)

// displayChildEnv makes TestDisplayWaitsForDelivery's child process show
// things instead of testing.
const displayChildEnv = "SOFTSHAPE_TEST_DISPLAY_CHILD"

// TestDisplayWaitsForDelivery plays GoNB's side of the named pipes for a
// child process (this test binary) that shows a Markdown text, a figure that
// could not be drawn and a table: each output must arrive with its mark
// (MarkKey), each must be followed by a sync request, and the child must not
// exit before that request is acknowledged — an output the program wrote
// just before exiting was what GoNB could publish after the cell had ended,
// where nbconvert and Jupyter drop it.
func TestDisplayWaitsForDelivery(t *testing.T) {
	if os.Getenv(displayChildEnv) == "1" {
		Markdown("hello")
		ShowFigure(t.TempDir(), "demo", nil, errors.New("no data"))
		showTable("t", "| a |\n|---|\n| 1 |")
		return
	}
	dir := t.TempDir()
	toKernel, toProgram := filepath.Join(dir, "gonb_pipe"), filepath.Join(dir, "gonb_pipe_back")
	for _, p := range []string{toKernel, toProgram} {
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Fatalf("mkfifo %s: %v", p, err)
		}
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestDisplayWaitsForDelivery$", "-test.count=1")
	cmd.Env = append(os.Environ(), displayChildEnv+"=1",
		protocol.GONB_PIPE_ENV+"="+toKernel, protocol.GONB_PIPE_BACK_ENV+"="+toProgram)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	// Open the pipes as GoNB does (each open blocks until the child opens
	// the other end).
	type pipes struct{ r, w *os.File }
	opened := make(chan pipes, 1)
	go func() {
		r, err := os.Open(toKernel)
		if err != nil {
			t.Errorf("open %s: %v", toKernel, err)
		}
		w, err := os.OpenFile(toProgram, os.O_WRONLY, 0)
		if err != nil {
			t.Errorf("open %s: %v", toProgram, err)
		}
		opened <- pipes{r, w}
	}()
	var p pipes
	select {
	case p = <-opened:
	case err := <-exited:
		t.Fatalf("child exited (%v) before opening GoNB's pipes; output:\n%s", err, out.String())
	}
	if p.r == nil || p.w == nil {
		t.FailNow()
	}
	defer p.r.Close()
	defer p.w.Close()
	dec, enc := gob.NewDecoder(p.r), gob.NewEncoder(p.w)

	for i, want := range []struct {
		mark string
		mime protocol.MIMEType
	}{
		{"markdown", protocol.MIMETextMarkdown},
		{"missing figure demo", protocol.MIMETextMarkdown}, // the reason it was not drawn
		{"", protocol.MIMETextHTML},                        // the table's style sheet
		{"table t", protocol.MIMETextMarkdown},
	} {
		var d protocol.DisplayData
		if err := dec.Decode(&d); err != nil {
			t.Fatalf("output %d (%q): %v; child output:\n%s", i, want.mark, err, out.String())
		}
		if _, ok := d.Data[want.mime]; !ok || len(d.Data) != 1 {
			t.Errorf("output %d: MIME types %v, want %s", i, keys(d.Data), want.mime)
		}
		if got, _ := d.Metadata[MarkKey].(string); got != want.mark {
			t.Errorf("output %d: mark %q, want %q", i, got, want.mark)
		}

		var req protocol.DisplayData
		if err := dec.Decode(&req); err != nil {
			t.Fatalf("after output %d (%q): no sync request (%v): the program does not wait for its outputs to be delivered", i, want.mark, err)
		}
		var sync protocol.CommValue
		switch v := req.Data[protocol.MIMECommValue].(type) {
		case protocol.CommValue:
			sync = v
		case *protocol.CommValue:
			sync = *v
		}
		if sync.Address != protocol.GonbuiSyncAddress {
			t.Fatalf("after output %d (%q): got %v, want a sync request (%s)", i, want.mark, req.Data, protocol.GonbuiSyncAddress)
		}
		// Unacknowledged, the child must keep waiting.
		select {
		case err := <-exited:
			t.Fatalf("after output %d (%q): the child exited (%v) before its sync request was acknowledged", i, want.mark, err)
		case <-time.After(200 * time.Millisecond):
		}
		if err := enc.Encode(&protocol.CommValue{Address: protocol.GonbuiSyncAckAddress, Value: sync.Value}); err != nil {
			t.Fatalf("ack %d: %v", i, err)
		}
	}
	var extra protocol.DisplayData
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		t.Errorf("after the last output: got %v (%v), want the end of the pipe", extra.Data, err)
	}
	// A child that never exits hangs the test until go test's -timeout.
	if err := <-exited; err != nil {
		t.Fatalf("child: %v; output:\n%s", err, out.String())
	}
}

func keys[K comparable, V any](m map[K]V) []K {
	var out []K
	for k := range m {
		out = append(out, k)
	}
	return out
}
