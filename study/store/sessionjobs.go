package store

// SetSessionJobs records, while a session runs, how it sized its
// testbeds: jobs, the largest size so far, and auto, the sizes it went
// through (Provenance.JobsAuto). Written at each change, it survives a
// killed run.
func (st *Store) SetSessionJobs(session int64, jobs int, auto string) error {
	_, err := st.db.Exec(`UPDATE sessions SET jobs = ?, jobs_auto = ? WHERE id = ?`, jobs, auto, session)
	return err
}
