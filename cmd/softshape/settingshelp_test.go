package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The markers around the generated settings table of docs/settings.md.
const (
	settingsDocBegin = "<!-- BEGIN GENERATED settings table: cmd/softshape settingsMarkdown(), kept equal by TestSettingsDoc -->\n"
	settingsDocEnd   = "<!-- END GENERATED settings table -->"
)

// writeDocs makes TestSettingsDoc rewrite the settings table of
// docs/settings.md instead of comparing it.
var writeDocs = flag.Bool("write-docs", false, "TestSettingsDoc rewrites the settings table of docs/settings.md")

// TestSettingsDoc: the settings table of docs/settings.md, the one place
// the docs describe each setting, is settingsMarkdown, so it cannot drift
// from the settings. With -write-docs the test rewrites it instead:
//
//	go test -run TestSettingsDoc ./cmd/softshape/ -args -write-docs
func TestSettingsDoc(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "settings.md")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i, j := strings.Index(doc, settingsDocBegin), strings.Index(doc, settingsDocEnd)
	if i < 0 || j < i {
		t.Fatalf("%s has no generated settings table (%q … %q)", path, settingsDocBegin, settingsDocEnd)
	}
	have, want := doc[i+len(settingsDocBegin):j], settingsMarkdown()
	if have == want {
		return
	}
	if *writeDocs {
		if err := os.WriteFile(path, []byte(doc[:i+len(settingsDocBegin)]+want+doc[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s's settings table differs from settingsMarkdown(); run go test -run TestSettingsDoc ./cmd/softshape/ -args -write-docs", path)
}

// TestProtocolDocPresets: docs/protocol.md shows the presets as -set help
// prints them (presetsHelp), switch by switch.
func TestProtocolDocPresets(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "protocol.md")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "```text\n"+presetsHelp()+"```\n") {
		t.Errorf("%s does not show the presets as -set help prints them:\n%s", path, presetsHelp())
	}
}

// TestSettingsHelp: -set help gives each setting's default and paper symbol,
// an enumerated setting's values and the presets.
func TestSettingsHelp(t *testing.T) {
	help := settingsHelp()
	for _, w := range []string{"sparse_ratio=0.5 [1−η]", "one of fresh, carry", "protocol=reference_fresh: the authors' code minus the fold leak"} {
		if !strings.Contains(help, w) {
			t.Errorf("settingsHelp lacks %q", w)
		}
	}
}
