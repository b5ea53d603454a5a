package sweep

import (
	"strings"
	"testing"

	"github.com/softshape-go/softshape/softshape"
)

// schema1Default is Config.String of DefaultConfig as the code of key schema 1
// wrote it (commit 013978b), byte for byte: the key string of every run of
// the default configuration, whatever settings are added later.
const schema1Default = "sparse_ratio=0.5;experts_k=1;num_experts=C;stride=auto;depth=2;shape_length=0;" +
	"shape_length_ratio=0;embed_dim=128;attn_dim=8;dropout=0.15;moe_loss_weight=0.001;inception_kernel=40;" +
	"sparsify_schedule=reference;moe_layers=sparse;fused_token=true;intra=true;inter=true;shape_embed=conv;" +
	"moe_expert=mlp;shared_expert=inception;multi_seq=;warmup_epochs=150;epochs=500;learning_rate=0.001;" +
	"patience=80;fold_reset=fresh;eval_path=phase;batch_rule=paper;shuffle=true;selection_stat=mean;" +
	"selection_window=post_warmup"

// TestKeyStringIsSchema1String: the key string of the default configuration
// is schema 1's Config.String, and a configuration that changes settings of
// schema 1 (one, several, a protocol preset, Multi-Seq) has that string with
// those values replaced.
func TestKeyStringIsSchema1String(t *testing.T) {
	if got := configKeyString(softshape.DefaultConfig()); got != schema1Default {
		t.Fatalf("default key string\n%s\nwant\n%s", got, schema1Default)
	}
	for _, tc := range []struct {
		settings string
		replace  []string // old, new, old, new...
	}{
		{"depth=3", []string{"depth=2", "depth=3"}},
		{"multi_seq=8,16,32;learning_rate=0.0005", []string{"multi_seq=;", "multi_seq=8,16,32;", "learning_rate=0.001", "learning_rate=0.0005"}},
		{"protocol=reference_compat", []string{"fold_reset=fresh", "fold_reset=carry", "eval_path=phase", "eval_path=sparse",
			"batch_rule=paper", "batch_rule=large", "shuffle=true", "shuffle=false", "selection_stat=mean", "selection_stat=batch_scaled",
			"selection_window=post_warmup", "selection_window=all"}},
	} {
		cfg, err := softshape.DefaultConfig().WithSettings(tc.settings)
		if err != nil {
			t.Fatal(err)
		}
		want := strings.NewReplacer(tc.replace...).Replace(schema1Default)
		if got := configKeyString(cfg); got != want {
			t.Errorf("%s: key string\n%s\nwant\n%s", tc.settings, got, want)
		}
	}
}

// TestRunKeySchemaCoversSettings: every setting is in the key schema once,
// so none can be added without deciding its baseline.
func TestRunKeySchemaCoversSettings(t *testing.T) {
	s := RunKeySchema()
	seen := map[string]int{}
	for _, ks := range append(s.Fixed, s.Added...) {
		seen[ks.Name]++
	}
	for name, n := range seen {
		if n > 1 {
			t.Errorf("%s is %d times in the key schema", name, n)
		}
	}
	for _, st := range softshape.Settings() {
		if seen[st.Name] == 0 {
			t.Errorf("setting %s is not in the run key schema: append it to keyAdded with its default as baseline", st.Name)
		}
	}
}

// TestKeyStringAddedSetting: with a made-up setting added at baseline 0, a
// configuration string that names it at 0 (the new Config.String) or not at
// all (a record written before it) keeps schema 1's key string; another value
// is written after the schema version, added settings in schema order; a
// schema-1 setting removed from the string is keyed with its baseline.
func TestKeyStringAddedSetting(t *testing.T) {
	s := RunKeySchema()
	s.Added = append(s.Added, KeySetting{"made_up", "0"}, KeySetting{"made_up_too", "off"})
	for config, want := range map[string]string{
		schema1Default: schema1Default,
		schema1Default + ";made_up=0;made_up_too=off":                               schema1Default,
		schema1Default + ";made_up=1;made_up_too=off":                               schema1Default + "\nschema=2;made_up=1",
		schema1Default + ";made_up_too=on;made_up=1":                                schema1Default + "\nschema=2;made_up=1;made_up_too=on",
		strings.Replace(schema1Default, "dropout=0.15;", "", 1):                     schema1Default,
		strings.Replace(schema1Default, "dropout=0.15;", "", 1) + ";made_up_too=on": schema1Default + "\nschema=2;made_up_too=on",
	} {
		got, err := s.KeyString(config)
		if err != nil || got != want {
			t.Errorf("KeyString(%q) = %q, %v\nwant %q", config, got, err, want)
		}
	}
	for config, wantErr := range map[string]string{
		schema1Default + ";made_up=1;made_up=0": "made_up is given twice",
		schema1Default + ";made_down=1":         "unknown setting made_down",
		schema1Default + ";made_up":             `"made_up" is not name=value`,
	} {
		if _, err := s.KeyString(config); err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("KeyString(%q): error %v, want %q", config, err, wantErr)
		}
	}
	// This code's schema does not know the made-up setting.
	if _, err := RunKeySchema().KeyString(schema1Default + ";made_up=0"); err == nil {
		t.Error("an unknown setting keyed without error")
	}
}
