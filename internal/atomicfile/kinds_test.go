package atomicfile

import (
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/spdylab/spdylab/internal/testutil"
)

// mkNullDevice makes a character device node with /dev/null's numbers
// (1, 3) in a test directory, so the real /dev/null is never touched.
func mkNullDevice(t *testing.T) string {
	t.Helper()
	testutil.RequireRoot(t)
	path := filepath.Join(t.TempDir(), "null")
	if err := unix.Mknod(path, unix.S_IFCHR|0o666, int(unix.Mkdev(1, 3))); err != nil {
		t.Fatalf("mknod: %v", err)
	}
	return path
}

// isCharDevice reports whether path is still a character device.
func isCharDevice(t *testing.T, path string) bool {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode()&os.ModeCharDevice != 0
}

func TestWriteToCharDeviceKeepsTheDevice(t *testing.T) {
	path := mkNullDevice(t)
	if err := Write(path, []byte("a body nobody wants")); err != nil {
		t.Fatal(err)
	}
	if !isCharDevice(t, path) {
		t.Fatal("the device node was replaced by a regular file")
	}
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if !f.Direct() {
		t.Error("a device is not written directly")
	}
	f.Write([]byte("a capture"))
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if !isCharDevice(t, path) {
		t.Fatal("Create/Commit replaced the device node")
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("left behind beside the device: %v", entries)
	}
}

func TestWriteToFIFOWritesThroughIt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 1)
	go func() {
		// Opening for reading waits for the writer, as a reader of a pipe does.
		r, err := os.Open(path)
		if err != nil {
			got <- "open: " + err.Error()
			return
		}
		defer r.Close()
		b, _ := io.ReadAll(r)
		got <- string(b)
	}()
	if err := Write(path, []byte("through the pipe")); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("the FIFO was replaced: %v %v", fi.Mode(), err)
	}
	if s := <-got; s != "through the pipe" {
		t.Errorf("the reader got %q", s)
	}
}

func TestWriteToUnixSocketSendsThroughIt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan string, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			got <- "accept: " + err.Error()
			return
		}
		defer c.Close()
		b, _ := io.ReadAll(c)
		got <- string(b)
	}()
	if err := Write(path, []byte("to the listener")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(path); err != nil || fi.Mode()&os.ModeSocket == 0 {
		t.Fatalf("the socket was replaced: %v", err)
	}
	if s := <-got; s != "to the listener" {
		t.Errorf("the listener got %q", s)
	}
}

func TestWriteThroughSymlinkKeepsTheLink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "real.har")
	link := filepath.Join(dir, "latest.har")
	os.WriteFile(target, []byte("old"), 0o644)
	if err := os.Symlink("real.har", link); err != nil {
		t.Fatal(err)
	}
	if err := Write(link, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced by a file: %v", err)
	}
	if b, _ := os.ReadFile(target); string(b) != "new" {
		t.Errorf("the link's target holds %q, want %q", b, "new")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("left behind: %v", entries)
	}

	// A link to nothing yet: the file appears where it points.
	dangling := filepath.Join(dir, "next.har")
	os.Symlink(filepath.Join(dir, "later.har"), dangling)
	if err := Write(dangling, []byte("later")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "later.har")); string(b) != "later" {
		t.Errorf("the dangling link's target holds %q", b)
	}

	// Only when asked is the link itself replaced.
	if err := WriteWith(link, []byte("own"), Options{ReplaceLink: true}); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Lstat(link); !fi.Mode().IsRegular() {
		t.Errorf("ReplaceLink left %v", fi.Mode())
	}
	if b, _ := os.ReadFile(target); string(b) != "new" {
		t.Errorf("ReplaceLink wrote the old target: %q", b)
	}
}

func TestWriteThroughSymlinkToDevice(t *testing.T) {
	dev := mkNullDevice(t)
	link := filepath.Join(t.TempDir(), "out")
	os.Symlink(dev, link)
	if err := Write(link, []byte("x")); err != nil {
		t.Fatal(err)
	}
	if !isCharDevice(t, dev) {
		t.Fatal("the device behind the link was replaced")
	}
	if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the link was replaced")
	}
}

func TestWriteToDirectoryIsRefused(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "results")
	os.Mkdir(sub, 0o755)
	os.WriteFile(filepath.Join(sub, "keep"), []byte("k"), 0o644)
	err := Write(sub, []byte("x"))
	if !errors.Is(err, ErrDirectory) || !strings.Contains(err.Error(), sub) {
		t.Fatalf("got %v, want an error naming %s and saying it is a directory", err, sub)
	}
	fi, serr := os.Stat(sub)
	if serr != nil || !fi.IsDir() {
		t.Fatalf("the directory is gone: %v", serr)
	}
	if b, _ := os.ReadFile(filepath.Join(sub, "keep")); string(b) != "k" {
		t.Error("the directory's contents changed")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("left behind: %v", entries)
	}
}

func TestWriteDashIsStdout(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stdout
	os.Stdout = w
	err = Write(Stdout, []byte("on stdout"))
	os.Stdout = saved
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := io.ReadAll(r); string(b) != "on stdout" {
		t.Errorf("stdout got %q", b)
	}
	if _, err := os.Stat(Stdout); err == nil {
		t.Error(`a file named "-" was created`)
	}
}

func TestWriteWithPerm(t *testing.T) {
	path := filepath.Join(t.TempDir(), "key.pem")
	if err := WriteWith(path, []byte("k"), Options{Perm: 0o600}); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode().Perm())
	}
}
