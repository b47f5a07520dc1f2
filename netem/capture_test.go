package netem

import (
	"bytes"
	"errors"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/spdylab/spdylab/internal/pcapfile"
	"github.com/spdylab/spdylab/internal/testutil"
	"github.com/spdylab/spdylab/probe"
)

// readCapture returns the packets of a pcap file, checking its header.
func readCapture(t *testing.T, path string) [][]byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := pcapfile.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	if h := r.Header(); h.LinkType != pcapfile.LinkTypeRaw || h.Nanos {
		t.Errorf("header %+v, want LINKTYPE_RAW with microseconds", h)
	}
	var pkts [][]byte
	for {
		p, err := r.Next()
		if err == io.EOF {
			return pkts
		}
		if err != nil {
			t.Fatalf("packet %d: %v", len(pkts), err)
		}
		pkts = append(pkts, bytes.Clone(p.Data))
	}
}

func TestCaptureWritesOnlyWhenFinished(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.pcap")
	e := &emulator{}
	if err := e.startCapture(path); err != nil {
		t.Fatal(err)
	}
	if err := e.startCapture(filepath.Join(dir, "b.pcap")); !errors.Is(err, errCaptureRunning) {
		t.Errorf("second capture: %v, want errCaptureRunning", err)
	}
	big := bytes.Repeat([]byte{0x45}, 1500)
	for range 2 * captureFlushBytes / len(big) { // the writer flushes mid-capture
		e.recordClientSide(big)
	}
	e.recordClientSide([]byte{0x45, 1})
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("capture visible before it stopped: %v", err)
	}
	st, err := e.stopCapture()
	if err != nil {
		t.Fatal(err)
	}
	pkts := readCapture(t, path)
	if uint64(len(pkts)) != st.Packets || st.Packets != uint64(2*captureFlushBytes/len(big)+1) || !bytes.Equal(pkts[len(pkts)-1], []byte{0x45, 1}) {
		t.Errorf("%d packets in the file, stats %+v", len(pkts), st)
	}
	e.recordClientSide(big) // not capturing: ignored
	if _, err := e.stopCapture(); !errors.Is(err, errNoCapture) {
		t.Errorf("stop without capture: %v", err)
	}
	// A capture still running when the emulator closes leaves no file.
	if err := e.startCapture(filepath.Join(dir, "c.pcap")); err != nil {
		t.Fatal(err)
	}
	e.recordClientSide(big)
	e.close()
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("want only a.pcap, found %v", ents)
	}
}

func TestCaptureRequestQuotesPaths(t *testing.T) {
	for _, p := range []string{"/tmp/a b.pcap", "/x/\"q\"\n.pcap"} {
		if got, ok := parseCaptureRequest(captureRequest(p)); !ok || got != p {
			t.Errorf("%q came back as %q, %v", p, got, ok)
		}
	}
	if _, ok := parseCaptureRequest("counters"); ok {
		t.Error("counters parsed as a capture request")
	}
}

// The emulator process captures what crosses the client's side of the
// link: an exchange of lines, client to s1 and back, at least every
// packet the counters saw in each direction.
func TestCaptureOfTheClientSide(t *testing.T) {
	testutil.RequireRoot(t)
	t.Parallel()
	tb := newTestbed(t, Config{Shards: 1, Link: probe.Link{RTT: 4 * time.Millisecond, Shared: true}})
	path := filepath.Join(t.TempDir(), "check.pcap")
	if err := tb.StartCapture(path); err != nil {
		t.Fatal(err)
	}
	tb.ResetCounters() // after the start, and Counters before the stop: the capture holds every counted packet
	if err := exchange(tb, 10); err != nil {
		t.Fatal(err)
	}
	c := tb.Counters()
	st, err := tb.StopCapture()
	if err != nil {
		t.Fatal(err)
	}
	pkts := readCapture(t, path)
	client, s1 := netip.AddrFrom4([4]byte{10, 200, 0, 1}), serverAddr(1)
	var up, down, syns uint64
	for _, p := range pkts {
		if len(p) < 20 || p[0]>>4 != 4 {
			continue
		}
		src, dst := netip.AddrFrom4([4]byte(p[12:16])), netip.AddrFrom4([4]byte(p[16:20]))
		switch {
		case src == client && dst == s1:
			up++
			ihl := int(p[0]&0x0f) * 4
			if p[9] == 6 && len(p) > ihl+13 && p[ihl+13]&0x12 == 0x02 {
				syns++
			}
		case src == s1 && dst == client:
			down++
		}
	}
	if uint64(len(pkts)) != st.Packets {
		t.Errorf("file holds %d packets, the capture counted %d", len(pkts), st.Packets)
	}
	if syns == 0 || up < c.Up.PktsOffered || down < c.Down.PktsDelivered {
		t.Errorf("captured %d up (%d SYNs), %d down; the link counted %d offered up, %d delivered down", up, syns, down, c.Up.PktsOffered, c.Down.PktsDelivered)
	}
	if err := tb.StartCapture(filepath.Join(t.TempDir(), "x.pcap")); err != nil {
		t.Fatalf("a second capture after the first stopped: %v", err)
	}
}
