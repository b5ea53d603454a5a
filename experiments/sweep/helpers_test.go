package sweep

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/softshape-go/softshape/data"
	"github.com/softshape-go/softshape/softshape"
)

// tinySettings is the test schedule: two epochs of a narrow model (≈0.3 s a fold).
const tinySettings = "embed_dim=16;epochs=2;warmup_epochs=1"

// cbfLoader returns generated CBF datasets (10 series per class, length 64),
// seeded by the name, so tests need no files.
func cbfLoader(name string) (*data.Dataset, error) {
	seed := int64(0)
	for _, r := range name {
		seed = seed*31 + int64(r)
	}
	ds := data.CBF(10, 64, seed)
	ds.Name = name
	return ds, nil
}

// fakeTrain returns a fixed result after a short sleep, without a model.
func fakeTrain(sleep time.Duration) TrainFunc {
	return func(ds *data.Dataset, cfg softshape.Config, fold int, opts softshape.RunOptions) (*Outcome, error) {
		time.Sleep(sleep)
		return &Outcome{Result: softshape.FoldResult{Fold: fold, TestAcc: 0.5 + 0.1*float64(fold), ValLoss: 0.2, BestEpoch: 0,
			EpochsRun: 1, Params: 10, Wall: sleep}}, nil
	}
}

// openStore opens a fresh store in a temporary folder.
func openStore(t testing.TB) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "results"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// mustGrid builds a grid or fails.
func mustGrid(t testing.TB, spec GridSpec) *Grid {
	t.Helper()
	g, err := NewGrid(spec)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// leftovers lists the lock and temporary files under root.
func leftovers(t testing.TB, root string) []string {
	t.Helper()
	return walkFiles(t, root, func(path string, info os.FileInfo) bool {
		return strings.HasSuffix(path, lockSuffix) || tmpPattern.MatchString(info.Name())
	})
}

// recordFiles lists the record files under root.
func recordFiles(t testing.TB, root string) []string {
	t.Helper()
	return walkFiles(t, root, func(_ string, info os.FileInfo) bool { return recordName.MatchString(info.Name()) })
}

// walkFiles lists the paths under root that keep accepts, passing over
// those removed while it walks (a sweep is running).
func walkFiles(t testing.TB, root string, keep func(path string, info os.FileInfo) bool) []string {
	t.Helper()
	var out []string
	err := filepath.Walk(root, func(path string, info os.FileInfo, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil // removed while we walk (a sweep is running)
		}
		if err != nil {
			return err
		}
		if keep(path, info) {
			out = append(out, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// execCounter counts executions per key (Runner.OnExecute).
type execCounter struct {
	mu sync.Mutex
	n  map[Key]int
}

func (c *execCounter) hook(k Key) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[Key]int{}
	}
	c.n[k]++
}
