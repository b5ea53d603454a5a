package slurm

// TestSlurmCluster runs softshape sweeps on a real one-node Slurm cluster
// started on this machine (.ci/slurm-test.sh runs it; see environment.md).

import (
	"encoding/json"
	"fmt"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/softshape-go/softshape/experiments/sweep"
	"github.com/softshape-go/softshape/internal/shareddata"
)

// clusterEnv enables TestSlurmCluster.
const clusterEnv = "SOFTSHAPE_SLURM_TEST"

// clusterGrid is the grid of the cluster test: 2 datasets × 2 folds × 2
// variants = 8 cells, a short schedule, 2 cells per shard of 4.
var clusterGrid = []string{"-table", "sparse_ratio", "-quick", "-datasets", "ItalyPowerDemand,GunPoint", "-variants", "0%,50%",
	"-folds", "1,2", "-seeds", "42", "-set", "epochs=4;warmup_epochs=2;embed_dim=32", "-offline", "-backend", "go"}

const clusterShards = 4

// cluster is a running one-node Slurm cluster.
type cluster struct {
	dir, conf, host string
	sudo            []string // "sudo -n" when not root
	env             []string // the environment of Slurm commands
}

// run runs a command with the cluster's environment and returns its output.
func (c *cluster) run(name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Env = c.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

// asRoot runs a command as root (through sudo -n when not root).
func (c *cluster) asRoot(name string, args ...string) (string, error) {
	if len(c.sudo) > 0 {
		args = append(append(c.sudo[1:], name), args...)
		name = c.sudo[0]
	}
	return c.run(name, args...)
}

// freePort returns a TCP port nothing listens on now.
func freePort(t testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// ensureSlurm installs slurm-wlm and munge with apt-get when they are missing;
// it skips the test when that is not possible.
func ensureSlurm(t testing.TB) []string {
	var sudo []string
	if os.Geteuid() != 0 {
		if err := exec.Command("sudo", "-n", "true").Run(); err != nil {
			t.Skipf("Slurm cluster test skipped: it starts munged, slurmctld and slurmd as root, and this user is neither root nor has passwordless sudo (%v)", err)
		}
		sudo = []string{"sudo", "-n"}
	}
	need := []string{"munged", "munge", "slurmctld", "slurmd", "sbatch", "squeue", "scontrol", "scancel"}
	missing := func() []string {
		var m []string
		for _, b := range need {
			if _, err := exec.LookPath(b); err != nil {
				if _, err := os.Stat("/usr/sbin/" + b); err != nil {
					m = append(m, b)
				}
			}
		}
		return m
	}
	if m := missing(); len(m) > 0 {
		t.Logf("installing slurm-wlm and munge with apt-get (missing: %s)", strings.Join(m, ", "))
		start := time.Now()
		for _, args := range [][]string{{"apt-get", "update", "-qq"}, {"apt-get", "install", "-y", "-qq", "--no-install-recommends", "slurm-wlm", "munge"}} {
			cmd := exec.Command(append(sudo, args...)[0], append(sudo, args...)[1:]...)
			cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Skipf("Slurm cluster test skipped: %s failed (no Debian package mirror?): %v\n%s", strings.Join(args, " "), err, tail(string(out), 2000))
			}
		}
		if m := missing(); len(m) > 0 {
			t.Skipf("Slurm cluster test skipped: still missing after apt-get: %s", strings.Join(m, ", "))
		}
		t.Logf("apt-get install took %s", time.Since(start).Round(time.Second))
	}
	return sudo
}

// startCluster starts munged, slurmctld and slurmd with their state under a
// temporary folder, and stops them (and cancels the jobs) at the end.
func startCluster(t testing.TB, sudo []string) *cluster {
	dir, err := os.MkdirTemp("", "softshape-slurm-")
	if err != nil {
		t.Fatal(err)
	}
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	host, _, _ = strings.Cut(host, ".")
	c := &cluster{dir: dir, conf: filepath.Join(dir, "slurm.conf"), host: host, sudo: sudo}
	if f := os.Getenv("SOFTSHAPE_SLURM_DIRFILE"); f != "" {
		// For the caller's trap: where the pid files are if this test is killed.
		os.WriteFile(f, []byte(dir+"\n"), 0o644)
	}
	c.env = append(os.Environ(), "SLURM_CONF="+c.conf)
	for _, d := range []string{"munge", "state", "spool", "log"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.Chmod(filepath.Join(dir, "munge"), 0o711)
	key := make([]byte, 1024)
	f, _ := os.Open("/dev/urandom")
	f.Read(key)
	f.Close()
	keyFile := filepath.Join(dir, "munge", "munge.key")
	if err := os.WriteFile(keyFile, key, 0o400); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "munge", "munge.sock")
	conf := fmt.Sprintf(`ClusterName=softshape-ci
SlurmctldHost=%[2]s(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=%[3]d
SlurmdPort=%[4]d
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=%[5]s
StateSaveLocation=%[1]s/state
SlurmdSpoolDir=%[1]s/spool
SlurmctldPidFile=%[1]s/slurmctld.pid
SlurmdPidFile=%[1]s/slurmd.pid
SlurmctldLogFile=%[1]s/log/slurmctld.log
SlurmdLogFile=%[1]s/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
MinJobAge=900
KillWait=5
NodeName=%[2]s NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
`, dir, host, freePort(t), freePort(t), sock)
	if err := os.WriteFile(c.conf, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.stop(t) })
	if out, err := c.asRoot("munged", "--force", "--key-file="+keyFile, "--socket="+sock, "--pid-file="+filepath.Join(dir, "munge", "munged.pid"),
		"--log-file="+filepath.Join(dir, "log", "munged.log"), "--seed-file="+filepath.Join(dir, "munge", "seed")); err != nil {
		t.Skipf("Slurm cluster test skipped: munged does not start here: %v\n%s", err, out)
	}
	if out, err := c.asRoot("slurmctld", "-f", c.conf); err != nil {
		t.Skipf("Slurm cluster test skipped: slurmctld does not start here: %v\n%s%s", err, out, c.logs())
	}
	if out, err := c.asRoot("slurmd", "-f", c.conf, "-N", host); err != nil {
		t.Skipf("Slurm cluster test skipped: slurmd does not start here: %v\n%s%s", err, out, c.logs())
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		out, err := c.run("sinfo", "-h", "-o", "%T")
		if err == nil && (strings.Contains(out, "idle") || strings.Contains(out, "mixed")) {
			break
		}
		if time.Now().After(deadline) {
			t.Skipf("Slurm cluster test skipped: the node did not come up within 60 s: %v %s%s", err, out, c.logs())
		}
		time.Sleep(time.Second)
	}
	t.Logf("Slurm cluster up in %s (node %s, config %s)", dir, host, c.conf)
	return c
}

