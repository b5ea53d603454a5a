package sweep

import (
	"encoding/json"
	"errors"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/softshape-go/softshape/softshape"
)

// okRecord returns a complete ok record for key fields of a default config.
func okRecord(s *Store, table, dataset, variant string, fold int) *Record {
	cfg := softshape.DefaultConfig()
	now := time.Now().UTC()
	return &Record{Schema: SchemaVersion, Table: table, Dataset: dataset, Variant: variant, Fold: fold, Seed: 42,
		Hash: ConfigHash(cfg, false), Mode: "full", Status: StatusOK, TestAccuracy: 0.75, ValLoss: Float(math.NaN()),
		BestEpoch: 3, EpochsRun: 5, Params: 100, WallSeconds: 1.5, InferenceSeconds: 0.1, Backend: "go", Config: cfg.String(),
		Started: now.Add(-time.Second), Finished: now, Hostname: s.host, PID: s.pid}
}

// TestRecordRoundTripAndValidation: a record written is read back equal
// (NaN as null), no temporary file stays, and incomplete records are rejected.
func TestRecordRoundTripAndValidation(t *testing.T) {
	s := openStore(t)
	r := okRecord(s, "ablation", "GunPoint", "w/o Intra", 2)
	if err := s.Write(r); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(s.RecordPath(r.Key()))
	if !strings.Contains(string(b), `"val_loss": null`) || !strings.Contains(string(b), `"status": "ok"`) {
		t.Errorf("record file:\n%s", b)
	}
	got, err := s.Read(r.Key())
	if err != nil {
		t.Fatal(err)
	}
	if got.TestAccuracy != 0.75 || !math.IsNaN(float64(got.ValLoss)) || got.Config != r.Config || !got.Finished.Equal(r.Finished) {
		t.Errorf("read back %+v", got)
	}
	if l := leftovers(t, s.Root()); len(l) != 0 {
		t.Errorf("left over: %v", l)
	}
	if _, err := s.Read(Key{Table: "ablation", Dataset: "GunPoint", Variant: "SoftShape", Fold: 1, Hash: r.Hash}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing record: %v", err)
	}
	bad := []struct {
		name string
		edit func(*Record)
	}{
		{"no table", func(r *Record) { r.Table = "" }},
		{"fold 0", func(r *Record) { r.Fold = 0 }},
		{"hash", func(r *Record) { r.Hash = "000000000000" }},
		{"config", func(r *Record) { r.Config += ";x" }},
		{"accuracy", func(r *Record) { r.TestAccuracy = 1.5 }},
		{"NaN accuracy", func(r *Record) { r.TestAccuracy = Float(math.NaN()) }},
		{"epochs", func(r *Record) { r.EpochsRun = 0 }},
		{"best epoch", func(r *Record) { r.BestEpoch = 5 }},
		{"finish", func(r *Record) { r.Finished = time.Time{} }},
		{"status", func(r *Record) { r.Status = "done" }},
		{"failed without error", func(r *Record) { r.Status = StatusFailed }},
		{"mode", func(r *Record) { r.Mode = QuickLabel }},
		{"backend", func(r *Record) { r.Backend = "" }},
		{"schema", func(r *Record) { r.Schema = 0 }},
	}
	for _, c := range bad {
		cp := *r
		c.edit(&cp)
		if err := s.Write(&cp); err == nil {
			t.Errorf("%s: incomplete record accepted", c.name)
		}
		// A truncated or edited file on disk is reported, not taken as done.
		full, _ := json.Marshal(&cp)
		p := filepath.Join(t.TempDir(), "r.json")
		os.WriteFile(p, full, 0o644)
		if _, err := s.readFile(p); err == nil {
			t.Errorf("%s: incomplete record file accepted", c.name)
		}
	}
	os.WriteFile(s.RecordPath(r.Key()), b[:len(b)/2], 0o644)
	if _, err := s.Read(r.Key()); err == nil || errors.Is(err, fs.ErrNotExist) {
		t.Errorf("truncated record: %v", err)
	}
	if st := s.CellStatus(r.Key()); st.State != StateCorrupt {
		t.Errorf("truncated record status %v", st)
	}
}

