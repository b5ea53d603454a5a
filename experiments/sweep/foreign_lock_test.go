package sweep

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestForeignLockCheck: a lock of another host is alive unless the store's
// foreign-lock check (e.g. Slurm's view of the owner's job) says otherwise;
// the owner's Slurm job is written into locks and shown by CellStatus.
func TestForeignLockCheck(t *testing.T) {
	s := openStore(t)
	k := Key{Table: "ablation", Dataset: "GunPoint", Variant: "SoftShape", Fold: 1, Seed: 42, Hash: "0123456789ab"}
	info := LockInfo{PID: 4242, Hostname: "node17", Started: time.Now(), SlurmJob: "77_3"}
	writeLock(t, s, k, info)
	if st := s.CellStatus(k); st.State != StateRunning || !strings.Contains(st.Detail, "pid 4242 on node17 (Slurm job 77_3)") {
		t.Errorf("status without a check: %+v", st)
	}
	var asked []string
	s.SetForeignLockCheck(func(li LockInfo) bool { asked = append(asked, li.SlurmJob); return true })
	if _, err := s.Claim(k); !errors.Is(err, ErrBusy) {
		t.Errorf("lock of a live foreign job: %v", err)
	}
	s.SetForeignLockCheck(func(li LockInfo) bool { asked = append(asked, li.SlurmJob); return false })
	if st := s.CellStatus(k); st.State != StateMissing || !strings.Contains(st.Detail, "stale lock of dead pid 4242 on node17 of Slurm job 77_3") {
		t.Errorf("status of a lock whose job ended: %+v", st)
	}
	c, err := s.Claim(k)
	if err != nil {
		t.Fatalf("lock of an ended foreign job not reclaimed: %v", err)
	}
	c.Release()
	if len(asked) == 0 || asked[0] != "77_3" {
		t.Errorf("check called with %v", asked)
	}

	t.Setenv("SLURM_ARRAY_JOB_ID", "90")
	t.Setenv("SLURM_ARRAY_TASK_ID", "2")
	s2, err := Open(s.Root())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s2.Claim(k); err != nil {
		t.Fatal(err)
	}
	if st := s.CellStatus(k); !strings.Contains(st.Detail, "(Slurm job 90_2)") {
		t.Errorf("own Slurm job not in the lock: %+v", st)
	}
}
