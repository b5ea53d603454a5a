package reproduction

import "path/filepath"

// ModelsDir is the folder of saved models under a results or reproduction
// folder dir: <dir>/models/<dataset slug>/fold<F>-seed<S>-<config hash>/,
// each holding the GoMLX checkpoint of the selected model (checkpoint/) and
// the fold's result with its epoch history (result.json). The reproduction
// commits the fold-1 models behind the interpretability figures (paper Figs
// 4–5 and 9–12): reference_fresh runs at the full protocol, the same
// computation as the fold-1 records of the committed tables.
func ModelsDir(dir string) string { return filepath.Join(dir, "models") }

// ModelSettings are the settings of the committed models: fold 1 is the
// same computation under both presets, and reference_fresh is the preset to
// report.
const ModelSettings = "protocol=reference_fresh"
