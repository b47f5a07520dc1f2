package store

import (
	"bytes"
	"compress/gzip"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	_ "modernc.org/sqlite" // pure-Go SQLite driver, no cgo

	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/study/spec"
)

// DBName is the store's file name inside an output directory.
const DBName = "results.db"

// Store is a study's SQLite results database (OUT/results.db). Every probe
// is written in its own transaction as soon as it finishes, in WAL mode, so
// a run killed at any moment keeps everything it had measured and a rerun
// resumes where it stopped.
type Store struct {
	db   *sql.DB
	Path string
	// dropCopy removes the upgraded copy an old store is read through
	// (OpenReader); nil otherwise.
	dropCopy func()
}

const schema = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (
	id INTEGER PRIMARY KEY,
	started TEXT NOT NULL, hostname TEXT, kernel TEXT, go_version TEXT,
	revision TEXT, seed INTEGER, args TEXT, jobs INTEGER, shard TEXT, machine_json TEXT);
CREATE TABLE IF NOT EXISTS conditions (
	hash TEXT PRIMARY KEY, condition_json TEXT NOT NULL, values_json TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS manifests (key TEXT PRIMARY KEY, json TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS probes (
	id INTEGER PRIMARY KEY,
	cond_hash TEXT NOT NULL REFERENCES conditions(hash),
	run INTEGER NOT NULL, attempt INTEGER NOT NULL,
	session_id INTEGER REFERENCES sessions(id),
	proto TEXT NOT NULL, started TEXT NOT NULL, duration_ms REAL NOT NULL,
	failed INTEGER NOT NULL, error TEXT,
	plt_ms REAL, tow_ms REAL,
	result_json TEXT NOT NULL,
	har BLOB,
	link_check_json TEXT,
	UNIQUE (cond_hash, run, attempt));
`

// columnsAdded are columns later versions added to tables of the schema:
// a store written before them gets them (empty) when opened.
var columnsAdded = []struct{ table, column, decl string }{
	{"sessions", "machine_json", "TEXT"},
	{"sessions", "jobs_auto", "TEXT"},
	// A real browser's paint metrics (probe.Paint), NULL when the load
	// measured none: loads stored before them read as absent, never 0.
	{"probes", "fcp_ms", "REAL"},
	{"probes", "lcp_ms", "REAL"},
	{"probes", "speed_index_ms", "REAL"},
	{"probes", "lcp_url", "TEXT"},
}

type execQuerier interface {
	Exec(query string, args ...any) (sql.Result, error)
	Query(query string, args ...any) (*sql.Rows, error)
}

// missingColumns lists the columnsAdded a store lacks (by index).
func missingColumns(db execQuerier) ([]int, error) {
	var missing []int
	for i, c := range columnsAdded {
		rows, err := db.Query(`SELECT name FROM pragma_table_info(?)`, c.table)
		if err != nil {
			return nil, fmt.Errorf("reading the columns of %s: %w", c.table, err)
		}
		have := false
		for rows.Next() {
			var name string
			if rows.Scan(&name) == nil && name == c.column {
				have = true
			}
		}
		rows.Close()
		if !have {
			missing = append(missing, i)
		}
	}
	return missing, nil
}

// upgradeSchema adds the columnsAdded a store lacks.
func upgradeSchema(db execQuerier) error {
	missing, err := missingColumns(db)
	if err != nil {
		return err
	}
	for _, i := range missing {
		c := columnsAdded[i]
		if _, err := db.Exec(`ALTER TABLE ` + c.table + ` ADD COLUMN ` + c.column + ` ` + c.decl); err != nil {
			return fmt.Errorf("adding column %s.%s: %w", c.table, c.column, err)
		}
	}
	return nil
}

func (st *Store) upgrade() error { return upgradeSchema(st.db) }

// Meta is what an output directory says about the study it holds.
type Meta struct {
	Study       string
	Fingerprint string
	Runs        int
	Seed        int64
	Source      []byte // the study file
	NoLink      bool   // run with --no-link
	Pages       string // the folder of real pages given with --pages
	Dir         string // the study file's folder, for its relative page paths
	Created     time.Time
	RunsAuto    string // spec.AutoRuns' text for `--runs auto`; "" for fixed runs
}

// Provenance describes one invocation of the runner.
type Provenance struct {
	Started  time.Time
	Hostname string
	Kernel   string
	Go       string
	Revision string
	Seed     int64
	Args     string
	Jobs     int
	// JobsAuto is how a session sized its testbeds automatically (-j
	// auto): the sizes it went through ("auto 16 -> 20 -> 15"); Jobs is
	// then the largest. Empty for a fixed -j.
	JobsAuto string
	Shard    string
	// Machine is what else about the host can move a measurement (stored
	// as JSON; empty in stores written before it existed).
	Machine Machine
}

// Machine describes the host a session ran on beyond its kernel.
type Machine struct {
	CPUModel string            `json:"cpu_model,omitempty"`
	CPUs     int               `json:"cpus,omitempty"`
	MemMiB   int               `json:"mem_mib,omitempty"`
	LoadAvg  [3]float64        `json:"loadavg"`           // at the session's start
	Sysctls  map[string]string `json:"sysctls,omitempty"` // the host's TCP and socket settings testbeds inherit or override
	Deps     map[string]string `json:"deps,omitempty"`    // Go modules that carry protocol stacks, and external tools, with versions
}

// Probe is one stored page load.
type Probe struct {
	ID        int64
	CondHash  string
	Run       int
	Attempt   int
	SessionID int64
	Duration  time.Duration // wall time of the load as the runner saw it
	Result    probe.Result  // HAR included when read with har=true
	Check     probe.LinkCheck
}

func openDB(path string) (*sql.DB, error) {
	return openWith(path, "_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(1)")
}

// openWith opens the database at path with the given DSN parameters.
func openWith(path, params string) (*sql.DB, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?"+params)
	if err != nil {
		return nil, err
	}
	// One writer at a time; SQLite serializes writers anyway and a single
	// connection avoids SQLITE_BUSY between our own goroutines.
	db.SetMaxOpenConns(1)
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return db, nil
}

// openExisting opens the store in dir with open, checking that it is one.
func openExisting(dir string, open func(path string) (*sql.DB, error)) (*Store, error) {
	path := filepath.Join(dir, DBName)
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("%s holds no spdylab results (%s missing)", dir, DBName)
	}
	if err := checkFile(path); err != nil {
		return nil, err
	}
	db, err := open(path)
	if err != nil {
		return nil, err
	}
	if err := quickCheck(db, path); err != nil {
		db.Close()
		return nil, err
	}
	st := &Store{db: db, Path: path}
	if _, err := st.Meta(); err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: not a spdylab results database: %w", path, err)
	}
	return st, nil
}

// OpenStore opens an existing store read-write (runs, merge, tune),
// upgrading an older schema in place.
func OpenStore(dir string) (*Store, error) {
	st, err := openExisting(dir, openDB)
	if err != nil {
		return nil, err
	}
	if err := st.upgrade(); err != nil {
		st.db.Close()
		return nil, fmt.Errorf("%s: %w", st.Path, err)
	}
	return st, nil
}

// ErrOtherStudy is returned (wrapped) when an output directory holds the
// results of a different study.
var ErrOtherStudy = errors.New("output directory holds a different study")

// openWithMeta opens the store in dir and reads its meta table; the caller
// closes the store.
func openWithMeta(dir string) (*Store, Meta, error) {
	st, err := OpenStore(dir)
	if err != nil {
		return nil, Meta{}, err
	}
	m, err := st.Meta()
	if err != nil {
		st.Close()
		return nil, Meta{}, err
	}
	return st, m, nil
}

// CheckOut reports whether a study may be written into dir: dir holds no
// store or one with the same fingerprint. It changes nothing.
func CheckOut(dir string, s *spec.Study) error {
	path := filepath.Join(dir, DBName)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	st, m, err := openWithMeta(dir)
	if err != nil {
		return err
	}
	defer st.Close()
	if m.Fingerprint != s.Fingerprint() {
		why := "its conditions differ"
		switch {
		case m.Study != s.Name:
			why = fmt.Sprintf("it holds study %q", m.Study)
		case m.RunsAuto != runsAutoText(s):
			why = fmt.Sprintf("it was run with runs %s, this run asks for runs %s", orFixed(m.RunsAuto, m.Runs), orFixed(runsAutoText(s), s.Runs))
		case m.Runs != s.Runs:
			why = fmt.Sprintf("it was run with %d runs per condition, this run asks for %d", m.Runs, s.Runs)
		case m.Seed != s.Seed:
			why = fmt.Sprintf("it was run with seed %d, this run has seed %d", m.Seed, s.Seed)
		}
		return fmt.Errorf("%w: %s cannot take study %q: %s (fingerprint %s vs %s); choose another --out", ErrOtherStudy, dir, s.Name, why, m.Fingerprint, s.Fingerprint())
	}
	return nil
}

// CreateStore opens dir's store for study s, creating dir and the store if
// needed. A store holding another study is an error and is left untouched.
func CreateStore(dir string, s *spec.Study) (*Store, error) {
	if err := CheckOut(dir, s); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, DBName)
	db, err := openDB(path)
	if err != nil {
		return nil, err
	}
	st := &Store{db: db, Path: path}
	if err := st.init(s); err != nil {
		db.Close()
		return nil, err
	}
	return st, nil
}

func (st *Store) init(s *spec.Study) error {
	tx, err := st.db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.Exec(schema); err != nil {
		return fmt.Errorf("creating schema: %w", err)
	}
	if err := upgradeSchema(tx); err != nil {
		return err
	}
	model, err := json.Marshal(s)
	if err != nil {
		return err
	}
	meta := map[string]string{
		"study":       s.Name,
		"fingerprint": s.Fingerprint(),
		"runs":        strconv.Itoa(s.Runs),
		"seed":        strconv.FormatInt(s.Seed, 10),
		"source":      string(s.Source),
		"no_link":     strconv.FormatBool(s.NoLink),
		"pages":       s.Pages,
		"dir":         s.Dir,
		"created":     time.Now().UTC().Format(time.RFC3339),
		metaModel:     string(model),
		"runs_auto":   runsAutoText(s),
	}
	for k, v := range meta {
		// INSERT OR IGNORE keeps the creation time of a resumed store.
		if _, err := tx.Exec(`INSERT OR IGNORE INTO meta(key, value) VALUES (?, ?)`, k, v); err != nil {
			return err
		}
	}
	for _, c := range s.Conditions {
		cj, _ := json.Marshal(c.Condition)
		vj, _ := json.Marshal(c.Values)
		if _, err := tx.Exec(`INSERT OR IGNORE INTO conditions(hash, condition_json, values_json) VALUES (?, ?, ?)`, c.Hash, string(cj), string(vj)); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// Close closes the database (and checkpoints its WAL).
func (st *Store) Close() error {
	err := st.db.Close()
	if st.dropCopy != nil {
		st.dropCopy()
	}
	return err
}

// Meta reads the study description of the store.
func (st *Store) Meta() (Meta, error) {
	rows, err := st.db.Query(`SELECT key, value FROM meta`)
	if err != nil {
		return Meta{}, err
	}
	defer rows.Close()
	kv := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return Meta{}, err
		}
		kv[k] = v
	}
	if err := rows.Err(); err != nil {
		return Meta{}, err
	}
	if kv["fingerprint"] == "" {
		return Meta{}, errors.New("no study fingerprint in meta table")
	}
	m := Meta{Study: kv["study"], Fingerprint: kv["fingerprint"], Source: []byte(kv["source"])}
	m.Runs, _ = strconv.Atoi(kv["runs"])
	m.Seed, _ = strconv.ParseInt(kv["seed"], 10, 64)
	m.Created, _ = time.Parse(time.RFC3339, kv["created"])
	m.NoLink = kv["no_link"] == "true"
	m.Pages, m.Dir = kv["pages"], kv["dir"]
	m.RunsAuto = kv["runs_auto"]
	return m, nil
}

// metaModel is the meta key of the study model's JSON (spec.Study).
// Stores written before it existed hold only the study file ("source"):
// Study reads those with the StudyParser given to UseStudyParser, once,
// and then keeps the model.
const metaModel = "model"

// StudyParser reads a stored study file (studyfile.ParsePages).
type StudyParser func(src []byte, dir, pages string) (*spec.Study, error)

// studyParser reads the study files of stores that hold no model; the
// store itself knows no study file format, so the command injects it.
var studyParser StudyParser

// UseStudyParser lets Study read stores written before the model was
// stored (the caller's study file parser, so reading a store needs no
// file format unless the store is that old).
func UseStudyParser(p StudyParser) { studyParser = p }

// Study is the study stored with the results.
func (st *Store) Study() (*spec.Study, error) {
	m, err := st.Meta()
	if err != nil {
		return nil, err
	}
	var s *spec.Study
	var model string
	err = st.db.QueryRow(`SELECT value FROM meta WHERE key = ?`, metaModel).Scan(&model)
	switch {
	case err == nil:
		s = &spec.Study{}
		if err := json.Unmarshal([]byte(model), s); err != nil {
			return nil, fmt.Errorf("stored study model: %w", err)
		}
		s.Source = m.Source
	case errors.Is(err, sql.ErrNoRows):
		if s, err = st.migrateModel(m); err != nil {
			return nil, err
		}
	default:
		return nil, err
	}
	if s.Fingerprint() != m.Fingerprint {
		return nil, fmt.Errorf("stored study does not reproduce the stored fingerprint %s (written by another spdylab version?)", m.Fingerprint)
	}
	return s, nil
}

// migrateModel parses the study file of a store written before the model
// was stored, and stores the model (when the store is writable) so the
// file is parsed this once.
func (st *Store) migrateModel(m Meta) (*spec.Study, error) {
	if studyParser == nil {
		return nil, errors.New("this store holds only its study file (written by an older spdylab): no study file parser to read it")
	}
	s, err := studyParser(m.Source, m.Dir, m.Pages)
	if err != nil {
		return nil, fmt.Errorf("stored study file: %w", err)
	}
	// Command-line overrides are part of the fingerprint but not of the file.
	if err := s.Override(m.Runs, m.NoLink); err != nil {
		return nil, err
	}
	if s.Fingerprint() != m.Fingerprint {
		return nil, fmt.Errorf("stored study file does not reproduce the stored fingerprint %s (written by another spdylab version?)", m.Fingerprint)
	}
	if model, err := json.Marshal(s); err == nil {
		// A read-only store keeps working; it is parsed again next time.
		st.db.Exec(`INSERT OR IGNORE INTO meta(key, value) VALUES (?, ?)`, metaModel, string(model))
	}
	return s, nil
}

// StartSession records the provenance of one runner invocation.
func (st *Store) StartSession(p Provenance) (int64, error) {
	mj, err := json.Marshal(p.Machine)
	if err != nil {
		return 0, err
	}
	res, err := st.db.Exec(`INSERT INTO sessions(started, hostname, kernel, go_version, revision, seed, args, jobs, shard, machine_json, jobs_auto) VALUES (?,?,?,?,?,?,?,?,?,?,?)`,
		p.Started.UTC().Format(time.RFC3339Nano), p.Hostname, p.Kernel, p.Go, p.Revision, p.Seed, p.Args, p.Jobs, p.Shard, string(mj), p.JobsAuto)
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

// Sessions lists the provenance of every invocation that wrote to the store.
func (st *Store) Sessions() ([]Provenance, error) {
	rows, err := st.db.Query(`SELECT started, hostname, kernel, go_version, revision, seed, args, jobs, shard, COALESCE(machine_json, ''), COALESCE(jobs_auto, '') FROM sessions ORDER BY id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Provenance
	for rows.Next() {
		var p Provenance
		var started, machine string
		if err := rows.Scan(&started, &p.Hostname, &p.Kernel, &p.Go, &p.Revision, &p.Seed, &p.Args, &p.Jobs, &p.Shard, &machine, &p.JobsAuto); err != nil {
			return nil, err
		}
		if machine != "" {
			if err := json.Unmarshal([]byte(machine), &p.Machine); err != nil {
				return nil, fmt.Errorf("session of %s: machine: %w", started, err)
			}
		}
		p.Started, _ = time.Parse(time.RFC3339Nano, started)
		out = append(out, p)
	}
	return out, rows.Err()
}

// ProbeKey identifies one load of a study: a condition and a run index.
type ProbeKey struct {
	CondHash string
	Run      int
}

// ProbeState is what the store knows about a key.
type ProbeState struct {
	Attempts int  // stored attempts (failed ones included)
	OK       bool // one attempt succeeded
}

// States reports every key that has stored attempts.
func (st *Store) States() (map[ProbeKey]ProbeState, error) {
	rows, err := st.db.Query(`SELECT cond_hash, run, COUNT(*), MAX(failed = 0) FROM probes GROUP BY cond_hash, run`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[ProbeKey]ProbeState{}
	for rows.Next() {
		var k ProbeKey
		var s ProbeState
		if err := rows.Scan(&k.CondHash, &k.Run, &s.Attempts, &s.OK); err != nil {
			return nil, err
		}
		out[k] = s
	}
	return out, rows.Err()
}

// Put stores one probe in one transaction.
func (st *Store) Put(p Probe) (int64, error) {
	r := p.Result
	rj, err := json.Marshal(r)
	if err != nil {
		return 0, err
	}
	cj, _ := json.Marshal(p.Check)
	var plt, tow any
	if !r.Failed {
		plt, tow = r.PLTms, r.ToWms
	}
	paint := paintColumns(r)
	res, err := st.db.Exec(`INSERT INTO probes(cond_hash, run, attempt, session_id, proto, started, duration_ms, failed, error, plt_ms, tow_ms, result_json, har, link_check_json, fcp_ms, lcp_ms, speed_index_ms, lcp_url)
		VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		p.CondHash, p.Run, p.Attempt, nullID(p.SessionID), r.Condition.Proto, r.Started.UTC().Format(time.RFC3339Nano),
		float64(p.Duration)/float64(time.Millisecond), r.Failed, r.Error, plt, tow, string(rj), packHAR(r.HAR), string(cj),
		paint[0], paint[1], paint[2], paint[3])
	if err != nil {
		return 0, fmt.Errorf("storing probe %s run %d in %s: %w", p.CondHash, p.Run, st.Path, err)
	}
	return res.LastInsertId()
}

func nullID(id int64) any {
	if id == 0 {
		return nil
	}
	return id
}

// PutManifest stores the page a bench served, keyed by page, shards and
// mode (ManifestKey), so the report can compute lower bounds without
// regenerating pages. The store owns the encoding (JSON).
func (st *Store) PutManifest(key string, m *page.Manifest) error {
	j, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("store: manifest %s: %w", key, err)
	}
	return st.putManifestJSON(key, j)
}

func (st *Store) putManifestJSON(key string, j []byte) error {
	if _, err := st.db.Exec(`INSERT OR IGNORE INTO manifests(key, json) VALUES (?, ?)`, key, string(j)); err != nil {
		return fmt.Errorf("storing the manifest %s in %s: %w", key, st.Path, err)
	}
	return nil
}

// Manifests returns every stored manifest by key. A manifest that no
// longer decodes (written by an incompatible version) is left out: it only
// costs the report its lower bound.
func (st *Store) Manifests() (map[string]*page.Manifest, error) {
	raw, err := st.manifestsJSON()
	if err != nil {
		return nil, err
	}
	out := map[string]*page.Manifest{}
	for k, j := range raw {
		var m page.Manifest
		if json.Unmarshal(j, &m) == nil {
			out[k] = &m
		}
	}
	return out, nil
}

func (st *Store) manifestsJSON() (map[string][]byte, error) {
	rows, err := st.db.Query(`SELECT key, json FROM manifests`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string][]byte{}
	for rows.Next() {
		var k, j string
		if err := rows.Scan(&k, &j); err != nil {
			return nil, err
		}
		out[k] = []byte(j)
	}
	return out, rows.Err()
}

// Probes returns every stored probe in insertion order; with har the HAR
// documents are read too (they are the bulk of the database).
func (st *Store) Probes(har bool) ([]Probe, error) {
	col := "NULL"
	if har {
		col = "har"
	}
	rows, err := st.db.Query(`SELECT id, cond_hash, run, attempt, COALESCE(session_id, 0), duration_ms, result_json, ` + col + `, COALESCE(link_check_json, '{}') FROM probes ORDER BY id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Probe
	for rows.Next() {
		p, err := scanProbe(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// ProbeByID returns one probe with its HAR.
func (st *Store) ProbeByID(id int64) (Probe, error) {
	row := st.db.QueryRow(`SELECT id, cond_hash, run, attempt, COALESCE(session_id, 0), duration_ms, result_json, har, COALESCE(link_check_json, '{}') FROM probes WHERE id = ?`, id)
	p, err := scanProbe(row)
	if errors.Is(err, sql.ErrNoRows) {
		return p, fmt.Errorf("no probe with id %d", id)
	}
	return p, err
}

type scanner interface{ Scan(...any) error }

func scanProbe(r scanner) (Probe, error) {
	var p Probe
	var durMs float64
	var rj, cj string
	var har []byte
	var err error
	if err = r.Scan(&p.ID, &p.CondHash, &p.Run, &p.Attempt, &p.SessionID, &durMs, &rj, &har, &cj); err != nil {
		return p, err
	}
	p.Duration = time.Duration(durMs * float64(time.Millisecond))
	if err = json.Unmarshal([]byte(rj), &p.Result); err != nil {
		return p, fmt.Errorf("probe %d: %w", p.ID, err)
	}
	if p.Result.HAR, err = unpackHAR(har); err != nil {
		return p, fmt.Errorf("probe %d: HAR: %w", p.ID, err)
	}
	_ = json.Unmarshal([]byte(cj), &p.Check)
	return p, nil
}

// HAR documents are the bulk of a store (about 200 KB of JSON per load of a
// 100-resource page), so they are kept gzip-compressed, which shrinks them
// about tenfold; study1 alone has 5,760 loads. Uncompressed blobs written
// by earlier versions still read.
func packHAR(har []byte) []byte {
	if len(har) == 0 {
		return nil
	}
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestSpeed)
	zw.Write(har) // writes to a bytes.Buffer cannot fail
	zw.Close()
	return b.Bytes()
}

func unpackHAR(blob []byte) ([]byte, error) {
	if len(blob) < 2 || blob[0] != 0x1f || blob[1] != 0x8b {
		return blob, nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(blob))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}

// Merge copies every probe, session and manifest of the shard stores into
// the store at dst (created if absent). All stores must hold the same study
// and no probe (condition, run, attempt) may appear twice.
func Merge(dst string, shardDirs []string) (n int, err error) {
	done := false
	if len(shardDirs) == 0 {
		return 0, errors.New("merge: no shard directories given")
	}
	var shards []*Store
	defer func() {
		for _, s := range shards {
			s.Close()
		}
	}()
	var study *spec.Study
	var fp string
	for _, d := range shardDirs {
		abs1, _ := filepath.Abs(d)
		abs2, _ := filepath.Abs(dst)
		if abs1 == abs2 {
			return 0, fmt.Errorf("merge: %s is both the output and a shard", d)
		}
		st, err := OpenStore(d)
		if err != nil {
			return 0, err
		}
		shards = append(shards, st)
		m, err := st.Meta()
		if err != nil {
			return 0, err
		}
		if fp == "" {
			fp = m.Fingerprint
			if study, err = st.Study(); err != nil {
				return 0, fmt.Errorf("%s: %w", d, err)
			}
			if study.Fingerprint() != fp {
				return 0, fmt.Errorf("%s: stored study file does not match its fingerprint (made by another spdylab version?)", d)
			}
		} else if m.Fingerprint != fp {
			return 0, fmt.Errorf("%w: %s holds study %q (fingerprint %s), %s holds fingerprint %s", ErrOtherStudy, d, m.Study, m.Fingerprint, shardDirs[0], fp)
		}
	}
	// Find duplicates before writing anything.
	seen := map[string]string{}
	for i, st := range shards {
		rows, err := st.db.Query(`SELECT cond_hash, run, attempt FROM probes`)
		if err != nil {
			return 0, err
		}
		for rows.Next() {
			var h string
			var run, att int
			if err := rows.Scan(&h, &run, &att); err != nil {
				rows.Close()
				return 0, err
			}
			k := fmt.Sprintf("%s/%d/%d", h, run, att)
			if prev, dup := seen[k]; dup {
				rows.Close()
				return 0, fmt.Errorf("merge: condition %s run %d attempt %d is in both %s and %s (overlapping shards?)", h, run, att, prev, shardDirs[i])
			}
			seen[k] = shardDirs[i]
		}
		rows.Close()
	}
	// Build the merged store beside its final place and move it in only
	// when complete, so a failed merge leaves no half-merged results.
	if _, err := os.Stat(filepath.Join(dst, DBName)); err == nil {
		return 0, fmt.Errorf("merge: %s already holds a results database; merge into a new directory", dst)
	}
	if _, err := os.Stat(dst); errors.Is(err, os.ErrNotExist) {
		if err := os.MkdirAll(dst, 0o755); err != nil {
			return 0, err
		}
		defer func() {
			if !done {
				os.Remove(dst)
			}
		}()
	}
	tmp, err := os.MkdirTemp(dst, ".merging-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(tmp)
	out, err := CreateStore(tmp, study)
	if err != nil {
		return 0, err
	}
	n, err = copyShards(out, shards)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, err
	}
	if err := os.Rename(filepath.Join(tmp, DBName), filepath.Join(dst, DBName)); err != nil {
		return 0, err
	}
	done = true
	return n, nil
}

// copyShards copies sessions, manifests and probes of every shard into out.
func copyShards(out *Store, shards []*Store) (int, error) {
	n := 0
	for _, st := range shards {
		sess, err := st.Sessions()
		if err != nil {
			return 0, err
		}
		idMap := map[int64]int64{}
		for i, p := range sess {
			id, err := out.StartSession(p)
			if err != nil {
				return 0, err
			}
			idMap[int64(i+1)] = id
		}
		// Session ids in a shard are 1..n in insertion order (INTEGER PRIMARY KEY).
		rows, err := st.db.Query(`SELECT id FROM sessions ORDER BY id`)
		if err != nil {
			return 0, err
		}
		var ids []int64
		for rows.Next() {
			var id int64
			rows.Scan(&id)
			ids = append(ids, id)
		}
		rows.Close()
		realMap := map[int64]int64{}
		for i, id := range ids {
			realMap[id] = idMap[int64(i+1)]
		}
		mans, err := st.manifestsJSON()
		if err != nil {
			return 0, err
		}
		for k, j := range mans {
			if err := out.putManifestJSON(k, j); err != nil {
				return 0, err
			}
		}
		probes, err := st.Probes(true)
		if err != nil {
			return 0, err
		}
		for _, p := range probes {
			p.SessionID = realMap[p.SessionID]
			if _, err := out.Put(p); err != nil {
				return n, err
			}
			n++
		}
	}
	return n, nil
}
