package sweep

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/softshape-go/softshape/softshape"
)

// HashLen is the number of hex digits of a configuration hash.
const HashLen = 12

// Key identifies one training run (one cell of a grid).
type Key struct {
	// Table is the paper table the run belongs to (package paper name).
	Table string
	// Dataset is the UCR dataset name.
	Dataset string
	// Variant is the variant name (ablations.Lookup).
	Variant string
	// Fold is the 1-based fold of the 5-fold protocol.
	Fold int
	// Seed fixes the folds, initial weights, dropout and batch order.
	Seed int64
	// Quick marks a quick-mode run (short schedule).
	Quick bool
	// Hash is ConfigHash of the resolved configuration and Quick.
	Hash string
}

// ConfigHash returns the run key hash of a configuration and the quick flag:
// KeyHash of its key string (KeySchema), which a setting added at its
// default leaves unchanged.
func ConfigHash(cfg softshape.Config, quick bool) string {
	return KeyHash(configKeyString(cfg), quick)
}

// ConfigStringHash is ConfigHash of a configuration string as records and
// grid files keep it (softshape.Config.String of the code that wrote them):
// KeyHash of its key string. A string the key schema cannot read is an error.
func ConfigStringHash(config string, quick bool) (string, error) {
	key, err := RunKeySchema().KeyString(config)
	if err != nil {
		return "", err
	}
	return KeyHash(key, quick), nil
}

// KeyHash returns the first HashLen hex digits of the sha256 of a run key
// string (KeySchema.KeyString) and the quick flag.
func KeyHash(key string, quick bool) string {
	sum := sha256.Sum256([]byte(key + "\nquick=" + strconv.FormatBool(quick)))
	return hex.EncodeToString(sum[:])[:HashLen]
}

// checkConfigHash checks that hash is the hash of a stored configuration
// string and quick flag.
func checkConfigHash(config string, quick bool, hash string) error {
	h, err := ConfigStringHash(config, quick)
	if err != nil {
		return err
	}
	if h != hash {
		return fmt.Errorf("config hash %q does not match the configuration (%s)", hash, h)
	}
	return nil
}

// Slug turns a variant name into a folder name: lower case letters, digits
// and dots, "%" as "pct", "&" as "and", anything else as one "-".
// ("w/o Intra & Inter" → "w-o-intra-and-inter", "30%" → "30pct").
func Slug(name string) string {
	var b strings.Builder
	dash := false
	put := func(s string) {
		if dash && b.Len() > 0 {
			b.WriteByte('-')
		}
		dash = false
		b.WriteString(s)
	}
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '.':
			put(string(r))
		case r >= 'A' && r <= 'Z':
			put(string(r - 'A' + 'a'))
		case r == '%':
			put("pct")
		case r == '&':
			dash = true
			put("and")
			dash = true
		default:
			dash = true
		}
	}
	if b.Len() == 0 {
		return "variant"
	}
	return b.String()
}

// base returns the file name of the key without extension.
func (k Key) base() string {
	return fmt.Sprintf("fold%d-seed%d-%s", k.Fold, k.Seed, k.Hash)
}

// Dir returns the key's folder relative to the results root.
func (k Key) Dir() string {
	return filepath.Join(k.Table, k.Dataset, Slug(k.Variant))
}

// RelPath returns the record file of the key relative to the results root.
func (k Key) RelPath() string { return filepath.Join(k.Dir(), k.base()+".json") }

// String names the cell for messages: "table/dataset/variant fold k seed s [quick] #hash".
func (k Key) String() string {
	q := ""
	if k.Quick {
		q = " quick"
	}
	return fmt.Sprintf("%s/%s/%s fold %d seed %d%s #%s", k.Table, k.Dataset, k.Variant, k.Fold, k.Seed, q, k.Hash)
}

// sortKey orders keys: table, dataset, variant, seed, fold, hash.
func (k Key) sortKey() string {
	return fmt.Sprintf("%s\x00%s\x00%s\x00%020d\x00%06d\x00%s\x00%t", k.Table, k.Dataset, k.Variant, uint64(k.Seed)^(1<<63), k.Fold, k.Hash, k.Quick)
}

// cellID identifies a cell without its configuration hash (to detect the
// same cell run under two configurations).
func (k Key) cellID() string {
	return fmt.Sprintf("%s\x00%s\x00%s\x00%d\x00%d\x00%t", k.Table, k.Dataset, k.Variant, k.Fold, k.Seed, k.Quick)
}

// reuseID identifies the computation of a key: the same dataset, fold, seed
// and configuration hash give the same run whatever the variant or table.
func (k Key) reuseID() string {
	return fmt.Sprintf("%s\x00%d\x00%d\x00%s", k.Dataset, k.Fold, k.Seed, k.Hash)
}
