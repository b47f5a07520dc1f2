package findings

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spdylab/spdylab/internal/atomicfile"
)

// TableFile is a driver finding's output in its store folder.
const TableFile = "table.md"

// quickDuration is each attack's length in a --runs pass of a driver
// finding: enough to see every class start, far from a measurement.
const quickDuration = "2s"

// runDriver brings a driver finding up to date: its table is current
// when the stamp beside it was written for this file's text and these
// arguments; otherwise (unless NoRun) the driver runs again, the old
// folder kept aside.
func runDriver(ctx context.Context, opt Options, f *File, dir string, base Row) Row {
	args := f.Args
	if opt.Runs > 0 {
		args = append(append([]string(nil), args...), "-duration", quickDuration)
	}
	fp := strings.Join(append([]string{f.Driver}, args...), " ")
	base.Loads = f.Loads
	if opt.Runs > 0 {
		base.Loads = fmt.Sprintf("attacks of %s (a quick --runs pass; the file asks for: %s)", quickDuration, f.Loads)
	}
	st, err := readStamp(dir)
	if err != nil {
		base.Status, base.Reason = StatusFailed, err.Error()
		return base
	}
	current := st != nil && st.State == StateDone && st.FileSum == f.Sum && st.Fingerprint == fp
	if !current && !opt.NoRun {
		if st != nil {
			to, err := moveAside(dir, opt.now())
			if err != nil {
				base.Status, base.Reason = StatusFailed, "could not move the earlier output aside: "+err.Error()
				return base
			}
			base.Note = "run afresh: the earlier output (kept at " + to + ") was for another file or failed"
		}
		st = &Stamp{File: f.Path, FileSum: f.Sum, Fingerprint: fp, Runs: opt.Runs, State: StateRunning,
			Command: findingCommand(opt, f.Name), Revision: revision(), Started: opt.now()}
		if err := writeStamp(dir, st); err != nil {
			base.Status, base.Reason = StatusFailed, err.Error()
			return base
		}
		fmt.Fprintf(opt.Log, "spdylab findings: %s: running %s\n", f.Name, fp)
		out, err := opt.Driver(ctx, f, args)
		if err == nil {
			err = atomicfile.Write(filepath.Join(dir, TableFile), out)
		}
		st.Finished, st.State = opt.now(), StateDone
		if err != nil {
			st.State, st.Error = StateFailed, err.Error()
		}
		if werr := writeStamp(dir, st); werr != nil && err == nil {
			st.State, st.Error = StateFailed, werr.Error()
		}
	}
	return driverRow(f, dir, st, fp, base)
}

// driverRow shows a driver finding from its stamp and table.
func driverRow(f *File, dir string, st *Stamp, fp string, base Row) Row {
	switch {
	case st == nil:
		base.Status, base.Reason = StatusMissing, "nothing stored yet: run "+base.Command
		return base
	case st.State == StateFailed:
		base.Status, base.Reason = StatusFailed, "the last run failed: "+st.Error
		return base
	case st.State != StateDone:
		base.Status, base.Reason = StatusPartial, "a run started "+st.Started.UTC().Format("2006-01-02 15:04")+" did not finish"
		return base
	case st.FileSum != f.Sum || st.Fingerprint != fp:
		base.Status, base.Reason = StatusStale, "its output was made for another version of the file or other arguments ("+st.Fingerprint+")"
		return base
	}
	table, err := os.ReadFile(filepath.Join(dir, TableFile))
	if err != nil {
		base.Status, base.Reason = StatusFailed, err.Error()
		return base
	}
	base.Status, base.Table = StatusCurrent, string(table)
	base.Answer = []string{fmt.Sprintf("the table below (%s, %d lines)", fp, bytes.Count(table, []byte("\n")))}
	base.Explain = []string{"one attack per class and server: the limit that bounds each class is named in the table"}
	base.LateShift = "no emulated link (loopback)"
	base.Commits, base.Date, base.Machine = shortRev(st.Revision), st.Finished.UTC().Format("2006-01-02 15:04 UTC"), hostname()
	base.Took = st.took()
	return base
}

// goDriver runs a driver with `go run ./DRIVER ARGS` from the repository
// that holds the findings folder (drivers are programs of the
// repository, not of the binary).
func goDriver(findingsDir string) func(ctx context.Context, f *File, args []string) ([]byte, error) {
	return func(ctx context.Context, f *File, args []string) ([]byte, error) {
		abs, err := filepath.Abs(findingsDir)
		if err != nil {
			return nil, err
		}
		root := filepath.Dir(abs)
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
			return nil, fmt.Errorf("driver %s runs from the repository's source: %s holds no go.mod", f.Driver, root)
		}
		cmd := exec.CommandContext(ctx, "go", append([]string{"run", "./" + f.Driver}, args...)...)
		cmd.Dir = root
		// The program go run builds is go's child: on an interrupt the
		// whole group goes, so no attacker or server outlives the command.
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
		cmd.WaitDelay = 10 * time.Second
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("go run ./%s: %v: %s", f.Driver, err, lastLines(stderr.String(), 5))
		}
		return stdout.Bytes(), nil
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
