package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/spdylab/spdylab/study/spec"
)

// Regrow lets the store in dir take study s when s is a grown version of
// the study it holds (same name and seed; other conditions, other runs):
// spdylab tune adds candidates and runs between its rounds into one store.
// The stored model, fingerprint and runs become s's and s's conditions are
// added; every stored load keeps its key (condition hash, run), so a
// condition that was in an earlier round is not loaded again. No store in
// dir: nothing to do (CreateStore makes one).
func Regrow(dir string, s *spec.Study) error {
	if _, err := os.Stat(filepath.Join(dir, DBName)); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	st, m, err := openWithMeta(dir)
	if err != nil {
		return err
	}
	defer st.Close()
	if m.Study != s.Name || m.Seed != s.Seed {
		return fmt.Errorf("%w: %s holds study %q with seed %d, not %q with seed %d; choose another --out", ErrOtherStudy, dir, m.Study, m.Seed, s.Name, s.Seed)
	}
	model, err := json.Marshal(s)
	if err != nil {
		return err
	}
	tx, err := st.db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for k, v := range map[string]string{"fingerprint": s.Fingerprint(), "runs": strconv.Itoa(s.Runs),
		"source": string(s.Source), metaModel: string(model), "runs_auto": runsAutoText(s)} {
		if _, err := tx.Exec(`INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)`, k, v); err != nil {
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
