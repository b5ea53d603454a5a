package sweep

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/softshape-go/softshape/data"
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
	// Hash is CellHash of the resolved configuration, Quick and Dataset.
	Hash string
}

// ConfigHash returns the run key hash of a configuration and the quick flag:
// KeyHash of its key string (KeySchema), which a setting added at its
// default leaves unchanged.
func ConfigHash(cfg softshape.Config, quick bool) string {
	return KeyHash(configKeyString(cfg), quick)
}

// CellHash is the run key hash of cfg on one dataset: ConfigHash, or, where
// the dataset's stride "auto" is not what it was before it followed the
// authors' rule (softshape.LegacyAutoStride: q = 4 rather than 2 on a fixed
// m = 4), KeyHash of the key string with a "\nstride=authors" line, so that
// the runs stored before, trained at the old stride, are not taken for the
// new computation. The dataset's series length, classes and shape length come
// from the UCR registry. A variable-length dataset counts as long there (its
// m is fixed, or a ratio of a padded length of 360 points or more); on a
// dataset outside the registry (T taken as 1<<16, no class limit) only an
// explicit shape length of 3 or 4 moves the stride.
func CellHash(cfg softshape.Config, quick bool, dataset string) string {
	return KeyHash(configKeyString(cfg)+StrideMark(cfg, dataset), quick)
}

// CellStringHash is CellHash of a configuration string as records keep it
// (ConfigStringHash for the key string).
func CellStringHash(config string, quick bool, dataset string) (string, error) {
	key, err := RunKeySchema().KeyString(config)
	if err != nil {
		return "", err
	}
	cfg, err := softshape.DefaultConfig().WithSettings(config)
	if err != nil {
		return "", err
	}
	return KeyHash(key+StrideMark(cfg, dataset), quick), nil
}

// StrideMark is what CellHash adds to the key string of cfg on dataset: the
// line "\nstride=authors" where the stride "auto" moved
// (softshape.Config.AutoStrideMoved on the dataset's registry sizes), else
// nothing.
func StrideMark(cfg softshape.Config, dataset string) string {
	seriesLen, numClasses, refM := 1<<16, 1<<10, 0
	if info, err := data.Lookup(dataset); err == nil {
		numClasses = info.Classes
		if info.Length > 0 {
			seriesLen = info.Length
		}
		refM = info.ShapeLengthFor(seriesLen)
	}
	if cfg.AutoStrideMoved(seriesLen, numClasses, refM) {
		return "\nstride=authors"
	}
	return ""
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

// checkCellHash checks that hash is the hash of a stored configuration
// string and quick flag on a dataset (CellStringHash), or its hash before
// the stride mark (ConfigStringHash: a run trained at the stride "auto" gave
// before, valid but not the cell of any grid now).
func checkCellHash(config string, quick bool, dataset, hash string) error {
	h, err := CellStringHash(config, quick, dataset)
	if err != nil {
		return err
	}
	if legacy, err := ConfigStringHash(config, quick); err == nil && legacy == hash {
		return nil
	}
	if h != hash {
		return fmt.Errorf("config hash %q does not match the configuration on %s (%s)", hash, dataset, h)
	}
	return nil
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
