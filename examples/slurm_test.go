// Package examples tests the cluster examples of this folder: slurm-array.sh
// on a real one-node Slurm cluster started on this machine, and
// k8s-indexed-job.yaml against the Kubernetes API types.
package examples

import (
	"context"
	"crypto/rand"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spdylab/spdylab/internal/testutil"
	"github.com/spdylab/spdylab/study/store"
	"github.com/spdylab/spdylab/study/studyfile"
)

// smokeStudy is the study the cluster tests run: 4 conditions in 2 bench
// groups, one load each, so each of 2 shards runs one group.
const smokeStudy = "testdata/cluster-smoke.toml"

// TestSlurmArray submits slurm-array.sh, unedited, as a 2-task array to a
// one-node Slurm cluster (munged, slurmctld and slurmd started here with a
// generated key and configuration), merges the two shards with `spdylab
// merge` and checks that the merged store holds every load of the study
// once and that its report was written.
func TestSlurmArray(t *testing.T) {
	testutil.RequireRootTo(t, "start Slurm's daemons and run the testbeds")
	if out, err := exec.Command("bash", "../scripts/deps.sh", "slurm").CombinedOutput(); err != nil {
		t.Skipf("Slurm and munge cannot be installed here (scripts/deps.sh slurm: %v):\n%s", err, out)
	}
	studyFile, err := filepath.Abs(smokeStudy)
	if err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs("slurm-array.sh")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir() // removed after the daemons are stopped (cleanups run in reverse)
	bin := filepath.Join(dir, "spdylab")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/spdylab").CombinedOutput(); err != nil {
		t.Fatalf("building spdylab: %v\n%s", err, out)
	}

	c := startCluster(t, dir)

	// Submit as a user would: the environment names the binary and the
	// shared output folder; the script is the checked-in file.
	out := filepath.Join(dir, "out")
	if sbOut, err := c.sbatch(dir, []string{"SPDYLAB=" + bin, "OUT_ROOT=" + out}, script, studyFile); err != nil {
		t.Fatalf("sbatch --array=0-1 --wait slurm-array.sh: %v\n%s\n%s", err, sbOut, c.logs())
	}

	shards := []string{filepath.Join(out, "cluster-smoke.shard-0"), filepath.Join(out, "cluster-smoke.shard-1")}
	merged := filepath.Join(dir, "merged")
	mg := exec.Command(bin, append([]string{"merge", merged}, shards...)...)
	if mout, err := mg.CombinedOutput(); err != nil {
		t.Fatalf("spdylab merge: %v\n%s\n%s", err, mout, c.logs())
	}
	checkMerged(t, merged, studyFile)

	// A node without the binary, and a job without root, fail their tasks
	// at once and say why in the task's log.
	for _, tc := range []struct {
		name string
		env  []string
		args []string
		want string
	}{
		{"no binary", []string{"SPDYLAB=" + filepath.Join(dir, "nowhere", "spdylab")}, nil, "no spdylab binary on "},
		{"not root", []string{"SPDYLAB=" + bin}, []string{"--uid=nobody", "--gid=nogroup"}, "without CAP_NET_ADMIN and CAP_SYS_ADMIN"},
	} {
		sub := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-"))
		if err := os.Mkdir(sub, 0o777); err != nil {
			t.Fatal(err)
		}
		os.Chmod(sub, 0o777) // past the umask: the job may run as nobody
		env := append(tc.env, "OUT_ROOT="+filepath.Join(sub, "out"))
		sbOut, err := c.sbatch(sub, env, append(tc.args, script, studyFile)...)
		if err == nil {
			t.Errorf("%s: sbatch --wait succeeded:\n%s", tc.name, sbOut)
		}
		logs, _ := filepath.Glob(filepath.Join(sub, "spdylab-*.log"))
		if len(logs) != 2 {
			t.Errorf("%s: task logs %q, want 2\n%s", tc.name, logs, c.logs())
		}
		for _, l := range logs {
			if b, _ := os.ReadFile(l); !strings.Contains(string(b), tc.want) {
				t.Errorf("%s: %s says %q, want %q", tc.name, filepath.Base(l), b, tc.want)
			}
		}
		if _, err := os.Stat(filepath.Join(sub, "out")); !os.IsNotExist(err) {
			t.Errorf("%s: the failed tasks made their output folder", tc.name)
		}
	}
}