// deadPID returns the pid of a process that has exited and been reaped.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// writeLock writes a lock file as another owner would.
func writeLock(t *testing.T, s *Store, k Key, info LockInfo) {
	t.Helper()
	os.MkdirAll(filepath.Dir(s.LockPath(k)), 0o755)
	b, _ := json.Marshal(info)
	if err := os.WriteFile(s.LockPath(k), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestLocks: a claim excludes others; a lock of a live process or of another
// host is respected; the lock of a dead process is reclaimed; Clean removes
// stale locks and the temporary files of dead processes only.
func TestLocks(t *testing.T) {
	s := openStore(t)
	k := Key{Table: "ablation", Dataset: "GunPoint", Variant: "SoftShape", Fold: 1, Seed: 42, Hash: "0123456789ab"}
	c, err := s.Claim(k)
	if err != nil {
		t.Fatal(err)
	}
	other, _ := Open(s.Root()) // a second store on the folder (same process)
	if _, err := other.Claim(k); !errors.Is(err, ErrBusy) {
		t.Errorf("second claim: %v, want ErrBusy", err)
	}
	if st := s.CellStatus(k); st.State != StateRunning || !strings.Contains(st.Detail, "pid") {
		t.Errorf("status while claimed: %+v", st)
	}
	if err := c.Release(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.LockPath(k)); !errors.Is(err, fs.ErrNotExist) {
		t.Error("lock not removed by Release")
	}

	// A live process of this host (the parent of this test) holds the cell.
	writeLock(t, s, k, LockInfo{PID: os.Getppid(), Hostname: s.host, Started: time.Now()})
	if _, err := s.Claim(k); !errors.Is(err, ErrBusy) {
		t.Errorf("lock of a live process: %v", err)
	}
	// Another host: cannot be judged, so it is respected.
	writeLock(t, s, k, LockInfo{PID: deadPID(t), Hostname: "elsewhere", Started: time.Now()})
	if _, err := s.Claim(k); !errors.Is(err, ErrBusy) {
		t.Errorf("lock of another host: %v", err)
	}
	// A reused pid: alive, but with another start time.
	writeLock(t, s, k, LockInfo{PID: os.Getppid(), Hostname: s.host, Started: time.Now(), ProcStart: "1"})
	if s.procStart != "" {
		if st := s.CellStatus(k); st.State != StateMissing {
			t.Errorf("lock of a reused pid: %+v", st)
		}
	}
	// A dead process of this host: stale, reclaimed.
	dead := deadPID(t)
	writeLock(t, s, k, LockInfo{PID: dead, Hostname: s.host, Started: time.Now()})
	if st := s.CellStatus(k); st.State != StateMissing || !strings.Contains(st.Detail, "stale") {
		t.Errorf("stale lock status %+v", st)
	}
	c, err = s.Claim(k)
	if err != nil {
		t.Fatalf("stale lock not reclaimed: %v", err)
	}
	info, _, ok, _ := readLock(s.LockPath(k))
	if !ok || info.PID != os.Getpid() {
		t.Errorf("reclaimed lock holds %+v", info)
	}
	c.Release()
	// An empty lock (its creator is writing it) is respected while fresh.
	os.WriteFile(s.LockPath(k), nil, 0o644)
	if _, err := s.Claim(k); !errors.Is(err, ErrBusy) {
		t.Errorf("fresh empty lock: %v", err)
	}
	old := time.Now().Add(-2 * unreadableLockAge)
	os.Chtimes(s.LockPath(k), old, old)
	if c, err := s.Claim(k); err != nil {
		t.Errorf("old empty lock: %v", err)
	} else {
		c.Release()
	}

	// Clean: stale lock and dead temporary file go, live ones stay.
	dir := filepath.Dir(s.LockPath(k))
	writeLock(t, s, k, LockInfo{PID: dead, Hostname: s.host, Started: time.Now()})
	live := Key{Table: k.Table, Dataset: k.Dataset, Variant: k.Variant, Fold: 2, Seed: 42, Hash: k.Hash}
	writeLock(t, s, live, LockInfo{PID: os.Getppid(), Hostname: s.host, Started: time.Now()})
	deadTmp := filepath.Join(dir, ".x.json.tmp-"+itoa(dead)+"-00ff@"+s.hostTag())
	liveTmp := filepath.Join(dir, ".y.json.tmp-"+itoa(os.Getppid())+"-00ff@"+s.hostTag())
	otherTmp := filepath.Join(dir, ".z.json.tmp-"+itoa(dead)+"-00ff@elsewhere")
	for _, p := range []string{deadTmp, liveTmp, otherTmp} {
		os.WriteFile(p, []byte("{"), 0o644)
	}
	rep, err := s.Clean("ablation")
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.StaleLocks) != 1 || rep.StaleLocks[0] != s.LockPath(k) || len(rep.TempFiles) != 1 || rep.TempFiles[0] != deadTmp {
		t.Errorf("Clean removed %+v", rep)
	}
	for _, p := range []string{s.LockPath(live), liveTmp, otherTmp} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("Clean removed %s", p)
		}
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
