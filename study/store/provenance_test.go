package store

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/spdylab/spdylab/study/studyfile"
)

func quickStore(t *testing.T) (*Store, string) {
	t.Helper()
	s, err := studyfile.Load("quick")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "out")
	st, err := CreateStore(dir, s)
	if err != nil {
		t.Fatal(err)
	}
	return st, dir
}

func TestSessionMachineRoundTrips(t *testing.T) {
	st, _ := quickStore(t)
	defer st.Close()
	want := Machine{CPUModel: "Test CPU", CPUs: 2, MemMiB: 24000, LoadAvg: [3]float64{0.5, 0.25, 0.1},
		Sysctls: map[string]string{"net.ipv4.tcp_congestion_control": "bbr"}, Deps: map[string]string{"github.com/quic-go/quic-go": "v0.0.1"}}
	if _, err := st.StartSession(Provenance{Started: time.Now(), Hostname: "h", Machine: want}); err != nil {
		t.Fatal(err)
	}
	got, err := st.Sessions()
	if err != nil || len(got) != 1 {
		t.Fatalf("sessions %v %v", got, err)
	}
	m := got[0].Machine
	if m.CPUModel != want.CPUModel || m.CPUs != 2 || m.LoadAvg != want.LoadAvg || m.Sysctls["net.ipv4.tcp_congestion_control"] != "bbr" || m.Deps["github.com/quic-go/quic-go"] != "v0.0.1" {
		t.Errorf("machine read back as %+v", m)
	}
}

// A store written before sessions had machine details opens, reads its
// sessions (with none) and takes new ones with them.
func TestStoreWithoutMachineColumnIsUpgraded(t *testing.T) {
	st, dir := quickStore(t)
	if _, err := st.db.Exec(`ALTER TABLE sessions DROP COLUMN machine_json`); err != nil {
		t.Fatal(err)
	}
	if _, err := st.db.Exec(`INSERT INTO sessions(started, hostname, kernel, go_version, revision, seed, args, jobs, shard) VALUES (?, 'old', '', '', '', 0, '', 1, '')`, time.Now().UTC().Format(time.RFC3339Nano)); err != nil {
		t.Fatal(err)
	}
	st.Close()
	st, err := OpenStore(dir)
	if err != nil {
		t.Fatalf("an older store does not open: %v", err)
	}
	defer st.Close()
	if _, err := st.StartSession(Provenance{Started: time.Now(), Machine: Machine{CPUs: 4}}); err != nil {
		t.Fatal(err)
	}
	got, err := st.Sessions()
	if err != nil || len(got) != 2 || got[0].Hostname != "old" || got[0].Machine.CPUs != 0 || got[1].Machine.CPUs != 4 {
		t.Fatalf("sessions after the upgrade: %+v %v", got, err)
	}
}
