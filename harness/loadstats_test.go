package harness

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spdylab/spdylab/internal/pcapfile"
	"github.com/spdylab/spdylab/internal/testutil"
	"github.com/spdylab/spdylab/probe"
)

// pcapTally is what a capture says about the traffic between the client
// and one server.
type pcapTally struct {
	packets             int    // every packet in the file
	up, down            uint64 // client -> server, server -> client
	clientSYNs          int    // connection attempts (SYN without ACK)
	downPayload         int64  // TCP payload bytes server -> client
	firstTime, lastTime time.Time
}

// tallyPcap reads a capture with pcapfile and counts the TCP traffic
// between the client and server.
func tallyPcap(t *testing.T, path string, server netip.Addr) pcapTally {
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
	if h := r.Header(); h.LinkType != pcapfile.LinkTypeRaw || h.SnapLen != pcapfile.DefaultSnapLen {
		t.Fatalf("header %+v", h)
	}
	client := netip.AddrFrom4([4]byte{10, 200, 0, 1})
	var tl pcapTally
	for {
		p, err := r.Next()
		if errors.Is(err, io.EOF) {
			return tl
		}
		if err != nil {
			t.Fatalf("packet %d: %v", tl.packets, err)
		}
		if tl.packets == 0 {
			tl.firstTime = p.Time
		}
		tl.packets++
		tl.lastTime = p.Time
		d := p.Data
		if len(d) < 40 || d[0]>>4 != 4 || d[9] != 6 || len(d) != p.OrigLen {
			continue // not whole IPv4 TCP
		}
		ihl := int(d[0]&0x0f) * 4
		src, dst := netip.AddrFrom4([4]byte(d[12:16])), netip.AddrFrom4([4]byte(d[16:20]))
		tcp := d[ihl:]
		flags, dataOff := tcp[13], int(tcp[12]>>4)*4
		switch {
		case src == client && dst == server:
			tl.up++
			if flags&0x12 == 0x02 {
				tl.clientSYNs++
			}
		case src == server && dst == client:
			tl.down++
			tl.downPayload += int64(int(binary.BigEndian.Uint16(d[2:4])) - ihl - dataOff)
		}
	}
}

// A load with --pcap leaves one capture named after the load, which both
// pcapfile and tcpdump read, and which holds the load: every connection's
// SYN, at least the packets the link counted each way, at least the bytes
// the loader received.
func TestPcapOfALoad(t *testing.T) {
	testutil.RequireRoot(t)
	dir := t.TempDir()
	c := probe.Condition{Page: "pageA", Shards: 1,
		Link: probe.Link{DownBps: 20e6, UpBps: 5e6, RTT: 20 * time.Millisecond, QueuePkts: 100, Shared: true}}
	b := openBench(t, c, Options{PcapDir: dir})
	ctx := context.Background()
	for run, proto := range []string{probe.ProtoHTTPS, probe.ProtoSPDY31} {
		r := b.Load(ctx, proto, run)
		if r.Failed {
			t.Fatalf("%s: %s", proto, r.Error)
		}
		path := filepath.Join(dir, LoadFileName("pageA", proto, run, ".pcap"))
		tl := tallyPcap(t, path, netip.AddrFrom4([4]byte{10, 200, 1, 2}))
		t.Logf("%s: %s: %d packets (%d up, %d down, %d SYNs, %d payload bytes down) over %v; link %d up, %d down",
			proto, filepath.Base(path), tl.packets, tl.up, tl.down, tl.clientSYNs, tl.downPayload, tl.lastTime.Sub(tl.firstTime), r.Link.Up.PktsOffered, r.Link.Down.PktsDelivered)
		if tl.clientSYNs != r.Connections {
			t.Errorf("%s: %d SYNs in the capture, the load opened %d connections", proto, tl.clientSYNs, r.Connections)
		}
		if tl.up < r.Link.Up.PktsOffered || tl.down < r.Link.Down.PktsDelivered {
			t.Errorf("%s: captured %d up, %d down; the link counted %d up, %d down", proto, tl.up, tl.down, r.Link.Up.PktsOffered, r.Link.Down.PktsDelivered)
		}
		if tl.downPayload < r.BytesWireIn {
			t.Errorf("%s: %d TCP payload bytes down in the capture, the loader received %d", proto, tl.downPayload, r.BytesWireIn)
		}
		checkWithTcpdump(t, path, tl.packets)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("want two captures and nothing else in %s, found %v", dir, ents)
	}
}

