package findings

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spdylab/spdylab/internal/atomicfile"
	"github.com/spdylab/spdylab/study/spec"
	"github.com/spdylab/spdylab/study/store"
)

// StampFile is kept in each finding's store folder: what the last run
// of `spdylab findings` there was asked to measure and how it ended, so a
// later run can tell a current result from a stale or failed one without
// running anything.
const StampFile = "finding.json"

// Stamp is the content of StampFile.
type Stamp struct {
	File        string    `json:"file"`        // the findings file's path
	FileSum     string    `json:"file_sha256"` // its SHA-256 when run
	Fingerprint string    `json:"fingerprint,omitempty"`
	Pages       string    `json:"pages,omitempty"`
	Runs        int       `json:"runs,omitempty"` // --runs (0: the file's)
	State       string    `json:"state"`          // running, done, failed
	Error       string    `json:"error,omitempty"`
	Command     string    `json:"command"`
	Revision    string    `json:"revision,omitempty"`
	Started     time.Time `json:"started"`
	Finished    time.Time `json:"finished,omitzero"`
}

// Stamp states.
const (
	StateRunning = "running"
	StateDone    = "done"
	StateFailed  = "failed"
)

// took is the wall time of a finished run, 0 for one still running,
// failed or without a stamp.
func (s *Stamp) took() time.Duration {
	if s == nil || s.State != StateDone || s.Finished.Before(s.Started) {
		return 0
	}
	return s.Finished.Sub(s.Started)
}

func readStamp(dir string) (*Stamp, error) {
	b, err := os.ReadFile(filepath.Join(dir, StampFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var s Stamp
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, StampFile), err)
	}
	return &s, nil
}

func writeStamp(dir string, s *Stamp) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, StampFile), append(b, '\n'))
}

// hasStore tells whether dir holds a results store.
func hasStore(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, store.DBName))
	return err == nil
}

// staleReason says why the store in dir cannot hold study s ("" when it
// can, or when there is no store): the store's own check, which names the
// difference (another study, other runs, seed or conditions).
func staleReason(dir string, s *spec.Study) string {
	if !hasStore(dir) {
		return ""
	}
	if err := store.CheckOut(dir, s); err != nil {
		return err.Error()
	}
	return ""
}

// moveAside renames a stale store folder so the finding can run afresh;
// nothing is deleted. It returns the new name.
func moveAside(dir string, now time.Time) (string, error) {
	to := dir + ".stale-" + now.UTC().Format("20060102T150405")
	if err := os.Rename(dir, to); err != nil {
		return "", err
	}
	return to, nil
}
