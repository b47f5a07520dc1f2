package store

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// columnsOf lists a table's columns as the database at dir holds them,
// read through a plain read-write handle.
func columnsOf(t *testing.T, dir, table string) string {
	t.Helper()
	db, err := openDB(filepath.Join(dir, DBName))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT name FROM pragma_table_info(?)`, table)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var cols []string
	for rows.Next() {
		var c string
		rows.Scan(&c)
		cols = append(cols, c)
	}
	return strings.Join(cols, ",")
}

// A store written before sessions had machine details and -j auto traces
// reads through OpenReader with its sessions whole, and is left as it was:
// the reader's upgrade happens on a copy, which Close removes.
func TestReaderLeavesAnOldStoreAsItWas(t *testing.T) {
	st, dir := quickStore(t)
	for _, col := range []string{"machine_json", "jobs_auto"} {
		if _, err := st.db.Exec(`ALTER TABLE sessions DROP COLUMN ` + col); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.db.Exec(`INSERT INTO sessions(started, hostname, kernel, go_version, revision, seed, args, jobs, shard) VALUES (?, 'old', '', '', '', 0, '', 3, '')`, time.Now().UTC().Format(time.RFC3339Nano)); err != nil {
		t.Fatal(err)
	}
	st.Close()
	before := columnsOf(t, dir, "sessions")

	tmpBefore, _ := filepath.Glob(filepath.Join(os.TempDir(), "spdylab-store-*"))
	r, err := OpenReader(dir)
	if err != nil {
		t.Fatalf("an older store does not open for reading: %v", err)
	}
	got, err := r.Sessions()
	if err != nil || len(got) != 1 || got[0].Hostname != "old" || got[0].Jobs != 3 || got[0].JobsAuto != "" {
		t.Fatalf("sessions read through the copy: %+v %v", got, err)
	}
	if _, err := r.StartSession(Provenance{Started: time.Now()}); err == nil {
		t.Error("a reader took a write")
	}
	r.Close()
	if after := columnsOf(t, dir, "sessions"); after != before {
		t.Errorf("reading changed the stored schema: %s -> %s", before, after)
	}
	tmpAfter, _ := filepath.Glob(filepath.Join(os.TempDir(), "spdylab-store-*"))
	if len(tmpAfter) > len(tmpBefore) {
		t.Errorf("the upgraded copy outlived Close: %v", tmpAfter)
	}
}

// A current store is read in place, and the reader refuses to write.
func TestReaderOfACurrentStoreRefusesWrites(t *testing.T) {
	st, dir := quickStore(t)
	st.Close()
	r, err := OpenReader(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.dropCopy != nil {
		t.Error("a current store was copied")
	}
	if _, err := r.StartSession(Provenance{Started: time.Now()}); err == nil {
		t.Error("a reader took a write")
	}
	if _, err := OpenReader(t.TempDir()); err == nil || !strings.Contains(err.Error(), "holds no spdylab results") {
		t.Errorf("a folder without a store: %v", err)
	}
}
