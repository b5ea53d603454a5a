package main

import (
	"fmt"
	"strings"

	"github.com/softshape-go/softshape/softshape"
)

// The settings' help: the text of -set help and the settings table of
// docs/settings.md, both written from softshape.Settings, the one
// description of each setting.

// settingsHelp lists every setting with its default, symbol, description and
// allowed values, then the protocol presets (the text of -set help).
func settingsHelp() string {
	var b strings.Builder
	d := softshape.DefaultConfig()
	for _, s := range softshape.Settings() {
		sym := ""
		if s.Symbol != "" {
			sym = " [" + s.Symbol + "]"
		}
		fmt.Fprintf(&b, "%s=%v%s\n    %s", s.Name, s.Value(d), sym, s.Doc)
		if s.Allowed != nil {
			fmt.Fprintf(&b, " (one of %s)", strings.Join(s.Allowed, ", "))
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "\nProtocol presets (%s=NAME, applied before the other settings; %s=true is %s=%s):\n%s",
		softshape.ParamProtocol, softshape.ParamReferenceCompat, softshape.ParamProtocol, softshape.ProtocolReferenceCompat, presetsHelp())
	return b.String()
}

// presetsHelp describes every preset with its switch values, one per line, in
// the settings syntax ("protocol=reference_fresh: ... (fold_reset=fresh; ...)").
func presetsHelp() string {
	var b strings.Builder
	for _, np := range softshape.PresetNames() {
		p, err := softshape.Preset(np[0])
		if err != nil {
			panic(err) // PresetNames lists the presets Preset knows
		}
		c := softshape.Config{}.WithProtocol(p)
		fmt.Fprintf(&b, "%s=%s: %s\n    %s=%s;%s=%s;%s=%s;%s=%t;%s=%s;%s=%s\n", softshape.ParamProtocol, np[0], np[1],
			softshape.ParamFoldReset, c.FoldReset, softshape.ParamEvalPath, c.EvalPath, softshape.ParamBatchRule, c.BatchRule,
			softshape.ParamShuffle, c.Shuffle, softshape.ParamSelectionStat, c.SelectionStat, softshape.ParamSelectionWindow, c.SelectionWindow)
	}
	return b.String()
}

// settingsMarkdown is the settings table of docs/settings.md: one row per
// setting with its symbol, default, allowed values and description, and a
// last row for the protocol presets (whose links are relative to docs/).
func settingsMarkdown() string {
	var b strings.Builder
	d := softshape.DefaultConfig()
	b.WriteString("| setting | paper | default | values | meaning |\n|---|---|---|---|---|\n")
	for _, s := range softshape.Settings() {
		def := fmt.Sprint(s.Value(d))
		if def == "" {
			def = "(empty)"
		}
		vals := ""
		if s.Allowed != nil {
			vals = "`" + strings.Join(s.Allowed, "`, `") + "`"
		}
		fmt.Fprintf(&b, "| `%s` | %s | `%s` | %s | %s |\n", s.Name, s.Symbol, def, vals, s.Doc)
	}
	fmt.Fprintf(&b, "| `%s` | | `%s` | `%s`, `%s`, `%s` | a preset of the protocol switches (see [protocol.md](protocol.md)); `%s=true` is `%s=%s` |\n",
		softshape.ParamProtocol, softshape.ProtocolDefault, softshape.ProtocolDefault, softshape.ProtocolReferenceCompat, softshape.ProtocolReferenceFresh,
		softshape.ParamReferenceCompat, softshape.ParamProtocol, softshape.ProtocolReferenceCompat)
	return b.String()
}
