// Package pagedata finds the shared recordings of real pages
// (../shared/pages next to the repository) that tests and studies read.
// They are never part of the repository: callers skip when absent.
package pagedata

import (
	"os"
	"path/filepath"
)

// EnvDir names the pages folder explicitly (it holds har/ and wprof/).
const EnvDir = "SPDYLAB_PAGES"

// Dir returns the pages folder: $SPDYLAB_PAGES, else the first
// shared/pages found next to the working directory or one of its
// ancestors (a package directory of the repository or of a worktree).
func Dir() (string, bool) {
	if d := os.Getenv(EnvDir); d != "" {
		st, err := os.Stat(d)
		return d, err == nil && st.IsDir()
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for d := wd; ; d = filepath.Dir(d) {
		p := filepath.Join(d, "shared", "pages")
		if st, err := os.Stat(filepath.Join(p, "har")); err == nil && st.IsDir() {
			return p, true
		}
		if filepath.Dir(d) == d {
			return filepath.Join(filepath.Dir(wd), "shared", "pages"), false
		}
	}
}

// HARFiles lists the shared HAR recordings, and the folder searched.
func HARFiles() ([]string, string) {
	d, _ := Dir()
	dir := filepath.Join(d, "har")
	files, _ := filepath.Glob(filepath.Join(dir, "*.har"))
	return files, dir
}
