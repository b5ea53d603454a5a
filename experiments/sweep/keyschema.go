package sweep

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/softshape-go/softshape/softshape"
)

// KeySchemaVersion is the version of the key rule, written before the added
// settings of a key string. Schema 1 keyed every setting (Config.String).
const KeySchemaVersion = 2

// KeySetting is a setting as the run key knows it: its name and its baseline,
// the value a configuration string that does not name it stands for.
type KeySetting struct {
	Name, Baseline string
}

// KeySchema is the list of settings run keys are made of: Fixed, those of
// key schema 1, always written; Added, those added since, written when not at
// their baselines (RunKeySchema is this code's).
//
// A sweep names each run by a hash of its configuration's key string
// (ConfigHash), not of Config.String, so that adding a setting leaves
// the key of every run recorded before it unchanged. The rule, key
// schema KeySchemaVersion:
//
//   - The settings of key schema 1 (keySchema1: every setting there was when
//     the rule was introduced, in the order Config.String wrote them then)
//     are always written, as "name=value" joined by ";". For a configuration
//     expressible under schema 1 the key string is therefore exactly what
//     Config.String gave then, and so is its run key.
//   - A setting added after schema 1 (keyAdded) is written only when its value
//     differs from its baseline, the default it was added with: after the
//     schema-1 part, as "\nschema=2;name=value;..." in keyAdded order. A new
//     setting at its baseline leaves every key unchanged; any other value
//     gives a new key.
//
// Adding a setting: append it to softshape.Settings and to keyAdded with its default as
// the baseline (TestRunKeySchemaCoversSettings fails until it is there).
// Never change a baseline later: a later change of the setting's default is
// fine, since the new default differs from the baseline and is written into
// the new runs' keys, which therefore do not collide with the runs recorded
// at the baseline.
//
// Removing a setting of schema 1: keep its keySchema1 entry and set its
// baseline to the value that means "as before" (the behaviour the code keeps);
// a configuration string without the name is keyed with that value, so runs
// recorded at it keep their keys, and records made with another value still
// name it in their configuration strings and keep theirs. An added setting can
// be removed the same way only if the code keeps its baseline behaviour.
// Renaming a setting is a removal plus an addition: a run setting the new
// name to a value other than the baseline would not find the runs recorded
// under the old name, so names stay.
type KeySchema struct {
	Fixed, Added []KeySetting
}

// keySchema1 is the frozen list of key schema 1: Settings as it was, names,
// order and (as baselines) defaults. Never edit it but as KeySchema says.
func keySchema1() []KeySetting {
	return []KeySetting{
		{"sparse_ratio", "0.5"},
		{"experts_k", "1"},
		{"num_experts", "C"},
		{"stride", "auto"},
		{"depth", "2"},
		{"shape_length", "0"},
		{"shape_length_ratio", "0"},
		{"embed_dim", "128"},
		{"attn_dim", "8"},
		{"dropout", "0.15"},
		{"moe_loss_weight", "0.001"},
		{"inception_kernel", "40"},
		{"sparsify_schedule", "reference"},
		{"moe_layers", "sparse"},
		{"fused_token", "true"},
		{"intra", "true"},
		{"inter", "true"},
		{"shape_embed", "conv"},
		{"moe_expert", "mlp"},
		{"shared_expert", "inception"},
		{"multi_seq", ""},
		{"warmup_epochs", "150"},
		{"epochs", "500"},
		{"learning_rate", "0.001"},
		{"patience", "80"},
		{"fold_reset", "fresh"},
		{"eval_path", "phase"},
		{"batch_rule", "paper"},
		{"shuffle", "true"},
		{"selection_stat", "mean"},
		{"selection_window", "post_warmup"},
	}
}

// keyAdded lists the settings added after key schema 1, in the order they
// were added, each with its baseline (its default when added). Append only.
func keyAdded() []KeySetting {
	return nil
}

// RunKeySchema returns the key schema of this code: keySchema1 and keyAdded.
func RunKeySchema() KeySchema {
	return KeySchema{Fixed: keySchema1(), Added: keyAdded()}
}

// configKeyString returns the run key string of c (the rule: KeySchema): for
// every configuration expressible under key schema 1 exactly the string
// Config.String gave then.
func configKeyString(c softshape.Config) string {
	k, err := RunKeySchema().KeyString(c.String())
	if err != nil {
		// Config.String names only softshape.Settings, which the schema covers
		// (TestRunKeySchemaCoversSettings).
		panic(fmt.Sprintf("run key of %s: %v", c.String(), err))
	}
	return k
}

// KeyString returns the key string of a configuration string as
// Config.String writes it and records keep it ("name=value;..."): the Fixed
// settings' "name=value" joined by ";" (a name the string lacks with its
// baseline), then, if any Added setting differs from its baseline,
// "\nschema=<KeySchemaVersion>;" and those settings' "name=value" joined by
// ";". Values are kept byte for byte. A part that is not "name=value", a name
// the schema does not know, or a name given twice is an error naming it.
func (s KeySchema) KeyString(config string) (string, error) {
	values := map[string]string{}
	for _, part := range strings.Split(config, ";") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		name, value, ok := strings.Cut(part, "=")
		if !ok {
			return "", fmt.Errorf("configuration %q: %q is not name=value", config, part)
		}
		if _, dup := values[name]; dup {
			return "", fmt.Errorf("configuration %q: %s is given twice", config, name)
		}
		values[name] = value
	}
	write := func(b *strings.Builder, list []KeySetting, all bool) {
		for _, ks := range list {
			v, ok := values[ks.Name]
			delete(values, ks.Name)
			if !ok {
				v = ks.Baseline
			}
			if !all && v == ks.Baseline {
				continue
			}
			if b.Len() > 0 {
				b.WriteByte(';')
			}
			b.WriteString(ks.Name + "=" + v)
		}
	}
	var fixed, added strings.Builder
	write(&fixed, s.Fixed, true)
	write(&added, s.Added, false)
	if len(values) > 0 {
		names := slices.Sorted(maps.Keys(values))
		return "", fmt.Errorf("configuration %q: unknown setting %s", config, strings.Join(names, ", "))
	}
	if added.Len() == 0 {
		return fixed.String(), nil
	}
	return fmt.Sprintf("%s\nschema=%d;%s", fixed.String(), KeySchemaVersion, added.String()), nil
}
