package report

import (
	"testing"

	"github.com/spdylab/spdylab/study"
	"github.com/spdylab/spdylab/study/spec"
	"github.com/spdylab/spdylab/study/store"
	"github.com/spdylab/spdylab/study/studyfile"
)

// openTestStore creates a store in dir for the study file src and starts
// its session, for the tests that fill a store with made-up loads; the
// caller closes it.
func openTestStore(t testing.TB, dir, src string) (*spec.Study, *store.Store, int64) {
	t.Helper()
	s, err := studyfile.Parse([]byte(src), "")
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.CreateStore(dir, s)
	if err != nil {
		t.Fatal(err)
	}
	sess, err := st.StartSession(study.CollectProvenance(s.Seed, 1, spec.Shard{}, "test", nil))
	if err != nil {
		st.Close()
		t.Fatal(err)
	}
	return s, st, sess
}
