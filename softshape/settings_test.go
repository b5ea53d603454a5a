package softshape

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// README's markers around the generated hyperparameter table.
const (
	readmeBegin = "<!-- BEGIN GENERATED settings table: softshape.SettingsMarkdown(), kept equal by TestREADMESettingsTable -->\n"
	readmeEnd   = "<!-- END GENERATED settings table -->"
)

// TestREADMESettingsTable: README's hyperparameter table is SettingsMarkdown,
// so the README cannot drift from the settings. With SOFTSHAPE_WRITE_README=1
// the test rewrites it instead.
func TestREADMESettingsTable(t *testing.T) {
	path := filepath.Join("..", "README.md")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i, j := strings.Index(doc, readmeBegin), strings.Index(doc, readmeEnd)
	if i < 0 || j < i {
		t.Fatalf("README.md has no generated settings table (%q … %q)", readmeBegin, readmeEnd)
	}
	have, want := doc[i+len(readmeBegin):j], SettingsMarkdown()
	if have == want {
		return
	}
	if os.Getenv("SOFTSHAPE_WRITE_README") == "1" {
		if err := os.WriteFile(path, []byte(doc[:i+len(readmeBegin)]+want+doc[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("README.md's settings table differs from SettingsMarkdown(); run SOFTSHAPE_WRITE_README=1 go test -run TestREADMESettingsTable ./softshape/")
}

// TestSettingsTable: every Config field is a setting exactly once, the
// enumerated ones reject other values by name, and the string form is the one
// the run hashes were made with.
func TestSettingsTable(t *testing.T) {
	seen := map[string]bool{}
	var c Config
	fields := map[any]bool{}
	for _, s := range Settings() {
		if seen[s.Name] || s.Doc == "" {
			t.Errorf("setting %q repeated or undocumented", s.Name)
		}
		seen[s.Name] = true
		fields[s.field(&c)] = true
		if s.Allowed != nil {
			cfg := DefaultConfig()
			*s.field(&cfg).(*string) = "nonsense"
			if _, err := cfg.Resolve(128, 3, 0); err == nil || !strings.Contains(err.Error(), s.Name+`="nonsense": want one of `+strings.Join(s.Allowed, ", ")) {
				t.Errorf("%s=nonsense: %v", s.Name, err)
			}
		}
	}
	if len(fields) != len(Settings()) {
		t.Errorf("%d settings point at %d distinct fields", len(Settings()), len(fields))
	}
	// The string form is part of every run's configuration hash: this is
	// DefaultConfig().String() as the committed records have it.
	want := "sparse_ratio=0.5;experts_k=1;num_experts=C;stride=auto;depth=2;shape_length=0;shape_length_ratio=0;" +
		"embed_dim=128;attn_dim=8;dropout=0.15;moe_loss_weight=0.001;inception_kernel=40;sparsify_schedule=reference;" +
		"moe_layers=sparse;fused_token=true;intra=true;inter=true;shape_embed=conv;moe_expert=mlp;shared_expert=inception;" +
		"multi_seq=;warmup_epochs=150;epochs=500;learning_rate=0.001;patience=80;fold_reset=fresh;eval_path=phase;" +
		"batch_rule=paper;shuffle=true;selection_stat=mean;selection_window=post_warmup"
	if got := DefaultConfig().String(); got != want {
		t.Errorf("DefaultConfig().String() changed (it is hashed into every run's key):\n got %s\nwant %s", got, want)
	}
	help := SettingsHelp()
	for _, w := range []string{"sparse_ratio=0.5 [η]", "one of fresh, carry", "protocol=reference_fresh: the authors' code minus the fold leak"} {
		if !strings.Contains(help, w) {
			t.Errorf("SettingsHelp lacks %q", w)
		}
	}
}
