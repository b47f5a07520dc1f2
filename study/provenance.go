package study

import (
	"bufio"
	"context"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/spdylab/spdylab/study/autosize"
	"github.com/spdylab/spdylab/study/spec"
	"github.com/spdylab/spdylab/study/store"
)

// Revision is the spdylab source revision, set with
// -ldflags "-X github.com/spdylab/spdylab/study.Revision=$(git rev-parse HEAD)";
// when empty the Go build info is consulted.
var Revision string

// CollectProvenance describes this process and machine, with the versions
// of the tools given (name -> a command printing the version).
func CollectProvenance(seed int64, jobs int, sh spec.Shard, args string, tools map[string][]string) store.Provenance {
	p := store.Provenance{Started: time.Now(), Go: runtime.Version(), Seed: seed, Jobs: jobs, Shard: sh.String(), Args: args}
	p.Hostname, _ = os.Hostname()
	p.Machine = collectMachine(tools)
	var u unix.Utsname
	if unix.Uname(&u) == nil {
		p.Kernel = unix.ByteSliceToString(u.Sysname[:]) + " " + unix.ByteSliceToString(u.Release[:]) + " " + unix.ByteSliceToString(u.Machine[:])
	}
	p.Revision = SourceRevision()
	return p
}

// SourceRevision is the source revision this binary was built from: the
// stamp the Makefile links in, else Go's VCS build info, else the work
// tree's git revision, else "unknown".
func SourceRevision() string {
	rev := Revision
	if rev == "" {
		if bi, ok := debug.ReadBuildInfo(); ok {
			mod := ""
			for _, s := range bi.Settings {
				switch s.Key {
				case "vcs.revision":
					rev = s.Value
				case "vcs.modified":
					if s.Value == "true" {
						mod = "+dirty"
					}
				}
			}
			if rev == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
				rev = bi.Main.Version
			}
			if rev != "" {
				rev += mod
			}
		}
	}
	if rev == "" {
		rev = worktreeRevision()
	}
	if rev == "" {
		rev = "unknown"
	}
	return rev
}

// worktreeRevision is the git revision of the work tree the executable
// lives in (bin/spdylab after `make build`), for builds without VCS stamps.
// It is marked as such because the binary may predate later edits.
func worktreeRevision() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "git", "-C", filepath.Dir(exe), "rev-parse", "HEAD").Output()
	if err != nil {
		return ""
	}
	rev := strings.TrimSpace(string(out))
	if len(rev) != 40 {
		return ""
	}
	return rev + " (work tree at run time)"
}

// provenanceSysctls are the host settings a testbed's namespaces inherit
// (net.core.* is per namespace but starts from defaults, net.ipv4.tcp_*
// memory limits are global) or that tell how the host was tuned.
var provenanceSysctls = []string{
	"net/ipv4/tcp_congestion_control",
	"net/ipv4/tcp_available_congestion_control",
	"net/ipv4/tcp_rmem",
	"net/ipv4/tcp_wmem",
	"net/ipv4/tcp_mem",
	"net/ipv4/tcp_slow_start_after_idle",
	"net/ipv4/tcp_no_metrics_save",
	"net/ipv4/tcp_sack",
	"net/ipv4/tcp_timestamps",
	"net/ipv4/tcp_ecn",
	"net/core/rmem_max",
	"net/core/wmem_max",
	"net/core/default_qdisc",
	"kernel/sched_autogroup_enabled",
}

// provenanceModules are the Go modules whose code carries the measured
// protocols or stores the results.
var provenanceModules = []string{
	"golang.org/x/net",
	"github.com/quic-go/quic-go",
	"github.com/vishvananda/netlink",
	"modernc.org/sqlite",
}

// collectMachine reads what else about the host can move a measurement.
func collectMachine(tools map[string][]string) store.Machine {
	m := store.Machine{CPUs: runtime.NumCPU(), Sysctls: map[string]string{}, Deps: map[string]string{}}
	m.CPUModel = cpuModel()
	m.MemMiB = memTotalMiB()
	var info unix.Sysinfo_t
	if unix.Sysinfo(&info) == nil {
		for i, l := range info.Loads {
			m.LoadAvg[i] = float64(l) / float64(1<<unix.SI_LOAD_SHIFT)
		}
	}
	for _, k := range provenanceSysctls {
		if b, err := os.ReadFile("/proc/sys/" + k); err == nil {
			m.Sysctls[strings.ReplaceAll(k, "/", ".")] = strings.Join(strings.Fields(string(b)), " ")
		}
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		maps.Copy(m.Deps, moduleVersions(bi))
	}
	for tool, args := range tools {
		if v := toolVersion(args...); v != "" {
			m.Deps[tool] = v
		}
	}
	return m
}

// ModuleVersions are this binary's versions of the modules a run's
// provenance records (provenanceModules: quic-go, x/net, netlink, SQLite),
// by module path; `spdylab version` prints them.
func ModuleVersions() map[string]string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		return moduleVersions(bi)
	}
	return map[string]string{}
}

// moduleVersions picks provenanceModules out of a binary's build info
// (the spdylab binary links them all; a test binary records none).
func moduleVersions(bi *debug.BuildInfo) map[string]string {
	out := map[string]string{}
	for _, d := range bi.Deps {
		if slices.Contains(provenanceModules, d.Path) {
			v := d.Version
			if d.Replace != nil {
				v += " => " + d.Replace.Path + " " + d.Replace.Version
			}
			out[d.Path] = v
		}
	}
	return out
}

// cpuModel is /proc/cpuinfo's first "model name".
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// memTotalMiB is /proc/meminfo's MemTotal.
func memTotalMiB() int { return autosize.MeminfoMiB("MemTotal:") }

// toolVersion is the first line a program prints for args ("" when it is
// missing or slow).
func toolVersion(args ...string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, args[0], args[1:]...).Output()
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return line
}
