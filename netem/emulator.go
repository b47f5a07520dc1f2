package netem

import (
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spdylab/spdylab/netem/link"
	"github.com/spdylab/spdylab/probe"
)

// dirConfigs are the emulator settings of the two directions.
type dirConfigs struct {
	down, up link.DirConfig
	// hostDelays are the extra round trips toward sites (hostdelay.go).
	hostDelays map[netip.Addr]time.Duration
}

// buildDirs turns a Config into per-direction emulator settings, loading
// trace files (so a malformed trace fails New before anything is built).
func buildDirs(cfg *Config) (dirConfigs, error) {
	l := cfg.Link
	var d dirConfigs
	d.down.Delay, d.up.Delay = l.OneWay()
	d.down.RateBps, d.up.RateBps = l.DownBps, l.UpBps
	qd, qu := l.Queues()
	d.down.QueuePkts, d.down.QueueBytes = qd.Pkts, qd.Bytes
	d.up.QueuePkts, d.up.QueueBytes = qu.Pkts, qu.Bytes
	d.down.Loss, d.up.Loss = l.LossDown, l.LossUp
	// A Gilbert-Elliott model replaces the direction's Bernoulli loss.
	if ge := l.GEDown; ge != (link.GilbertElliott{}) {
		d.down.GE, d.down.Loss = &ge, 0
	}
	if ge := l.GEUp; ge != (link.GilbertElliott{}) {
		d.up.GE, d.up.Loss = &ge, 0
	}
	for _, t := range []struct {
		path string
		dst  **link.Trace
		dir  string
	}{{l.TraceDown, &d.down.Trace, "down"}, {l.TraceUp, &d.up.Trace, "up"}} {
		if t.path == "" {
			continue
		}
		tr, err := link.LoadTrace(t.path)
		if err != nil {
			return d, fmt.Errorf("netem: %slink trace: %w", t.dir, err)
		}
		*t.dst = tr
	}
	if cfg.PacketLog != nil {
		w := &lockedWriter{w: cfg.PacketLog}
		d.down.Log, d.up.Log = w, w
	}
	d.hostDelays = hostDelayAddrs(cfg)
	return d, nil
}

// lockedWriter serialises the pipes' per-packet log lines into one writer.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// linkEmulator is what a testbed needs from its emulator, whether it runs
// in this process (emulator) or in a child process (emuProc).
type linkEmulator interface {
	// close stops the emulator (flushing the packet log); the testbed
	// closes the TUN files afterwards.
	close() error
	counters() probe.LinkCounters
	// pipeCounters are the counters of every pipe: down[i] and up[i] carry
	// server i+1's traffic with per-shard links.
	pipeCounters() (down, up []probe.LinkDir, err error)
	resetCounters()
	// startCapture and stopCapture record the client's side of the link
	// into a pcap file (capture.go).
	startCapture(path string) error
	stopCapture() (CaptureStats, error)
}

// numPipes is how many pipes per direction cfg's emulator has.
func numPipes(cfg *Config) int {
	if cfg.Link.Shared {
		return 1
	}
	return cfg.Shards
}

// emulator moves packets between the client's and the router's TUN devices
// through the link pipes. With a shared link there is one pipe per
// direction; with per-shard links pipe i carries server i+1's traffic, and
// anything not to or from a server (DNS to the router) uses pipe 0.
type emulator struct {
	clientTun, routerTun *os.File
	down, up             []*link.Pipe
	pumps                []*link.Pump
	delays               *hostDelays             // nil without Config.HostDelays
	capture              atomic.Pointer[capture] // nil = not capturing
	closeOnce            sync.Once
}

// startEmulator runs the emulator in this process (Config.InProcessEmulator).
func startEmulator(cfg Config, d dirConfigs, clientTun, routerTun *os.File) (*emulator, error) {
	return runEmulator(numPipes(&cfg), cfg.Link.Seed, d, clientTun, routerTun)
}