// logs returns the ends of the daemons' logs.
func (c *cluster) logs() string {
	var b strings.Builder
	for _, f := range []string{"munged.log", "slurmctld.log", "slurmd.log"} {
		data, _ := os.ReadFile(filepath.Join(c.dir, "log", f))
		fmt.Fprintf(&b, "\n--- %s ---\n%s", f, tail(string(data), 1500))
	}
	return b.String()
}

// stop cancels the cluster's jobs and stops the daemons it started (by the
// pids in their pid files).
func (c *cluster) stop(t testing.TB) {
	if _, err := c.run("scancel", "--full", "--partition=debug"); err == nil {
		for i := 0; i < 30; i++ {
			if out, err := c.run("squeue", "-h"); err != nil || strings.TrimSpace(out) == "" {
				break
			}
			time.Sleep(time.Second)
		}
	}
	for _, pf := range []string{"slurmd.pid", "slurmctld.pid", "munge/munged.pid"} {
		b, err := os.ReadFile(filepath.Join(c.dir, pf))
		if err != nil {
			continue
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || pid <= 0 {
			continue
		}
		c.asRoot("kill", strconv.Itoa(pid))
		for i := 0; i < 50; i++ {
			if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err != nil {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	if t.Failed() {
		t.Log(c.logs())
	}
	if os.Getenv("SOFTSHAPE_SLURM_KEEP") == "" {
		c.asRoot("rm", "-rf", c.dir)
	}
	t.Log("Slurm daemons stopped")
}

// submitted reads the job id printed by "sweep -emit-slurm -slurm-submit".
var submitted = regexp.MustCompile(`submitted job (\d+)`)

// sweepCmd runs the softshape binary with the cluster's environment.
func (c *cluster) softshape(t testing.TB, bin string, args ...string) string {
	t.Helper()
	out, err := c.run(bin, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// emitAndSubmit writes and submits the sweep's array job, returning the job id.
func (c *cluster) emitAndSubmit(t testing.TB, bin, results, script string, extra ...string) string {
	t.Helper()
	args := append(append([]string{"sweep"}, clusterGrid...), "-data", ucr(t), "-results", results, "-emit-slurm", script,
		"-slurm-tasks", strconv.Itoa(clusterShards), "-slurm-time", "0:20:00", "-slurm-output", filepath.Join(c.dir, "log", "%x-%A_%a.out"), "-slurm-submit")
	out := c.softshape(t, bin, append(args, extra...)...)
	m := submitted.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no job submitted:\n%s", out)
	}
	t.Logf("%s", strings.TrimSpace(out))
	return m[1]
}

// wait polls the tasks of job id until all have ended, and returns them.
func (c *cluster) wait(t testing.TB, id string, limit time.Duration) []Job {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		out, err := c.run("scontrol", "-o", "show", "job", id)
		if err != nil {
			t.Fatal(err)
		}
		jobs := ParseJobs(out)
		if len(jobs) > 0 && !slices.ContainsFunc(jobs, func(j Job) bool { return !j.Done() }) {
			return jobs
		}
		if time.Now().After(deadline) {
			sq, _ := c.run("squeue")
			t.Fatalf("job %s not finished after %s:\n%s%s", id, limit, sq, c.taskLogs(id))
		}
		time.Sleep(2 * time.Second)
	}
}

// taskLogs returns the logs of the tasks of job id.
func (c *cluster) taskLogs(id string) string {
	files, _ := filepath.Glob(filepath.Join(c.dir, "log", "*-"+id+"_*.out"))
	var b strings.Builder
	for _, f := range files {
		data, _ := os.ReadFile(f)
		fmt.Fprintf(&b, "\n--- %s ---\n%s", filepath.Base(f), tail(string(data), 3000))
	}
	return b.String()
}

// trainedKeys counts the "done" lines per cell in the task logs of job id.
func (c *cluster) trainedKeys(id string) map[string]int {
	out := map[string]int{}
	for _, line := range c.logLines(id, "*") {
		if rest, ok := strings.CutPrefix(line, "done   "); ok {
			key, _, _ := strings.Cut(rest, ":")
			out[key]++
		}
	}
	return out
}

// lastStarted is the cell of the last "start" line in the log of task task
// of job id ("" if none): the cell it was training when it ended.
func (c *cluster) lastStarted(id, task string) string {
	last := ""
	for _, line := range c.logLines(id, task) {
		if rest, ok := strings.CutPrefix(line, "start  ["); ok {
			_, last, _ = strings.Cut(rest, "] ")
		}
	}
	return last
}

// logLines returns the lines of the logs of job id's task task ("*": every
// task), each file's in order.
func (c *cluster) logLines(id, task string) []string {
	files, _ := filepath.Glob(filepath.Join(c.dir, "log", "*-"+id+"_"+task+".out"))
	var lines []string
	for _, f := range files {
		data, _ := os.ReadFile(f)
		lines = append(lines, strings.Split(string(data), "\n")...)
	}
	return lines
}

// ucr returns the shared UCR folder (absolute, as the jobs need it),
// skipping the test without it (see internal/shareddata).
func ucr(t testing.TB) string {
	t.Helper()
	dir := shareddata.UCR(t)
	for _, ds := range []string{"GunPoint", "ItalyPowerDemand"} {
		shareddata.Dataset(t, ds)
	}
	root, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// folderContent is what a results folder holds, per cell.
type folderContent struct {
	acc     map[string]float64 // key → test accuracy of its record
	records map[string]int     // key → record files found
	locks   []string           // lock and temporary files left
	keys    map[string]sweep.Key
}

// readResults lists the records, lock files and temporary files of a results folder.
func readResults(t testing.TB, root string) folderContent {
	t.Helper()
	fc := folderContent{acc: map[string]float64{}, records: map[string]int{}, keys: map[string]sweep.Key{}}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		name := d.Name()
		switch {
		case strings.HasSuffix(name, ".running") || strings.Contains(name, ".tmp-"):
			fc.locks = append(fc.locks, path)
		case strings.HasSuffix(name, ".json") && strings.HasPrefix(name, "fold"):
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			var r sweep.Record
			if err := json.Unmarshal(data, &r); err != nil {
				return fmt.Errorf("%s: %v", path, err)
			}
			if r.Status != sweep.StatusOK {
				t.Errorf("%s: status %s: %s", path, r.Status, r.Error)
			}
			k := r.Key().String()
			fc.records[k]++
			fc.acc[k] = float64(r.TestAccuracy)
			fc.keys[k] = r.Key()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return fc
}

// sameResults checks that got holds exactly the cells of want, once each,
// with the same accuracies, and no lock; it returns the largest difference.
func sameResults(t testing.TB, what string, got, want folderContent, cells int) float64 {
	t.Helper()
	if len(want.records) != cells {
		t.Errorf("reference: %d cells recorded, want %d", len(want.records), cells)
	}
	if len(got.locks) > 0 {
		t.Errorf("%s: lock or temporary files left: %v", what, got.locks)
	}
	maxDiff := 0.0
	for k, n := range got.records {
		if n != 1 {
			t.Errorf("%s: %d records of %s", what, n, k)
		}
		ref, ok := want.acc[k]
		if !ok {
			t.Errorf("%s: %s is not in the reference run", what, k)
			continue
		}
		maxDiff = math.Max(maxDiff, math.Abs(got.acc[k]-ref))
	}
	for k := range want.records {
		if _, ok := got.records[k]; !ok {
			t.Errorf("%s: %s missing", what, k)
		}
	}
	if maxDiff > 0 {
		t.Errorf("%s: test accuracies differ from the single-process run by up to %g (same seeds)", what, maxDiff)
	}
	return maxDiff
}

// TestSlurmCluster starts a one-node Slurm cluster (munged, slurmctld,
// slurmd), submits a sweep as an array job of 4 shards and compares its
// results with a single-process run of the same grid; then cancels one task
// of a second sweep mid-run, resubmits the incomplete shards with
// -only-incomplete, and checks every cell is recorded exactly once.
func TestSlurmCluster(tt *testing.T) {
	// Registered first, so it runs last: after the cluster's cleanup has
	// printed the daemons' logs.
	t := &failureRecap{T: tt}
	tt.Cleanup(t.repeat)
	if os.Getenv(clusterEnv) != "1" {
		t.Skipf("Slurm cluster test skipped: set %s=1 (as .ci/slurm-test.sh does) to install slurm-wlm and munge (apt-get, as root) and run sweeps on a one-node cluster (~10 minutes)", clusterEnv)
	}
	data := ucr(t)
	sudo := ensureSlurm(t)
	total := time.Now()
	work := t.TempDir()
	bin := filepath.Join(work, "softshape")
	build := exec.Command("go", "build", "-o", bin, "github.com/softshape-go/softshape/cmd/softshape")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building softshape: %v\n%s", err, out)
	}
	c := startCluster(t, sudo)

	// 1. The array job of 4 shards, and beside it the same grid in one process.
	phase := time.Now()
	arrayRes := filepath.Join(work, "array")
	job := c.emitAndSubmit(t, bin, arrayRes, filepath.Join(work, "array.sh"))
	script, _ := os.ReadFile(filepath.Join(work, "array.sh"))
	for _, want := range []string{"#SBATCH --array=1-4\n", `-shard "$((SLURM_ARRAY_TASK_ID))/4"`, "-results " + arrayRes, "exec " + bin + " sweep"} {
		if !strings.Contains(string(script), want) {
			t.Errorf("array.sh lacks %q:\n%s", want, script)
		}
	}
	refRes := filepath.Join(work, "single")
	ref := exec.Command(bin, append(append([]string{"sweep"}, clusterGrid...), "-data", data, "-results", refRes)...)
	ref.Env = append(os.Environ(), "GOMAXPROCS=1")
	refOut, err := ref.CombinedOutput()
	if err != nil {
		t.Fatalf("single-process sweep: %v\n%s", err, refOut)
	}
	t.Logf("single-process sweep done after %s", time.Since(phase).Round(time.Second))
	for _, j := range c.wait(t, job, 8*time.Minute) {
		if j.State != "COMPLETED" || j.ExitCode != "0:0" {
			t.Errorf("task %s_%s: %s, exit %s", j.ArrayJobID, j.ArrayTaskID, j.State, j.ExitCode)
		}
	}
	t.Logf("phase 1: array job %s (4 tasks) and single-process run finished in %s", job, time.Since(phase).Round(time.Second))
	want := readResults(t, refRes)
	diff := sameResults(t, "array job", readResults(t, arrayRes), want, 8)
	for k, n := range c.trainedKeys(job) {
		if n != 1 {
			t.Errorf("array job: %s trained %d times", k, n)
		}
	}
	if n := len(c.trainedKeys(job)); n != 8 {
		t.Errorf("array job: %d cells trained, want 8:%s", n, c.taskLogs(job))
	}
	t.Logf("array job vs single process: %d cells, same keys, max accuracy difference %g", len(want.records), diff)
	if t.Failed() {
		t.Log(c.taskLogs(job))
		return
	}

	// 2. A fresh sweep: cancel task 1 while it trains, then resubmit the incomplete shards.
	phase = time.Now()
	killRes := filepath.Join(work, "kill")
	job2 := c.emitAndSubmit(t, bin, killRes, filepath.Join(work, "kill.sh"))
	logPattern := filepath.Join(c.dir, "log", "*-"+job2+"_1.out")
	deadline := time.Now().Add(4 * time.Minute)
	for {
		files, _ := filepath.Glob(logPattern)
		if len(files) == 1 {
			data, _ := os.ReadFile(files[0])
			if strings.Contains(string(data), "start  [1/") {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("task 1 of job %s did not start a cell within 4 minutes:%s", job2, c.taskLogs(job2))
		}
		time.Sleep(50 * time.Millisecond)
	}
	// At once: the lock is taken before "start" is logged, and on a fast
	// machine a cell of this grid trains in well under a second, so a later
	// cancel could find task 1 done with both its cells.
	if _, err := c.run("scancel", job2+"_1"); err != nil {
		t.Fatal(err)
	}
	t.Logf("cancelled task %s_1 while it trained its first cell", job2)
	var task1 Job
	for _, j := range c.wait(t, job2, 8*time.Minute) {
		if j.ArrayTaskID == "1" {
			task1 = j
			continue
		}
		if j.State != "COMPLETED" {
			t.Errorf("task %s_%s: %s, exit %s", j.ArrayJobID, j.ArrayTaskID, j.State, j.ExitCode)
		}
	}
	if task1.State != "CANCELLED" {
		t.Errorf("task %s_1 ended %q, want CANCELLED", job2, task1.State)
	}
	// The cancelled task's lock stays until a sweep on this host finds its
	// pid dead: tasks 3 and 4, when they start after the cancel, remove it.
	afterCancel := readResults(t, killRes)
	st := c.softshape(t, bin, "status", "-results", killRes, "-shards", strconv.Itoa(clusterShards))
	t.Logf("status after the cancel (lock files left: %d):\n%s", len(afterCancel.locks), st)
	for _, w := range []string{"INCOMPLETE shard 1/4", "incomplete shards: 1 "} {
		if !strings.Contains(st, w) {
			t.Errorf("status lacks %q", w)
		}
	}
	if len(afterCancel.locks) > 0 && !strings.Contains(st, "stale lock of dead pid") {
		t.Errorf("the lock of the cancelled task is not reported stale")
	}
	// A lock as another node would leave it: owner on another host, its Slurm
	// job (the cancelled task) gone. squeue must make it stale.
	var missing sweep.Key
	for k, key := range want.keys {
		if _, ok := afterCancel.records[k]; !ok {
			missing = key
			break
		}
	}
	if missing.Table == "" {
		t.Fatal("no cell is missing after the cancel")
	}
	fake := plantForeignLock(t, killRes, missing, job2+"_1")
	st = c.softshape(t, bin, "status", "-results", killRes, "-list", "0")
	t.Logf("status with a planted lock of another node whose Slurm job %s_1 ended:\n%s", job2, st)
	if !strings.Contains(st, "stale lock of dead pid 4242 on other-node of Slurm job "+job2+"_1") {
		t.Errorf("a lock of another node whose Slurm job ended is not reported stale:\n%s", st)
	}
	job3 := c.emitAndSubmit(t, bin, killRes, filepath.Join(work, "resubmit.sh"), "-only-incomplete")
	script, _ = os.ReadFile(filepath.Join(work, "resubmit.sh"))
	if !strings.Contains(string(script), "#SBATCH --array=1\n") || !strings.Contains(string(script), `"$((SLURM_ARRAY_TASK_ID))/4"`) {
		t.Errorf("resubmit.sh does not run just shard 1 of 4:\n%s", script)
	}
	for _, j := range c.wait(t, job3, 6*time.Minute) {
		if j.State != "COMPLETED" || j.ExitCode != "0:0" {
			t.Errorf("resubmitted task %s_%s: %s, exit %s", j.ArrayJobID, j.ArrayTaskID, j.State, j.ExitCode)
		}
	}
	if _, err := os.Stat(fake); err == nil {
		t.Errorf("the stale foreign lock %s was not removed", fake)
	}
	diff = sameResults(t, "cancelled + resubmitted", readResults(t, killRes), want, 8)
	trained := c.trainedKeys(job2)
	for k, n := range c.trainedKeys(job3) {
		trained[k] += n
	}
	// The cancel can strike between a record's write and its "done" line:
	// then the cell task 1 was training is recorded (after the cancel, as
	// afterCancel shows), its line is missing, and the resubmission leaves
	// it alone.
	if k := c.lastStarted(job2, "1"); k != "" && trained[k] == 0 && afterCancel.records[k] == 1 {
		t.Logf("task %s_1 was cancelled after recording %s, before logging it", job2, k)
		trained[k] = 1
	}
	for k, n := range trained {
		if n != 1 {
			t.Errorf("cancelled + resubmitted: %s finished %d times", k, n)
		}
	}
	if len(trained) != 8 {
		t.Errorf("cancelled + resubmitted: %d cells finished, want 8", len(trained))
	}
	st = c.softshape(t, bin, "status", "-results", killRes, "-shards", strconv.Itoa(clusterShards))
	if !strings.Contains(st, "8 cells: 8 done") || !strings.Contains(st, "no shard has cells left to run") {
		t.Errorf("status after the resubmission:\n%s", st)
	}
	out := c.softshape(t, bin, append(append([]string{"sweep"}, clusterGrid...), "-data", data, "-results", killRes,
		"-emit-slurm", filepath.Join(work, "none.sh"), "-slurm-tasks", "4", "-only-incomplete")...)
	if !strings.Contains(out, "no script written") {
		t.Errorf("-only-incomplete on a complete sweep:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(work, "none.sh")); err == nil {
		t.Error("-only-incomplete wrote a script for a complete sweep")
	}
	t.Logf("phase 2: cancel of task 1, resubmission of shard 1 (job %s): complete, every cell once, max accuracy difference %g, in %s",
		job3, diff, time.Since(phase).Round(time.Second))
	if t.Failed() {
		t.Log(c.taskLogs(job2) + c.taskLogs(job3))
	}
	t.Logf("Slurm cluster test: %s in all (after the install)", time.Since(total).Round(time.Second))
}

// plantForeignLock writes the lock of cell k as a task on another node
// (Slurm job slurmJob) would have left it, and returns its path.
func plantForeignLock(t testing.TB, results string, k sweep.Key, slurmJob string) string {
	t.Helper()
	store, err := sweep.Open(results)
	if err != nil {
		t.Fatal(err)
	}
	path := store.LockPath(k)
	b, _ := json.Marshal(sweep.LockInfo{PID: 4242, Hostname: "other-node", Started: time.Now().UTC(), SlurmJob: slurmJob})
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// failureRecap is TestSlurmCluster's testing.TB: it keeps the test's failure
// messages to repeat them at the very end, since a failing run prints the
// daemons' logs last and CI shows only the tail of the output.
type failureRecap struct {
	*testing.T
	msgs []string
}

// keep records the first line of a failure message.
func (r *failureRecap) keep(msg string) {
	first, _, _ := strings.Cut(strings.TrimSpace(msg), "\n")
	r.msgs = append(r.msgs, tail(first, 300))
}

// Error records the message and reports it.
func (r *failureRecap) Error(args ...any) {
	r.T.Helper()
	r.keep(fmt.Sprint(args...))
	r.T.Error(args...)
}

// Errorf records the message and reports it.
func (r *failureRecap) Errorf(format string, args ...any) {
	r.T.Helper()
	r.keep(fmt.Sprintf(format, args...))
	r.T.Errorf(format, args...)
}

// Fatal records the message and reports it, ending the test.
func (r *failureRecap) Fatal(args ...any) {
	r.T.Helper()
	r.keep(fmt.Sprint(args...))
	r.T.Fatal(args...)
}

// Fatalf records the message and reports it, ending the test.
func (r *failureRecap) Fatalf(format string, args ...any) {
	r.T.Helper()
	r.keep(fmt.Sprintf(format, args...))
	r.T.Fatalf(format, args...)
}

// repeat logs the kept failure messages once more, when the test failed.
func (r *failureRecap) repeat() {
	if r.T.Failed() && len(r.msgs) > 0 {
		r.T.Logf("failures, repeated after the logs (%d):\n- %s", len(r.msgs), strings.Join(r.msgs, "\n- "))
	}
}

// tail returns the last n bytes of s.
func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
