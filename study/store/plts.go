package store

import (
	"fmt"
	"strings"

	"github.com/spdylab/spdylab/study/spec"
)

// PLTs returns the page load times of the given conditions' successful
// loads, one per run (the first success, as the report counts them), by
// condition hash, in the order they were stored. It reads only the
// indexed columns: `--runs auto` asks after every round of a bench.
func (st *Store) PLTs(hashes []string) (map[string][]float64, error) {
	out := map[string][]float64{}
	if len(hashes) == 0 {
		return out, nil
	}
	args := make([]any, len(hashes))
	for i, h := range hashes {
		args[i] = h
	}
	q := `SELECT cond_hash, run, plt_ms FROM probes WHERE failed = 0 AND cond_hash IN (?` +
		strings.Repeat(",?", len(hashes)-1) + `) ORDER BY id`
	rows, err := st.db.Query(q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	seen := map[ProbeKey]bool{}
	for rows.Next() {
		var k ProbeKey
		var plt float64
		if err := rows.Scan(&k.CondHash, &k.Run, &plt); err != nil {
			return nil, err
		}
		if !seen[k] {
			seen[k] = true
			out[k.CondHash] = append(out[k.CondHash], plt)
		}
	}
	return out, rows.Err()
}

// runsAutoText is what meta keeps of s's automatic runs ("" for fixed).
func runsAutoText(s *spec.Study) string {
	if s.RunsAuto == nil {
		return ""
	}
	return s.RunsAuto.String()
}

// orFixed names a store's runs: the automatic setting, or the fixed count.
func orFixed(auto string, runs int) string {
	if auto != "" {
		return auto
	}
	return fmt.Sprint(runs)
}
