package netem

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spdylab/spdylab/internal/atomicfile"
	"github.com/spdylab/spdylab/internal/pcapfile"
)

// Packet captures. The emulator sees every packet that crosses the
// bottleneck, so it records them itself instead of running tcpdump in a
// namespace: no extra process, no packets missed by a late start, and the
// timestamps come from the same clock and threads that shape the link.
// A capture holds the client's side of the link, as tcpdump on the client's
// interface would: every packet the client sends, stamped when the emulator
// reads it (before the uplink may lose it), and every packet delivered to
// the client, stamped when it is handed over. Packets the downlink loses
// never reach the client and are not in it. The file is classic pcap with
// LINKTYPE_RAW (TUN packets are bare IPv4), written to a temporary file and
// renamed into place when the capture stops, so a killed run never leaves a
// truncated capture under the final name.

// CaptureStats counts what one capture recorded.
type CaptureStats struct {
	Packets uint64 `json:"packets"`
	Bytes   uint64 `json:"bytes"`
}

// StartCapture starts recording the client's side of the link into a pcap
// file at path (created when StopCapture commits it). One capture runs at a
// time; a second StartCapture before StopCapture is an error.
func (tb *Testbed) StartCapture(path string) error {
	if tb.emu == nil {
		return errors.New("netem: a loopback testbed has no link to capture")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("netem: capture: %w", err)
	}
	return tb.emu.startCapture(abs)
}

// StopCapture ends the running capture and moves its file into place.
func (tb *Testbed) StopCapture() (CaptureStats, error) {
	if tb.emu == nil {
		return CaptureStats{}, errors.New("netem: a loopback testbed has no link to capture")
	}
	return tb.emu.stopCapture()
}

var (
	errCaptureRunning = errors.New("netem: a capture is already running")
	errNoCapture      = errors.New("netem: no capture is running")
)

// captureFlushBytes and captureFlushEvery decide when the writer moves
// recorded packets to the file. The emulator's real-time threads only
// append to memory; a goroutine of its own does the system calls, so disk
// latency never delays a packet.
const (
	captureFlushBytes = 256 << 10
	captureFlushEvery = 100 * time.Millisecond
)

// capture is one running capture.
type capture struct {
	file *atomicfile.File

	mu     sync.Mutex
	buf    []byte // records not yet written
	stats  CaptureStats
	closed bool // no more packets: the writer drains buf and exits

	wake chan struct{} // buf is large: write it now
	stop chan struct{}
	done chan struct{} // the writer has exited
	werr error         // the writer's first error, read after done
}

func newCapture(path string) (*capture, error) {
	f, err := atomicfile.Create(path)
	if err != nil {
		return nil, fmt.Errorf("netem: capture: %w", err)
	}
	c := &capture{
		file: f,
		buf:  pcapfile.AppendFileHeader(make([]byte, 0, 2*captureFlushBytes), pcapfile.DefaultSnapLen, pcapfile.LinkTypeRaw),
		wake: make(chan struct{}, 1),
		stop: make(chan struct{}),
		done: make(chan struct{}),
	}
	// Both buffers start at full size, so add does not grow one (and make
	// the garbage collector work) while the link is busy.
	go c.writeLoop(make([]byte, 0, 2*captureFlushBytes))
	return c, nil
}

// add records one packet seen now. It runs on the pumps' and delay lines'
// threads: a copy under a lock, no system call.
func (c *capture) add(pkt []byte) {
	now := time.Now()
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.buf = pcapfile.AppendRecord(c.buf, now, pkt, pcapfile.DefaultSnapLen)
	c.stats.Packets++
	c.stats.Bytes += uint64(len(pkt))
	full := len(c.buf) >= captureFlushBytes
	c.mu.Unlock()
	if full {
		select {
		case c.wake <- struct{}{}:
		default:
		}
	}
}

// writeLoop moves recorded packets to the file until the capture stops,
// swapping two buffers so that add never waits for a write.
func (c *capture) writeLoop(spare []byte) {
	defer close(c.done)
	tick := time.NewTicker(captureFlushEvery)
	defer tick.Stop()
	for {
		stopping := false
		select {
		case <-c.wake:
		case <-tick.C:
		case <-c.stop:
			stopping = true
		}
		c.mu.Lock()
		out := c.buf
		c.buf = spare[:0]
		c.mu.Unlock()
		if len(out) > 0 && c.werr == nil {
			_, c.werr = c.file.Write(out)
		}
		spare = out
		if stopping {
			return
		}
	}
}

