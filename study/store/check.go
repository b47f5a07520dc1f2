package store

import (
	"bytes"
	"database/sql"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"strings"
)

// sqliteMagic opens every SQLite database file.
const sqliteMagic = "SQLite format 3\x00"

// checkFile refuses a results database that cannot be one before SQLite
// opens it: opened for writing, an empty file would silently become a
// new, empty database, and the user's evidence of what was there with it.
// A file shorter than its header says was cut (a copy that stopped, a
// full disk); its write-ahead log, while one is being written, may hold
// the pages the file lacks, so the length is only checked without one.
func checkFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if fi.Size() == 0 {
		return fmt.Errorf("%s is empty (0 bytes): not a spdylab results database, left as it is", path)
	}
	hdr := make([]byte, 100)
	if _, err := io.ReadFull(f, hdr); err != nil || !bytes.Equal(hdr[:16], []byte(sqliteMagic)) {
		return fmt.Errorf("%s is not a database (it does not start with SQLite's header): not a spdylab results database, left as it is", path)
	}
	pageSize := int64(binary.BigEndian.Uint16(hdr[16:]))
	if pageSize == 1 {
		pageSize = 65536
	}
	pages := int64(binary.BigEndian.Uint32(hdr[28:]))
	counterValid := bytes.Equal(hdr[24:28], hdr[92:96])
	if wal, err := os.Stat(path + "-wal"); err == nil && wal.Size() > 0 || !counterValid {
		return nil
	}
	if want := pages * pageSize; fi.Size() < want {
		return fmt.Errorf("%s is truncated: its header says %d bytes, the file has %d (a copy that stopped, or a full disk?); left as it is", path, want, fi.Size())
	}
	return nil
}

// quickCheck runs SQLite's quick_check over the whole database: damage
// deep in the loads' pages otherwise shows only when a query reaches it,
// as an error that names no file, after a run may have written beside it.
func quickCheck(db *sql.DB, path string) error {
	rows, err := db.Query(`PRAGMA quick_check(5)`)
	if err != nil {
		return fmt.Errorf("%s is corrupt: %w; left as it is", path, err)
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return fmt.Errorf("%s is corrupt: %w; left as it is", path, err)
		}
		for _, line := range strings.Split(s, "\n") {
			if line = strings.TrimSpace(line); line != "ok" && line != "" && !strings.HasPrefix(line, "***") {
				problems = append(problems, line)
			}
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("%s is corrupt: %w; left as it is", path, err)
	}
	if len(problems) > 3 {
		problems = append(problems[:3], fmt.Sprintf("and %d more", len(problems)-3))
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s is corrupt (SQLite's quick_check: %s); left as it is", path, strings.Join(problems, "; "))
	}
	return nil
}
