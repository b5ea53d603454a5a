package softshape

import (
	"strings"
	"testing"
)

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
}

// TestSettingGivenTwice: a setting given twice in one string is an error
// naming it and both values (so is the protocol preset chosen by both of its
// names), whether the string is read by SettingNames or by WithSettings;
// JoinSettings lets one string's settings replace another's.
func TestSettingGivenTwice(t *testing.T) {
	for _, c := range []struct{ settings, want string }{
		{"sparse_ratio=0.3;sparse_ratio=0.7", "sparse_ratio is given twice (sparse_ratio=0.3 and sparse_ratio=0.7)"},
		{"epochs=100; depth=2 ;epochs=3", "epochs is given twice (epochs=100 and epochs=3)"},
		{"model/epochs=1;epochs=2", "epochs is given twice (model/epochs=1 and epochs=2)"},
		{"protocol=reference_fresh;reference_compat=true", "protocol is given twice (protocol=reference_fresh and reference_compat=true)"},
	} {
		if _, err := SettingNames(c.settings); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("SettingNames(%q): %v, want %q", c.settings, err, c.want)
		}
		if _, err := DefaultConfig().WithSettings(c.settings); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("WithSettings(%q): %v, want %q", c.settings, err, c.want)
		}
	}
	names, err := SettingNames("epochs=3;;depth=2;")
	if err != nil || strings.Join(names, ",") != "epochs,depth" {
		t.Errorf("SettingNames: %v, %v; want epochs, depth", names, err)
	}

	joined := JoinSettings("epochs=4;warmup_epochs=2;embed_dim=32", "epochs=8; sparse_ratio=0.3")
	if want := "warmup_epochs=2;embed_dim=32;epochs=8;sparse_ratio=0.3"; joined != want {
		t.Errorf("JoinSettings: %q, want %q", joined, want)
	}
	cfg, err := DefaultConfig().WithSettings(joined)
	if err != nil || cfg.Epochs != 8 || cfg.WarmUpEpochs != 2 || cfg.SparseRatio != 0.3 {
		t.Errorf("joined settings: %v, epochs %d, warm-up %d, η %g", err, cfg.Epochs, cfg.WarmUpEpochs, cfg.SparseRatio)
	}
	if got := JoinSettings("", "epochs=2"); got != "epochs=2" {
		t.Errorf("JoinSettings onto nothing: %q", got)
	}
}
