package harness

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spdylab/spdylab/internal/schedwait"
	"github.com/spdylab/spdylab/loader"
	"github.com/spdylab/spdylab/probe"
)

// What a bench measures around each load besides the loader's own
// numbers: the emulator's link counters, the endpoints' wait for a CPU, the servers' side of SCTP
// associations and of TCP connections (TCP_INFO), and (Options.PcapDir) a
// packet capture of the client's side of the link. All of them are reset or started just before a load and
// collected just after it, so each load's numbers and capture cover that
// load only.

// LoadFileName names a file of one load: <prefix>-<proto>-runNNN<ext>, with
// run 0-based as Load takes it and NNN 1-based as `spdylab load` prints it
// (HAR files and captures).
func LoadFileName(prefix, proto string, run int, ext string) string {
	return fmt.Sprintf("%s-%s-run%03d%s", SafeFileName(prefix), SafeFileName(proto), run+1, ext)
}

// checkPcapOptions refuses captures without a link to capture and creates
// the capture directory.
func checkPcapOptions(c probe.Condition, opt Options) error {
	if opt.PcapDir == "" {
		return nil
	}
	if c.NoLink {
		return errors.New("harness: packet captures need the emulated link (the condition has no_link)")
	}
	if err := os.MkdirAll(opt.PcapDir, 0o755); err != nil {
		return fmt.Errorf("harness: pcap directory: %w", err)
	}
	return nil
}

// beginLoadStats starts the load's capture and zeroes the per-load
// counters. The capture starts first and stops last (endLoadStats), so it
// holds at least every packet the link counters count: packets still
// flowing between loads (the previous load's connections closing) are in
// both or only in the capture.
func (b *Bench) beginLoadStats(proto string, run int) error {
	if err := b.startPcap(proto, run); err != nil {
		return err
	}
	b.tb.ResetCounters()
	b.waitFrom = schedwait.Take()
	b.takeSCTPCounters(nil)
	b.takeServerTCP()
	b.serverHandshakes()
	return nil
}

// endLoadStats collects the per-load counters into r and moves the load's
// capture into place. A capture that cannot be written fails the load: the
// user asked for it.
func (b *Bench) endLoadStats(r *probe.Result) {
	r.Link = b.tb.Counters()
	if w := schedwait.Since(b.waitFrom); w.Samples > 0 {
		r.EndpointWait = &probe.EndpointWait{P50ms: w.P50ms, P99ms: w.P99ms, Samples: w.Samples}
	}
	r.LinkSeed = b.tb.Config().Link.Seed
	b.takeSCTPCounters(r.SCTP)
	r.ServerTCP = b.takeServerTCP()
	var conns []probe.TCPInfo
	if r.ServerTCP != nil {
		conns = r.ServerTCP.Conns
	}
	r.Adaptive = probe.AdaptiveNote(r.Condition, r.Condition.Proto, conns, r.RecvWindow, r.SessionDemand)
	if err := b.stopPcap(); err != nil {
		r.Failed = true
		if r.Error != "" {
			r.Error += "; "
		}
		r.Error += err.Error()
	}
}

// takeServerTCP collects the TCP_INFO of every connection the servers
// accepted since the last call: after a load, the load's connections,
// numbered in accept order per server.
func (b *Bench) takeServerTCP() *probe.ServerTCP {
	var conns []probe.TCPInfo
	for i, s := range b.servers {
		host := b.serverHosts[i]
		for _, c := range s.TakeTCPInfo() {
			ti := loader.TCPInfoOf(len(conns)+1, host, c.Info)
			ti.Local, ti.Peer = c.Local, c.Peer
			ti.AdaptCC, ti.AdaptLowat, ti.AdaptPaceLowest = c.AdaptCC, c.AdaptLowat, c.AdaptPaceLowest
			conns = append(conns, ti)
		}
	}
	return probe.NewServerTCP(conns)
}

// pcapPath is where the capture of one load goes.
func (b *Bench) pcapPath(proto string, run int) string {
	name := LoadFileName(b.m.Name, proto, run, ".pcap")
	if b.opt.PcapName != nil {
		name = b.opt.PcapName(proto, run)
	}
	return filepath.Join(b.opt.PcapDir, name)
}

func (b *Bench) startPcap(proto string, run int) error {
	if b.opt.PcapDir == "" {
		return nil
	}
	if err := b.tb.StartCapture(b.pcapPath(proto, run)); err != nil {
		return fmt.Errorf("harness: pcap: %w", err)
	}
	b.capturing = true
	return nil
}

// stopPcap ends the running capture; without one it does nothing, so Load
// may also defer it for the paths that return early.
func (b *Bench) stopPcap() error {
	if !b.capturing {
		return nil
	}
	b.capturing = false
	if _, err := b.tb.StopCapture(); err != nil {
		return fmt.Errorf("harness: pcap: %w", err)
	}
	return nil
}
