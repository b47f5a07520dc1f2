package store

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
)

// OpenReader opens the store in dir for reading only (report, why,
// compare, waterfall): nothing in the results database changes, so a
// report never alters the results it reports, and a store a newer
// spdylab only read stays readable by the spdylab that wrote it. A store
// written before some of columnsAdded existed is read through an upgraded
// copy in a temporary directory, which Close removes.
func OpenReader(dir string) (*Store, error) {
	st, err := openExisting(dir, openQueryOnly)
	if err != nil {
		return nil, err
	}
	missing, err := missingColumns(st.db)
	if err != nil {
		st.db.Close()
		return nil, fmt.Errorf("%s: %w", st.Path, err)
	}
	if len(missing) == 0 {
		return st, nil
	}
	defer st.db.Close()
	return openUpgradedCopy(st.db, st.Path)
}

// openQueryOnly opens path with writes refused by SQLite itself.
func openQueryOnly(path string) (*sql.DB, error) {
	return openWith(path, "_pragma=busy_timeout(10000)&_pragma=query_only(1)")
}

// openUpgradedCopy copies the database behind db (a consistent snapshot,
// WAL included) into a temporary directory, upgrades the copy and opens
// it query-only.
func openUpgradedCopy(db *sql.DB, path string) (*Store, error) {
	tmp, err := os.MkdirTemp("", "spdylab-store-")
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*Store, error) {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("%s was written by an older spdylab; reading it through an upgraded copy: %w", path, err)
	}
	copyPath := filepath.Join(tmp, DBName)
	// VACUUM INTO writes only the copy, but query_only refuses it too:
	// lift it on the one connection for this statement.
	if _, err := db.Exec(`PRAGMA query_only = 0`); err != nil {
		return fail(err)
	}
	if _, err := db.Exec(`VACUUM INTO ?`, copyPath); err != nil {
		return fail(err)
	}
	cp, err := openDB(copyPath)
	if err != nil {
		return fail(err)
	}
	err = upgradeSchema(cp)
	cp.Close()
	if err != nil {
		return fail(err)
	}
	ro, err := openQueryOnly(copyPath)
	if err != nil {
		return fail(err)
	}
	return &Store{db: ro, Path: path, dropCopy: func() { os.RemoveAll(tmp) }}, nil
}