// sbatch submits the script (last but one of args, before its study
// argument) as an array of 2 tasks from folder dir, with env added to the
// cluster's environment, and waits for the tasks to end.
func (c *cluster) sbatch(dir string, env []string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sbatch", append([]string{"--array=0-1", "--wait"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(c.env(), env...)
	return cmd.CombinedOutput()
}

// checkMerged checks that the store in dir holds one successful load of
// every condition and run of the study, nothing else, the sessions of both
// shards, and a report.
func checkMerged(t *testing.T, dir, studyFile string) {
	t.Helper()
	want, err := studyfile.Load(studyFile)
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s, err := st.Study()
	if err != nil {
		t.Fatal(err)
	}
	if s.Fingerprint() != want.Fingerprint() {
		t.Errorf("merged store holds study %s (fingerprint %s), want %s (%s)", s.Name, s.Fingerprint(), want.Name, want.Fingerprint())
	}
	probes, err := st.Probes(false)
	if err != nil {
		t.Fatal(err)
	}
	ok := map[store.ProbeKey]int{}
	for _, p := range probes {
		if !p.Result.Failed {
			ok[store.ProbeKey{CondHash: p.CondHash, Run: p.Run}]++
		}
	}
	n := 0
	for _, c := range want.Conditions {
		for run := 0; run < want.Runs; run++ {
			n++
			k := store.ProbeKey{CondHash: c.Hash, Run: run}
			if ok[k] != 1 {
				t.Errorf("condition %s (%s, %s) run %d: %d successful loads, want 1", c.Hash, c.Describe(), c.Proto, run, ok[k])
			}
			delete(ok, k)
		}
	}
	for k, m := range ok {
		t.Errorf("load %s run %d (%d times) is not in the study", k.CondHash, k.Run, m)
	}
	if n != 4 {
		t.Errorf("study has %d loads, want 4 (testdata changed?)", n)
	}
	sess, err := st.Sessions()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range sess {
		got = append(got, p.Shard)
	}
	if strings.Join(got, " ") != "0/2 1/2" {
		t.Errorf("merged sessions ran shards %q, want 0/2 and 1/2", got)
	}
	if fi, err := os.Stat(filepath.Join(dir, "report.html")); err != nil || fi.Size() == 0 {
		t.Errorf("merged report: %v", err)
	}
}

// cluster is a one-node Slurm cluster on this machine.
type cluster struct {
	dir     string
	conf    string
	daemons []*daemon
}

type daemon struct {
	name string
	cmd  *exec.Cmd
	log  string
	done chan error
}

// env is the environment for Slurm's commands: this process's without any
// Slurm settings of an enclosing job, pointing at the cluster's slurm.conf.
func (c *cluster) env() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "SLURM_") || strings.HasPrefix(kv, "SBATCH_") || strings.HasPrefix(kv, "SALLOC_") || strings.HasPrefix(kv, "SRUN_") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "SLURM_CONF="+c.conf)
}

// logs returns the daemons' output and the array tasks' logs, for failures.
func (c *cluster) logs() string {
	var b strings.Builder
	files, _ := filepath.Glob(filepath.Join(c.dir, "spdylab-*.log"))
	for _, d := range c.daemons {
		files = append(files, d.log)
	}
	for _, f := range files {
		data, _ := os.ReadFile(f)
		if len(data) > 4000 {
			data = data[len(data)-4000:]
		}
		fmt.Fprintf(&b, "--- %s:\n%s\n", filepath.Base(f), data)
	}
	return b.String()
}

