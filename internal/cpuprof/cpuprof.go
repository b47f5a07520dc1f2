// Package cpuprof writes a CPU profile of a whole process when the
// environment asks for one: SPDYLAB_CPUPROFILE=FILE. It exists to measure
// where a page load's CPU goes (loader, servers, TLS, certificates, bench
// setup) without a flag on every subcommand; the emulator child process
// inherits the variable and writes its own profile next to the parent's.
package cpuprof

import (
	"fmt"
	"os"
	"runtime/pprof"

	"github.com/spdylab/spdylab/internal/atomicfile"
)

// EnvVar names the file the profile goes to.
const EnvVar = "SPDYLAB_CPUPROFILE"

// FromEnv starts profiling when EnvVar is set and returns the function that
// stops it and writes the file. suffix is appended to the file name (with
// the process id) so that processes sharing the environment, such as the
// emulator children of one run, never overwrite each other's profile.
// Problems are reported on stderr: a profile is a diagnostic and never
// changes what the program does.
func FromEnv(suffix string) (stop func()) {
	path := os.Getenv(EnvVar)
	if path == "" {
		return func() {}
	}
	if suffix != "" {
		path = fmt.Sprintf("%s.%s.%d", path, suffix, os.Getpid())
	}
	f, err := atomicfile.Create(path)
	if err != nil {
		fmt.Fprintf(os.Stderr, "spdylab: %s: %v\n", EnvVar, err)
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		fmt.Fprintf(os.Stderr, "spdylab: %s: %v\n", EnvVar, err)
		f.Abort()
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Commit(); err != nil {
			fmt.Fprintf(os.Stderr, "spdylab: %s: %v\n", EnvVar, err)
		}
	}
}
