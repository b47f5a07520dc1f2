// Package atomicfile writes whole files or nothing: the data goes to a
// temporary file in the target's directory, which is renamed over the
// target only once it is complete, so an interrupted run never leaves a
// half-written HAR, report or state file behind.
package atomicfile

import (
	"os"
	"path/filepath"
)

// Write replaces path with data, readable by everyone (0644).
func Write(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}
