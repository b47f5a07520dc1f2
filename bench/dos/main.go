// Command dos measures spdylab's SPDY server under each denial-of-service
// class the server limits (spdy/limits.go, server/limits.go).
//
// -mode process (the default) starts each server as a separate process
// serving plain SPDY/3.1 on loopback TCP, fresh for every class: `spdylab
// serve` with its limits at their defaults, `spdylab serve` with the flags
// that turn the class's limit off, and node-spdy 4.0.2 (interop/node/
// server.js). One client attacks for -duration (default 15 s) while the
// server's RSS (VmRSS, peak) and CPU (utime+stime, as % of one core over
// the attack) are sampled every 100 ms from /proc, a separate client
// fetches a small resource every 2 s (served during) and once the attacker
// has gone (served after). It prints a Markdown table.
//
// -mode inproc attacks an in-process server and reports peak Go heap with
// each limit off and at its default (default -duration 3s).
//
//	go run ./bench/dos [-duration 15s] [-classes bomb,PING] [-servers on,off,node]
//	go run ./bench/dos -mode inproc -duration 2s
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

func main() {
	mode := flag.String("mode", "process", "process (servers as separate processes) or inproc (in-process server, Go heap)")
	d := flag.Duration("duration", 0, "length of each attack (0 = 15s for process, 3s for inproc)")
	bin := flag.String("bin", "", "spdylab binary to serve with (default: go build ./cmd/spdylab into a temporary directory)")
	nodeDir := flag.String("node", "interop/node", "directory of node-spdy's server.js and node_modules")
	capMiB := flag.Uint64("max-rss", 2048, "stop an attack once the server's RSS passes this many MiB")
	conns := flag.Int("conns", 10000, "connections the connection-holding classes open")
	classes := flag.String("classes", "", "comma-separated substrings: play only classes whose name holds one (default all)")
	servers := flag.String("servers", "on,off,node", "comma-separated: on (spdylab limits on), off (limits off), node (node-spdy)")
	flag.Parse()
	switch *mode {
	case "inproc":
		mainInproc(or(*d, 3*time.Second))
	case "process":
		b := &procBench{nodeDir: *nodeDir, d: or(*d, 15*time.Second), capBytes: *capMiB << 20, idle: map[string][]float64{}}
		if err := b.setServers(*servers); err != nil {
			fail(err)
		}
		b.bin = *bin
		if b.bin == "" {
			dir, err := os.MkdirTemp("", "dos-bench-")
			if err != nil {
				fail(err)
			}
			defer os.RemoveAll(dir)
			b.bin = filepath.Join(dir, "spdylab")
			if out, err := exec.Command("go", "build", "-o", b.bin, "./cmd/spdylab").CombinedOutput(); err != nil {
				fail(fmt.Errorf("go build ./cmd/spdylab (run from the repository root): %v\n%s", err, out))
			}
		}
		b.main(selectClasses(attacks(*conns), *classes))
	default:
		fail(fmt.Errorf("unknown -mode %q (process or inproc)", *mode))
	}
	os.Stdout.Sync()
}

func or(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "dos:", err)
	os.Exit(1)
}

func (b *procBench) setServers(list string) error {
	names := map[string]string{"on": spdylabOn, "off": spdylabOff, "node": nodeSPDY}
	for _, s := range strings.Split(list, ",") {
		name, ok := names[strings.TrimSpace(s)]
		if !ok {
			return fmt.Errorf("unknown server %q in -servers (on, off, node)", s)
		}
		b.servers = append(b.servers, name)
	}
	return nil
}

// selectClasses keeps the process-mode classes whose name holds one of the
// comma-separated substrings (all when empty).
func selectClasses(as []attack, list string) []attack {
	var out []attack
	for _, a := range as {
		if a.inprocOnly {
			continue
		}
		keep := list == ""
		for _, s := range strings.Split(list, ",") {
			if s != "" && strings.Contains(strings.ToLower(a.name), strings.ToLower(strings.TrimSpace(s))) {
				keep = true
			}
		}
		if keep {
			out = append(out, a)
		}
	}
	return out
}