// runEmulator starts npipes pipes per direction and the two pumps; the
// emulator child process (emuproc.go) runs the same code.
func runEmulator(npipes int, seed int64, d dirConfigs, clientTun, routerTun *os.File) (*emulator, error) {
	e := &emulator{clientTun: clientTun, routerTun: routerTun}
	toClient := func(pkt []byte) error {
		e.recordClientSide(pkt)
		_, err := clientTun.Write(pkt)
		return err
	}
	writeRouter := func(pkt []byte) error { _, err := routerTun.Write(pkt); return err }
	e.delays = newHostDelays(d.hostDelays, writeRouter)
	toRouter := func(pkt []byte) error { return e.delays.deliver(pkt, writeRouter) }
	for i := range npipes {
		down, up := d.down, d.up
		// Distinct, reproducible loss sequences per pipe and direction.
		down.Seed = seed*16 + int64(2*i)
		up.Seed = seed*16 + int64(2*i+1)
		suffix := ""
		if npipes > 1 {
			suffix = fmt.Sprintf("-s%d", i+1)
		}
		dp, err := link.NewPipe("down"+suffix, down, toClient)
		if err != nil {
			e.close()
			return nil, fmt.Errorf("netem: downlink: %w", err)
		}
		e.down = append(e.down, dp)
		up2, err := link.NewPipe("up"+suffix, up, toRouter)
		if err != nil {
			e.close()
			return nil, fmt.Errorf("netem: uplink: %w", err)
		}
		e.up = append(e.up, up2)
	}
	for _, p := range slicesConcat(e.down, e.up) {
		if err := p.Start(); err != nil {
			e.close()
			return nil, fmt.Errorf("netem: starting the emulator: %w", err)
		}
	}
	// Pumps read the TUN devices on real-time threads: the pipes stamp a
	// packet's arrival when it is enqueued, so a slow reader would add its
	// wake-up latency to the emulated delay.
	route := func(pipes []*link.Pipe, addrOff int) func([]byte) *link.Pipe {
		if len(pipes) == 1 {
			return func([]byte) *link.Pipe { return pipes[0] }
		}
		return func(pkt []byte) *link.Pipe { return pipes[pipeFor(pkt, addrOff, len(pipes))] }
	}
	fromClient := func(toPipe func([]byte) *link.Pipe) func([]byte) *link.Pipe {
		return func(pkt []byte) *link.Pipe {
			e.recordClientSide(pkt)
			return toPipe(pkt)
		}
	}
	for _, p := range []struct {
		f     *os.File
		route func([]byte) *link.Pipe
	}{
		{clientTun, fromClient(route(e.up, 16))}, // client -> server: classify by destination
		{routerTun, route(e.down, 12)},           // server -> client: classify by source
	} {
		pump, err := link.StartPump(p.f, p.route)
		if err != nil {
			e.close()
			return nil, fmt.Errorf("netem: starting the emulator: %w", err)
		}
		e.pumps = append(e.pumps, pump)
	}
	return e, nil
}

func slicesConcat(a, b []*link.Pipe) []*link.Pipe {
	return append(append([]*link.Pipe(nil), a...), b...)
}

// pipeFor maps a packet to the per-shard pipe of server 10.200.N.2. addrOff
// is the offset of the IPv4 address that says which server the packet
// belongs to (source 12, destination 16).
func pipeFor(pkt []byte, addrOff, npipes int) int {
	if len(pkt) < 20 || pkt[0]>>4 != 4 {
		return 0
	}
	a := pkt[addrOff : addrOff+4]
	if a[0] == 10 && a[1] == 200 && a[3] == 2 && int(a[2]) >= 1 && int(a[2]) <= npipes {
		return int(a[2]) - 1
	}
	return 0
}

// close stops the pumps, then the pipes; the testbed closes the TUN files
// afterwards.
func (e *emulator) close() error {
	var errs []error
	e.closeOnce.Do(func() {
		for _, p := range e.pumps {
			errs = append(errs, p.Close())
		}
		for _, p := range slicesConcat(e.down, e.up) {
			errs = append(errs, p.Close())
		}
		errs = append(errs, e.delays.close())
		e.abortCapture()
	})
	return errors.Join(errs...)
}

func ignoreClosed(err error) error {
	if errors.Is(err, os.ErrClosed) {
		return nil
	}
	return err
}

func (e *emulator) counters() probe.LinkCounters {
	return probe.LinkCounters{Down: sumDirs(e.down), Up: sumDirs(e.up)}
}

func sumDirs(pipes []*link.Pipe) probe.LinkDir {
	cs := make([]probe.LinkDir, len(pipes))
	for i, p := range pipes {
		cs[i] = p.Counters()
	}
	return sumLinkDirs(cs)
}

// sumLinkDirs adds the pipes' counters; queueing-delay percentiles are the
// largest of any pipe, and so is the emulator's lateness.
func sumLinkDirs(cs []probe.LinkDir) probe.LinkDir {
	var s probe.LinkDir
	for _, c := range cs {
		s.PktsOffered += c.PktsOffered
		s.BytesOffered += c.BytesOffered
		s.PktsDelivered += c.PktsDelivered
		s.BytesDelivered += c.BytesDelivered
		s.PktsQueueDrop += c.PktsQueueDrop
		s.PktsLost += c.PktsLost
		s.QDelayP50ms = max(s.QDelayP50ms, c.QDelayP50ms)
		s.QDelayP95ms = max(s.QDelayP95ms, c.QDelayP95ms)
		s.QDelayP99ms = max(s.QDelayP99ms, c.QDelayP99ms)
		s.QDelayMaxms = max(s.QDelayMaxms, c.QDelayMaxms)
		s.LateP99ms = max(s.LateP99ms, c.LateP99ms)
		s.LateMaxms = max(s.LateMaxms, c.LateMaxms)
	}
	return s
}

func (e *emulator) pipeCounters() (down, up []probe.LinkDir, err error) {
	for _, p := range e.down {
		down = append(down, p.Counters())
	}
	for _, p := range e.up {
		up = append(up, p.Counters())
	}
	return down, up, nil
}

func (e *emulator) resetCounters() {
	for _, p := range slicesConcat(e.down, e.up) {
		p.ResetCounters()
	}
}
