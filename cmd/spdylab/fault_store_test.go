package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spdylab/spdylab/study/store"
)

// storeCorruptions damage a results database the ways a crash, a full
// disk or a bad copy do: each returns the damaged bytes of the good ones.
var storeCorruptions = []struct {
	name    string
	corrupt func(good []byte) []byte
}{
	{"empty", func([]byte) []byte { return nil }},
	{"truncated", func(good []byte) []byte { return good[:len(good)/2] }},
	{"last page cut", func(good []byte) []byte { return good[:len(good)-4096] }},
	{"header overwritten", func(good []byte) []byte {
		b := bytes.Clone(good)
		copy(b, "this is not a database, it was overwritten by something else")
		return b
	}},
	{"last pages overwritten", func(good []byte) []byte {
		b := bytes.Clone(good)
		for i := len(b) * 3 / 4; i < len(b); i++ {
			b[i] = byte(i*7 + 3)
		}
		return b
	}},
	{"pages overwritten", func(good []byte) []byte {
		b := bytes.Clone(good)
		for i := 4096; i < len(b); i++ {
			b[i] = byte(i*7 + 3)
		}
		return b
	}},
}

// A results.db that is corrupt or truncated is refused by report, why and
// run, each naming the file and what is wrong with it, and none of them
// changes a byte of it: the user still has what there was to rescue.
func TestCorruptStoreIsRefusedAndKept(t *testing.T) {
	dir := t.TempDir()
	file := writeStudy(t, dir, "tiny.toml", tinyLoopback)
	good := filepath.Join(dir, "good")
	if code := runCmd([]string{file, "--out", good, "-q", "--no-report"}, io.Discard, io.Discard); code != 0 {
		t.Fatalf("making a store to corrupt: exit %d", code)
	}
	goodBytes, err := os.ReadFile(filepath.Join(good, store.DBName))
	if err != nil || len(goodBytes) < 3*4096 {
		t.Fatalf("the store to corrupt: %d bytes, %v", len(goodBytes), err)
	}
	for _, c := range storeCorruptions {
		t.Run(strings.ReplaceAll(c.name, " ", "-"), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			os.Mkdir(out, 0o755)
			db := filepath.Join(out, store.DBName)
			bad := c.corrupt(goodBytes)
			if err := os.WriteFile(db, bad, 0o644); err != nil {
				t.Fatal(err)
			}
			for _, cmd := range []struct {
				name string
				run  func(stderr io.Writer) int
			}{
				{"report", func(e io.Writer) int { return reportCmd([]string{out}, io.Discard, e) }},
				{"why", func(e io.Writer) int { return whyCmd([]string{out}, io.Discard, e) }},
				{"run", func(e io.Writer) int { return runCmd([]string{file, "--out", out, "-q"}, io.Discard, e) }},
			} {
				var code int
				msg := captureStderr(t, func(stderr io.Writer) { code = cmd.run(stderr) })
				t.Logf("%s on a store %s: exit %d: %s", cmd.name, c.name, code, strings.TrimSpace(msg))
				if code == 0 {
					t.Errorf("%s accepted a store %s", cmd.name, c.name)
				}
				if !strings.Contains(msg, db) {
					t.Errorf("%s: message %q does not name %s", cmd.name, msg, db)
				}
				if !strings.Contains(msg, "not a spdylab results database") && !strings.Contains(msg, "is corrupt") && !strings.Contains(msg, "is truncated") {
					t.Errorf("%s: message %q does not say what is wrong with the file", cmd.name, msg)
				}
				if now, err := os.ReadFile(db); err != nil || !bytes.Equal(now, bad) {
					t.Fatalf("%s changed the store %s (%d bytes before, %d after, %v)", cmd.name, c.name, len(bad), len(now), err)
				}
			}
		})
	}
}
