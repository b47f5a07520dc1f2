package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"runtime"
	"slices"

	"github.com/spdylab/spdylab/study"
)

func init() {
	register(command{
		name:     "version",
		summary:  "print the source revision, the Go version and the versions of the main modules (also --version)",
		synopsis: "spdylab version [--json]",
		examples: []string{
			"spdylab version",
			"spdylab version --json    # what a run's provenance records, as JSON",
		},
		run: runVersion,
	})
}

// versionInfo is what `spdylab version` prints: what a run's provenance
// records of the binary (study.SourceRevision, study.ModuleVersions).
type versionInfo struct {
	Revision string            `json:"revision"`
	Go       string            `json:"go"`
	Platform string            `json:"platform"`
	Modules  map[string]string `json:"modules"`
}

func runVersion(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print one JSON object")
	setHelp(fs, "The revision is the one `make build` stamps (or Go's VCS stamp, or the git\nrevision of the work tree the binary lives in); the modules are those a\nrun's provenance records.")
	if err := parseFlags(fs, args); err != nil {
		return flagExit(err)
	}
	if fs.NArg() > 0 {
		return usageError(stderr, "version", "unexpected argument %q", fs.Arg(0))
	}
	v := versionInfo{Revision: study.SourceRevision(), Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH, Modules: study.ModuleVersions()}
	if *asJSON {
		b, _ := json.Marshal(v)
		fmt.Fprintf(stdout, "%s\n", b)
		return 0
	}
	fmt.Fprintf(stdout, "spdylab %s\n%s %s\n", v.Revision, v.Go, v.Platform)
	paths := make([]string, 0, len(v.Modules))
	for p := range v.Modules {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	width := 0
	for _, p := range paths {
		width = max(width, len(p))
	}
	for _, p := range paths {
		fmt.Fprintf(stdout, "%-*s %s\n", width, p, v.Modules[p])
	}
	if len(paths) == 0 {
		fmt.Fprintln(stdout, "modules: unknown (built without module information)")
	}
	return 0
}
