package page

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/spdylab/spdylab/internal/pagedata"
)

func sharedHARs(t testing.TB) []string {
	files, dir := pagedata.HARFiles()
	if len(files) == 0 {
		t.Skipf("no shared recordings in %s (set %s to the pages folder): skipping", dir, pagedata.EnvDir)
	}
	return files
}

// TestImportSharedRecordings imports every shared recording and checks
// that each imported page is valid and its bodies are written at their
// sizes.
func TestImportSharedRecordings(t *testing.T) {
	for _, f := range sharedHARs(t) {
		t0 := time.Now()
		m, rep, err := ImportHARFile(f, ImportOptions{})
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		t.Logf("%-28s recorded %4d replayable %4d hosts %3d depth %2d inferred %3d grown %3d (+%d B) %.1f MB  %v",
			filepath.Base(f), rep.Recorded, rep.Replayable, rep.Hosts, rep.Depth, rep.Inferred, rep.Grown, rep.GrownBytes, float64(rep.Bytes)/1e6, time.Since(t0).Round(time.Millisecond))
		for id := range m.Resources {
			b, err := m.Content(id)
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if len(b) != m.Resources[id].Size {
				t.Fatalf("%s: resource %d: %d bytes, want %d", f, id, len(b), m.Resources[id].Size)
			}
		}
	}
}

// BenchmarkImportLargestHAR imports the largest shared recording
// (cnn-2024: 1,299 entries, 272 hosts); the goal is under 2 s.
func BenchmarkImportLargestHAR(b *testing.B) {
	files := sharedHARs(b)
	var largest string
	var size int64
	for _, f := range files {
		if st, err := os.Stat(f); err == nil && st.Size() > size {
			largest, size = f, st.Size()
		}
	}
	b.SetBytes(size)
	for b.Loop() {
		if _, _, err := ImportHARFile(largest, ImportOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
