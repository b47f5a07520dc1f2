// Package atomicfile is the one writer of the lab's output files (HARs,
// pcaps, reports, profiles, bodies, tune outputs). What it does depends on
// what is at the path, so that an output never destroys what a user pointed
// it at:
//
//   - a missing path or a regular file is replaced whole or not at all: the
//     data goes to a temporary file beside it, is synced, and renamed over
//     the path only once complete, so an interrupted run never leaves a
//     half-written file (a process killed mid-write leaves at most a hidden
//     ".NAME.tmp-*" file);
//   - a character or block device, a FIFO or a Unix socket is written
//     directly and never replaced: renaming over /dev/null would leave the
//     machine a regular file where every program expects the device;
//   - "-" is standard output;
//   - a symbolic link is written through: what it points to is treated as
//     above and the link is kept, unless Options.ReplaceLink asks for the
//     link itself to be replaced;
//   - a directory is refused with an error naming the path.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
)

// Stdout is the path that names standard output.
const Stdout = "-"

// ErrDirectory is the reason a directory is refused where a file is expected.
var ErrDirectory = errors.New("is a directory, where a file is expected")

// maxLinks bounds how many symbolic links are followed (the kernel's own
// limit), so that a loop of links is an error instead of a hang.
const maxLinks = 40

// Options change how a path is written.
type Options struct {
	// Perm is a replaced file's permission bits (default 0644). Devices,
	// FIFOs and sockets keep their own.
	Perm os.FileMode
	// ReplaceLink replaces a symbolic link at the path with a regular file
	// instead of writing what it points to.
	ReplaceLink bool
}

// Write writes data to path as the package comment says (0644 if a file
// is created).
func Write(path string, data []byte) error {
	return WriteWith(path, data, Options{})
}

// WriteWith is Write with options.
func WriteWith(path string, data []byte, opt Options) error {
	f, err := CreateWith(path, opt)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Abort()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Commit()
}

// File is an output being written. For a replaced file the data appears
// at its path only on Commit (a packet capture written in pieces over
// time); for a device, FIFO, socket or stdout it goes out as it is written.
type File struct {
	*os.File
	path   string // where a temporary file is renamed to; "" when written directly
	stdout bool   // os.Stdout: never closed here
}

// Create starts writing path (0644 if a file is created).
func Create(path string) (*File, error) {
	return CreateWith(path, Options{})
}

// CreateWith starts writing path with options.
func CreateWith(path string, opt Options) (*File, error) {
	if path == Stdout {
		return &File{File: os.Stdout, stdout: true}, nil
	}
	target, fi, err := resolve(path, opt)
	if err != nil {
		return nil, err
	}
	switch {
	case fi == nil || fi.Mode().IsRegular() || fi.Mode()&fs.ModeSymlink != 0:
		// A link is seen here only when ReplaceLink asks for it to go.
		return createTemp(target, opt)
	case fi.IsDir():
		return nil, &fs.PathError{Op: "write", Path: path, Err: ErrDirectory}
	case fi.Mode()&(fs.ModeDevice|fs.ModeCharDevice|fs.ModeNamedPipe) != 0:
		// O_APPEND keeps a file that is not what its mode says (a race with
		// a rename) from being truncated; devices and FIFOs ignore it.
		f, err := os.OpenFile(target, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			return nil, err
		}
		return &File{File: f}, nil
	case fi.Mode()&fs.ModeSocket != 0:
		return dialSocket(target)
	default:
		return nil, &fs.PathError{Op: "write", Path: path, Err: fmt.Errorf("is neither a file nor a device, FIFO or socket (mode %v)", fi.Mode())}
	}
}

// resolve follows symbolic links at the path's last element (unless the
// options keep the link itself) to the path to write and what is there
// (nil when nothing is).
func resolve(path string, opt Options) (string, fs.FileInfo, error) {
	p := path
	for i := 0; i < maxLinks; i++ {
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return p, nil, nil
		}
		if err != nil {
			return "", nil, err
		}
		if fi.Mode()&fs.ModeSymlink == 0 || opt.ReplaceLink {
			return p, fi, nil
		}
		to, err := os.Readlink(p)
		if err != nil {
			return "", nil, err
		}
		if !filepath.IsAbs(to) {
			to = filepath.Join(filepath.Dir(p), to)
		}
		p = to
	}
	return "", nil, &fs.PathError{Op: "write", Path: path, Err: fmt.Errorf("more than %d symbolic links to follow", maxLinks)}
}

// createTemp starts a file that Commit renames over path.
func createTemp(path string, opt Options) (*File, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		// The temporary name means nothing to the user: name the output.
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, &fs.PathError{Op: "create", Path: path, Err: err}
	}
	perm := opt.Perm
	if perm == 0 {
		perm = 0o644
	}
	if err := f.Chmod(perm); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return &File{File: f, path: path}, nil
}

// dialSocket connects to a Unix socket (stream, else datagram) and writes
// to the connection's descriptor.
func dialSocket(path string) (*File, error) {
	var c net.Conn
	var err error
	for _, network := range []string{"unix", "unixgram"} {
		if c, err = net.Dial(network, path); err == nil {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	defer c.Close()
	f, err := c.(interface{ File() (*os.File, error) }).File()
	if err != nil {
		return nil, err
	}
	return &File{File: f}, nil
}

// Commit finishes the output. A replaced file is synced, closed and
// renamed over its path; on error nothing is left but what was at the
// path. A direct output is closed (standard output stays open).
func (f *File) Commit() error {
	if f.stdout {
		return nil
	}
	if f.path == "" {
		return f.Close()
	}
	tmp := f.Name()
	err := f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, f.path)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	syncDir(filepath.Dir(f.path))
	return nil
}

// syncDir makes a rename in dir durable. It is best effort: some file
// systems cannot sync a directory, and the data itself is already synced.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// Abort gives the output up: a temporary file is closed and removed and
// the path is untouched; a direct output is closed (what was written to a
// device or FIFO cannot be taken back).
func (f *File) Abort() {
	if f.stdout {
		return
	}
	f.Close()
	if f.path != "" {
		os.Remove(f.Name())
	}
}

// Direct reports whether writes go straight to the path (a device, FIFO,
// socket or stdout) rather than to a file that replaces it on Commit.
func (f *File) Direct() bool { return f.path == "" }