// startCluster starts munged with a fresh key, then slurmctld and slurmd
// with a slurm.conf for one node (this host, its CPUs) on free ports, all
// state in dir, and waits until the node is idle. Cleanup cancels what still
// runs on the cluster and stops the daemons it started.
func startCluster(t *testing.T, dir string) *cluster {
	t.Helper()
	// munged wants a socket folder others can traverse, and a job that
	// runs as another user must reach the binary.
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	c := &cluster{dir: dir, conf: filepath.Join(dir, "slurm.conf")}
	t.Cleanup(c.stop)

	key := make([]byte, 1024)
	rand.Read(key)
	if err := os.WriteFile(filepath.Join(dir, "munge.key"), key, 0o400); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "munge.sock")
	c.start(t, "munged", "/usr/sbin/munged", "--foreground", "--force",
		"--key-file="+filepath.Join(dir, "munge.key"), "--socket="+sock,
		"--pid-file="+filepath.Join(dir, "munged.pid"), "--seed-file="+filepath.Join(dir, "munged.seed"),
		"--log-file="+filepath.Join(dir, "munged.log"))
	waitFor(t, c, "munged's socket", func() bool {
		return exec.Command("munge", "--socket="+sock, "--no-input").Run() == nil
	})

	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	host, _, _ = strings.Cut(host, ".") // Slurm names nodes by the short host name
	for _, d := range []string{"state", "spool"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	conf := fmt.Sprintf(`# A one-node cluster for examples/'s test.
ClusterName=spdylabtest
SlurmctldHost=%[1]s(127.0.0.1)
SlurmctldPort=%[2]d
SlurmdPort=%[3]d
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=%[4]s
CredType=cred/munge
StateSaveLocation=%[5]s/state
SlurmdSpoolDir=%[5]s/spool
SlurmctldPidFile=%[5]s/slurmctld.pid
SlurmdPidFile=%[5]s/slurmd.pid
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
MailProg=/bin/true
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
SlurmdParameters=config_overrides
NodeName=%[1]s NodeAddr=127.0.0.1 CPUs=%[6]d State=UNKNOWN
PartitionName=test Nodes=%[1]s Default=YES MaxTime=INFINITE State=UP
`, host, freePort(t), freePort(t), sock, dir, max(2, runtime.NumCPU()))
	// The script asks for 2 CPUs a task; config_overrides lets a 1-CPU
	// machine declare 2. With --exclusive the two tasks run one after
	// the other.
	if err := os.WriteFile(c.conf, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	// -D: stay in the foreground, so the PIDs we hold are the daemons';
	// -i: ignore state left by an earlier run (there is none).
	c.start(t, "slurmctld", "/usr/sbin/slurmctld", "-D", "-i", "-f", c.conf)
	c.start(t, "slurmd", "/usr/sbin/slurmd", "-D", "-N", host, "-f", c.conf)
	waitFor(t, c, "the node to be idle", func() bool {
		cmd := exec.Command("sinfo", "--noheader", "--format=%T", "--nodes="+host)
		cmd.Env = c.env()
		out, err := cmd.Output()
		return err == nil && strings.TrimSpace(string(out)) == "idle"
	})
	return c
}

// freePort returns a TCP port nothing listens on right now.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// start runs a daemon in the foreground with its output in dir/NAME.out;
// it dies with the test process if that is killed.
func (c *cluster) start(t *testing.T, name, path string, args ...string) {
	t.Helper()
	d := &daemon{name: name, log: filepath.Join(c.dir, name+".out"), done: make(chan error, 1)}
	f, err := os.Create(d.log)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d.cmd = exec.Command(path, args...)
	d.cmd.Env = c.env()
	d.cmd.Stdout, d.cmd.Stderr = f, f
	d.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := d.cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	go func() { d.done <- d.cmd.Wait() }()
	c.daemons = append(c.daemons, d)
}

// waitFor polls cond until it holds, failing the test when a daemon exits
// or a minute passes.
func waitFor(t *testing.T, c *cluster, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		for _, d := range c.daemons {
			select {
			case err := <-d.done:
				d.done <- err
				t.Fatalf("%s exited (%v) while waiting for %s:\n%s", d.name, err, what, c.logs())
			default:
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s: still not there after a minute\n%s", what, c.logs())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// stop cancels the jobs still on the cluster (a failed test may leave
// some), waits for them to go, then stops the daemons in reverse order by
// their PIDs: SIGTERM, and SIGKILL if one has not exited 15 s later.
func (c *cluster) stop() {
	if len(c.daemons) == 3 {
		run := func(name string, args ...string) string {
			cmd := exec.Command(name, args...)
			cmd.Env = c.env()
			out, _ := cmd.Output()
			return strings.TrimSpace(string(out))
		}
		run("scancel", "--full", "--user=root")
		for i := 0; i < 150 && run("squeue", "--noheader", "--format=%i") != ""; i++ {
			time.Sleep(200 * time.Millisecond)
		}
	}
	for i := len(c.daemons) - 1; i >= 0; i-- {
		d := c.daemons[i]
		d.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-d.done:
		case <-time.After(15 * time.Second):
			d.cmd.Process.Kill()
			<-d.done
		}
	}
	c.daemons = nil
}
