package slurm

import (
	"bufio"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
)

// Job is one job (or array task) as reported by "scontrol -o show job".
type Job struct {
	// ID is the job id; ArrayJobID and ArrayTaskID are set for array tasks
	// (ArrayTaskID may be a range like "3-4" for tasks still pending together).
	ID, ArrayJobID, ArrayTaskID string
	// State is JobState (PENDING, RUNNING, COMPLETED, CANCELLED, FAILED, ...);
	// ExitCode is "code:signal".
	State, ExitCode string
}

// Done reports whether the job has ended (in any way).
func (j Job) Done() bool {
	switch j.State {
	case "", "PENDING", "RUNNING", "CONFIGURING", "COMPLETING", "SUSPENDED", "REQUEUED", "RESIZING", "SIGNALING", "STAGE_OUT", "STOPPED":
		return false
	}
	return true
}

// jobField matches the "Key=Value" fields of scontrol's one-line output.
var jobField = regexp.MustCompile(`(?:^|\s)(JobId|ArrayJobId|ArrayTaskId|JobState|ExitCode)=(\S+)`)

// ParseJobs reads the output of "scontrol -o show job ID": one job per line.
func ParseJobs(text string) []Job {
	var out []Job
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 1<<16), 1<<22)
	for sc.Scan() {
		var j Job
		for _, m := range jobField.FindAllStringSubmatch(sc.Text(), -1) {
			switch m[1] {
			case "JobId":
				j.ID = m[2]
			case "ArrayJobId":
				j.ArrayJobID = m[2]
			case "ArrayTaskId":
				j.ArrayTaskID = m[2]
			case "JobState":
				j.State = m[2]
			case "ExitCode":
				j.ExitCode = m[2]
			}
		}
		if j.ID != "" {
			out = append(out, j)
		}
	}
	return out
}

// ShowJob runs "scontrol -o show job id" and parses it. A job that has left
// the controller's memory is an error.
func ShowJob(id string) ([]Job, error) {
	out, err := exec.Command("scontrol", "-o", "show", "job", id).CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("scontrol show job %s: %v: %s", id, err, strings.TrimSpace(string(out)))
	}
	return ParseJobs(string(out)), nil
}