// end stops recording and waits for the writer to drain.
func (c *capture) end() CaptureStats {
	c.mu.Lock()
	c.closed = true
	st := c.stats
	c.mu.Unlock()
	close(c.stop)
	<-c.done
	return st
}

// finish ends the capture and moves the file into place.
func (c *capture) finish() (CaptureStats, error) {
	st := c.end()
	if c.werr != nil {
		c.file.Abort()
		return st, fmt.Errorf("netem: capture: %w", c.werr)
	}
	if err := c.file.Commit(); err != nil {
		return st, fmt.Errorf("netem: capture: %w", err)
	}
	return st, nil
}

// abort ends the capture and removes its file (the testbed closes).
func (c *capture) abort() {
	c.end()
	c.file.Abort()
}

// recordClientSide records pkt when a capture runs; the emulator calls it
// for every packet read from or written to the client's TUN device.
func (e *emulator) recordClientSide(pkt []byte) {
	if c := e.capture.Load(); c != nil {
		c.add(pkt)
	}
}

func (e *emulator) startCapture(path string) error {
	c, err := newCapture(path)
	if err != nil {
		return err
	}
	if !e.capture.CompareAndSwap(nil, c) {
		c.abort()
		return errCaptureRunning
	}
	return nil
}

func (e *emulator) stopCapture() (CaptureStats, error) {
	c := e.capture.Swap(nil)
	if c == nil {
		return CaptureStats{}, errNoCapture
	}
	return c.finish()
}

// abortCapture drops a capture still running when the emulator closes.
func (e *emulator) abortCapture() {
	if c := e.capture.Swap(nil); c != nil {
		c.abort()
	}
}

// Control requests of the emulator process (emuproc.go) for captures:
// "capture <quoted path>" starts one, "capture-end" stops it and the reply
// carries its CaptureStats.
const (
	captureRequestPrefix = "capture "
	captureEndRequest    = "capture-end"
)

func captureRequest(path string) string { return captureRequestPrefix + strconv.Quote(path) }

// parseCaptureRequest returns the path of a "capture" request.
func parseCaptureRequest(req string) (string, bool) {
	q, ok := strings.CutPrefix(req, captureRequestPrefix)
	if !ok {
		return "", false
	}
	path, err := strconv.Unquote(q)
	return path, err == nil
}

func (e *emuProc) startCapture(path string) error {
	return e.request(captureRequest(path))
}

func (e *emuProc) stopCapture() (CaptureStats, error) {
	if e.dead() {
		return CaptureStats{}, e.failure(captureEndRequest, errors.New("emulator gone"))
	}
	rep, err := e.exchange(captureEndRequest)
	if err != nil {
		return CaptureStats{}, err
	}
	if rep.Error != "" {
		return CaptureStats{}, errors.New(rep.Error)
	}
	if rep.Captured == nil {
		return CaptureStats{}, fmt.Errorf("netem: emulator process: %s reply without counts", captureEndRequest)
	}
	return *rep.Captured, nil
}

// request sends req to the emulator process and returns the error it
// answered with, if any.
func (e *emuProc) request(req string) error {
	if e.dead() {
		return e.failure(req, errors.New("emulator gone"))
	}
	rep, err := e.exchange(req)
	if err != nil {
		return err
	}
	if rep.Error != "" {
		return errors.New(rep.Error)
	}
	return nil
}

// answerCapture is the emulator process's side of the capture requests;
// ok is false for other requests.
func (e *emulator) answerCapture(req string) (rep emuReply, ok bool) {
	if req == captureEndRequest {
		st, err := e.stopCapture()
		if err != nil {
			return emuReply{Error: err.Error()}, true
		}
		return emuReply{Captured: &st}, true
	}
	path, ok := parseCaptureRequest(req)
	if !ok {
		return rep, false
	}
	if err := e.startCapture(path); err != nil {
		rep.Error = err.Error()
	}
	return rep, true
}