// checkWithTcpdump reads a capture with tcpdump: one line per packet.
func checkWithTcpdump(t *testing.T, path string, packets int) {
	t.Helper()
	if _, err := exec.LookPath("tcpdump"); err != nil {
		t.Log("tcpdump not installed (scripts/deps.sh installs it): capture not checked with it")
		return
	}
	out, err := exec.Command("tcpdump", "-r", path, "-nn").Output()
	if err != nil {
		t.Fatalf("tcpdump -r %s: %v", path, err)
	}
	// The capture may open on a late packet of the previous load's
	// connections (a server's close_notify), so the client's packets are
	// looked for anywhere, not only on the first line.
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != packets || !strings.Contains(string(out), "IP 10.200.0.1.") {
		t.Errorf("tcpdump printed %d lines for %d packets, none from the client: first %q", len(lines), packets, lines[0])
	}
}

func TestPcapNeedsTheLink(t *testing.T) {
	_, err := Open(context.Background(), probe.Condition{Page: "pageA", NoLink: true}, Options{PcapDir: t.TempDir(), WorkDir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "emulated link") {
		t.Errorf("pcap on loopback: %v", err)
	}
}

// Through a lossy downlink the servers repair the losses: the load's
// result carries the servers' TCP_INFO with their retransmits, one entry
// per connection the load opened.
func TestServerTCPInfoSeesDownlinkLoss(t *testing.T) {
	testutil.RequireRoot(t)
	c := probe.Condition{Page: "pageA", Shards: 1,
		Link: probe.Link{DownBps: 10e6, UpBps: 5e6, RTT: 40 * time.Millisecond, LossDown: 0.03, QueuePkts: 100, Shared: true}}
	b := openBench(t, c, Options{})
	for run, proto := range []string{probe.ProtoHTTPS, probe.ProtoSPDY31} {
		r := b.Load(context.Background(), proto, run)
		if r.Failed {
			t.Fatalf("%s: %s", proto, r.Error)
		}
		s := r.ServerTCP
		if s == nil {
			t.Fatalf("%s: no server TCP_INFO in the result", proto)
		}
		t.Logf("%s: link lost %d packets down; server retransmits %d (%d of %d bytes), client retransmits %d",
			proto, r.Link.Down.PktsLost, s.Sum.Retransmits, s.Sum.BytesRetrans, s.Sum.BytesSent, probe.SumTCP(r.TCP).Retransmits)
		if r.Link.Down.PktsLost == 0 {
			t.Fatalf("%s: the link lost nothing; the test needs losses", proto)
		}
		if s.Sum.Retransmits == 0 || s.Sum.BytesRetrans == 0 {
			t.Errorf("%s: servers retransmitted nothing after %d downlink losses: %+v", proto, r.Link.Down.PktsLost, s.Sum)
		}
		if s.Sum.Conns != r.Connections || s.Sum.BytesSent < uint64(b.Manifest().TotalBytes()) {
			t.Errorf("%s: %d server connections sent %d bytes; the load opened %d for a %d-byte page", proto, s.Sum.Conns, s.Sum.BytesSent, r.Connections, b.Manifest().TotalBytes())
		}
		for _, ci := range s.Conns {
			if ci.Host != "s1.spdylab.test" || !strings.HasPrefix(ci.Peer, "10.200.0.1:") || ci.SndCwnd == 0 || ci.RTTms < 30 { // the link alone is 40 ms
				t.Errorf("%s: connection record %+v", proto, ci)
			}
		}
	}
}
