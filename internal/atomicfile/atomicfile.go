// Package atomicfile writes whole files or nothing: the data goes to a
// temporary file in the target's directory, which is renamed over the
// target only once it is complete, so an interrupted run never leaves a
// half-written HAR, report, state file or packet capture behind. A process
// killed mid-write leaves at most a hidden ".NAME.tmp-*" file.
package atomicfile

import (
	"os"
	"path/filepath"
)

// Write replaces path with data, readable by everyone (0644).
func Write(path string, data []byte) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}

// File is a file being written that appears at its path only on Commit:
// for data written in pieces over time (a packet capture).
type File struct {
	*os.File
	path string
}

// Create starts writing path: writes go to a temporary file beside it.
func Create(path string) (*File, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, err
	}
	return &File{File: f, path: path}, nil
}

// Commit closes the file and renames it over the path, readable by
// everyone (0644). On error nothing is left but what was at the path.
func (f *File) Commit() error {
	tmp := f.Name()
	err := f.Close()
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err == nil {
		err = os.Rename(tmp, f.path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// Abort closes and removes the temporary file; the path is untouched.
func (f *File) Abort() {
	f.Close()
	os.Remove(f.Name())
}
