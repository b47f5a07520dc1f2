// Package spdy implements SPDY/3.1 and SPDY/3 (draft-mbelshe-httpbis-spdy-00
// plus the 3.1 session flow-control delta) and SPDY/2 ("SPDY Protocol -
// Draft 2": no flow control, its own header dictionary and block layout; the
// framer and header codec take the wire version, the session is shared and
// consults it only for flow control): a framer with the shared zlib
// header compression contexts, sessions with priorities, stream- and
// session-level flow control, server push, and an HTTP client and server on
// top (net/http Handler and RoundTrip). Versions lists the versions with
// their facts (token, wire version, which windows they have).
//
// The writer of a session sends control frames first (PING replies ahead of
// everything else), then DATA in the order Config.Scheduler chooses: by
// default from the highest-priority stream that has data and window,
// round-robin among streams of equal priority. Receive windows are
// reopened as the application reads, not when data arrives, so a slow reader
// throttles its peer.
package spdy

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
)

// Defaults applied to zero Config fields.
const (
	DefaultMaxConcurrentStreams = 100
	DefaultInitialWindowSize    = 65536
	// DefaultMaxFrameSize is the largest DATA payload sent when Config does
	// not say: 16 KiB matches a TLS record, so a frame never waits for a
	// second record to be decrypted.
	DefaultMaxFrameSize = 16384
	// RampFirstFrame is the first DATA payload of a stream under
	// Config.RampFrames: with the 8-byte frame header and a TLS record's
	// overhead it fits one segment at the common 1460-byte MSS.
	RampFirstFrame = 1200
	// DefaultPriority is what RoundTrip uses without WithPriority (Chrome's
	// default for subresources in its SPDY days was in the middle, too).
	DefaultPriority = 3
	maxWindow       = 1<<31 - 1
)

// Config configures one side of a session.
type Config struct {
	// Version is ProtoSPDY31 (default), ProtoSPDY3 or ProtoSPDY2. The wire
	// version is 3 for the first two; spdy/3 has no session window, spdy/2
	// has no flow control at all (wire version 2).
	Version string
	// MaxConcurrentStreams is the limit advertised for streams the peer
	// opens (requests on a server, pushes on a client); 0 = 100.
	MaxConcurrentStreams uint32
	// InitialWindowSize is our per-stream receive window; 0 = 65536.
	// Not used by spdy/2, which has no windows (see MaxUnreadPerStream).
	InitialWindowSize int32
	// MaxUnreadPerStream (spdy/2 only) caps the DATA a stream buffers that
	// the application has not read: the peer has no window to respect, so
	// more is RST_STREAM FLOW_CONTROL_ERROR instead of unbounded memory.
	// 0 = DefaultMaxUnreadPerStreamV2.
	MaxUnreadPerStream int
	// SPDY2StreamWindows (spdy/2 only) says whether a spdy/2 session runs
	// SPDY/3's stream flow control anyway: WINDOW_UPDATE frames with
	// version 2 and SETTINGS_INITIAL_WINDOW_SIZE. Draft 2 has none (Chrome
	// sent none), but node-spdy 4 (spdy-transport) keeps 64 KiB stream
	// windows on spdy/2 and stalls a peer that never reopens them
	// (interop/SPDY_ISSUES.md #8). SPDY2WindowsAuto (the zero value)
	// follows the draft until the peer shows it keeps windows
	// (spdy2windows.go), SPDY2WindowsOn keeps them from the start,
	// SPDY2WindowsOff never.
	SPDY2StreamWindows SPDY2Windows
	// SessionWindowSize is our session receive window (spdy/3.1); 0 = 65536.
	SessionWindowSize int32
	// AdaptiveSessionWindow (spdy/3.1 only) moves our session receive
	// window with the path, SessionWindowSize being its top: it grows with
	// what arrives while the session's own PING round trips show no queue
	// and falls to what the last round trip delivered once they show one
	// (recvwindow.go), so one session's slow start cannot overfill a
	// shallow queue it shares. The session sends a PING at its start and
	// keeps one out while DATA arrives.
	AdaptiveSessionWindow bool
	// MaxFrameSize is the largest DATA payload we send; 0 = 16384.
	MaxFrameSize int
	// RampFrames starts each stream's DATA with a frame that fits one TCP
	// segment (RampFirstFrame) and lets each next frame be as large as the
	// stream has sent so far, up to MaxFrameSize. A receiver hands a DATA
	// frame on only whole, so a 16 KiB first frame that the connection's
	// first flight cannot carry holds a document's first bytes (the
	// references a browser starts fetching from) back a round trip;
	// crypto/tls sizes its first records by the same reasoning.
	RampFrames bool
	// MaxHeaderBlockSize caps a decompressed header block; 0 = 256 KiB.
	MaxHeaderBlockSize int
	// MaxReadFrameSize caps the length of any received frame; a larger one
	// is refused from its header: DATA on an open stream with RST_STREAM
	// FRAME_TOO_LARGE (its payload skipped unbuffered), anything else with
	// GOAWAY PROTOCOL_ERROR.
	// 0 = 1 MiB; values below 8192 (the spec's minimum) are raised to it.
	MaxReadFrameSize int
	// NotSentLowat sets TCP_NOTSENT_LOWAT on the connection when it is (or
	// wraps) a *net.TCPConn, so the kernel buffer does not hold so much
	// unsent data that a later high-priority frame waits behind it. 0 = leave.
	NotSentLowat int
	// Trace, if set, is called for every frame sent (sent=true) and received.
	// It runs on the session's reader or writer goroutine and must not block;
	// DATA frame payloads are valid only during the call.
	Trace func(sent bool, f Frame)
	// IdleTimeout closes a session (GOAWAY OK) with no open streams for this
	// long. 0 = never.
	IdleTimeout time.Duration
	// Scheduler orders the DATA frames this side sends when several streams
	// have data (control frames always go first): SchedulePriority (the
	// zero value), ScheduleRoundRobin, ScheduleFIFO or SchedulePriorityFIFO.
	Scheduler Scheduler

	// Limits on a hostile peer (limits.go has the defaults and why). 0 =
	// default; for the per-second rates a negative value turns the limit off.

	// MaxHeaderBytesPerStream caps decompressed header bytes per stream
	// across all its header frames; more is RST_STREAM FRAME_TOO_LARGE.
	MaxHeaderBytesPerStream int
	// MaxInflatedBuffer caps a stream's unread decompressed
	// FLAG_DATA_COMPRESSED payload; more is RST_STREAM FRAME_TOO_LARGE.
	// 0 = the larger of 1 MiB and 16 stream windows.
	MaxInflatedBuffer int
	// MaxQueuedControlFrames caps control frames the peer makes us queue
	// (PING echoes, RSTs) while not reading; more ends the session.
	MaxQueuedControlFrames int
	// MaxResetsPerSecond, MaxEmptyFramesPerSecond, MaxSettingsPerSecond
	// and MaxRefusedStreamsPerSecond cap what the peer may send (bursts of
	// twice the rate); more ends the session with GOAWAY PROTOCOL_ERROR.
	MaxResetsPerSecond         int
	MaxEmptyFramesPerSecond    int
	MaxSettingsPerSecond       int
	MaxRefusedStreamsPerSecond int
	// FrameReadTimeout bounds how long the rest of a frame may take once
	// its header arrived; a peer that stalls mid-frame gets GOAWAY and is
	// closed. 0 = 30 s on a server and no limit on a client; negative = no limit.
	FrameReadTimeout time.Duration
}

// version is c.Version's entry in Versions (SPDY/3.1 for ""); validate
// has refused any other value.
func (c *Config) version() VersionInfo {
	if c.Version == "" {
		return Versions[0]
	}
	v, _ := LookupVersion(c.Version)
	return v
}

func (c *Config) version31() bool { return c.version().SessionWindow }

// wireVersion is the version in control frames: 2 for spdy/2, else 3.
func (c *Config) wireVersion() uint16 { return c.version().Wire }

// flowControlled: spdy/3 and 3.1 have stream windows, spdy/2 none unless
// SPDY2StreamWindows asks for node-spdy's variant.
func (c *Config) flowControlled() bool {
	return c.version().StreamWindows || c.SPDY2StreamWindows == SPDY2WindowsOn
}

// detectsSPDY2Windows: a spdy/2 session that switches to stream windows
// when the peer shows it keeps them (spdy2windows.go).
func (c *Config) detectsSPDY2Windows() bool {
	return !c.flowControlled() && c.SPDY2StreamWindows == SPDY2WindowsAuto
}

func (c *Config) maxUnreadPerStream() int64 {
	if c.MaxUnreadPerStream <= 0 {
		return DefaultMaxUnreadPerStreamV2
	}
	return int64(c.MaxUnreadPerStream)
}

func (c *Config) maxConcurrent() uint32 {
	if c.MaxConcurrentStreams == 0 {
		return DefaultMaxConcurrentStreams
	}
	return c.MaxConcurrentStreams
}

func (c *Config) initialWindow() int32 {
	if c.InitialWindowSize <= 0 {
		return DefaultInitialWindowSize
	}
	return c.InitialWindowSize
}

func (c *Config) sessionWindow() int32 {
	if c.SessionWindowSize <= 0 {
		return DefaultInitialWindowSize
	}
	return c.SessionWindowSize
}

func (c *Config) maxFrameSize() int {
	if c.MaxFrameSize <= 0 {
		return DefaultMaxFrameSize
	}
	if c.MaxFrameSize > MaxFrameLength {
		return MaxFrameLength
	}
	return c.MaxFrameSize
}

func (c *Config) validate() error {
	if _, ok := LookupVersion(c.Version); c.Version != "" && !ok {
		return &ConfigError{Field: "Version", Problem: "must be " + quotedVersions() + ", got \"" + c.Version + "\""}
	}
	if c.SPDY2StreamWindows < SPDY2WindowsAuto || c.SPDY2StreamWindows > SPDY2WindowsOff {
		return &ConfigError{Field: "SPDY2StreamWindows", Problem: fmt.Sprintf("%d is not SPDY2WindowsAuto, SPDY2WindowsOn or SPDY2WindowsOff", int(c.SPDY2StreamWindows))}
	}
	if c.AdaptiveSessionWindow && !c.version31() {
		return &ConfigError{Field: "AdaptiveSessionWindow", Problem: "needs a session window: spdy/3.1 only, got \"" + c.Version + "\""}
	}
	if c.Scheduler < SchedulePriority || c.Scheduler > SchedulePriorityFIFO {
		return &ConfigError{Field: "Scheduler", Problem: fmt.Sprintf("%d is not SchedulePriority, ScheduleRoundRobin, ScheduleFIFO or SchedulePriorityFIFO", int(c.Scheduler))}
	}
	return nil
}

// Scheduler is the order in which a session's streams send their DATA.
type Scheduler int

const (
	// SchedulePriority is strict priority: the highest-priority (lowest
	// number) stream with data and window sends, streams of one priority
	// take turns frame by frame (what SPDY's priorities ask of a server).
	SchedulePriority Scheduler = iota
	// ScheduleRoundRobin ignores priorities: every stream with data and
	// window takes its turn, one frame each.
	ScheduleRoundRobin
	// ScheduleFIFO serves streams in the order they were opened (requests
	// as they arrived, pushes as they were promised), each until it has
	// nothing left to send; a stream blocked by flow control lets the next
	// one send meanwhile.
	ScheduleFIFO
	// SchedulePriorityFIFO is strict priority with the streams of one
	// priority served in the order they were opened, each to its end: the
	// order a server keeps when a client chains each request behind the
	// last one of its priority (Chromium's exclusive HTTP/2 dependencies),
	// so that of several scripts the parser needs in turn the first is
	// complete first instead of all finishing together.
	SchedulePriorityFIFO
)

var schedulerNames = [...]string{SchedulePriority: "priority", ScheduleRoundRobin: "roundrobin", ScheduleFIFO: "fifo", SchedulePriorityFIFO: "priority-fifo"}

// String is the scheduler's name: "priority", "roundrobin", "fifo" or
// "priority-fifo".
func (s Scheduler) String() string { return enumName(schedulerNames[:], s, "Scheduler") }

// ParseScheduler maps a scheduler's name (String) to it; "" is
// SchedulePriority.
func ParseScheduler(name string) (Scheduler, error) {
	return parseEnum[Scheduler](schedulerNames[:], name, "scheduler")
}

// enumName is the name of an enum value v of type typ (Scheduler,
// SPDY2Windows), or typ(v) when it has none.
func enumName[E ~int](names []string, v E, typ string) string {
	if v >= 0 && int(v) < len(names) {
		return names[v]
	}
	return fmt.Sprintf("%s(%d)", typ, int(v))
}

// parseEnum maps one of names to its value; "" is the first (the zero
// value). what names the enum in the error.
func parseEnum[E ~int](names []string, name, what string) (E, error) {
	if name == "" {
		return 0, nil
	}
	if i := slices.Index(names, name); i >= 0 {
		return E(i), nil
	}
	return 0, fmt.Errorf("spdy: unknown %s %q (want %s or %s)", what, name, strings.Join(names[:len(names)-1], ", "), names[len(names)-1])
}

// ConfigError names a bad Config field.
type ConfigError struct{ Field, Problem string }

func (e *ConfigError) Error() string { return "spdy: Config." + e.Field + " " + e.Problem }

type priorityKey struct{}

// WithPriority returns a context carrying a SPDY priority (0 highest .. 7
// lowest) for RoundTrip. Values above 7 are clamped to 7.
func WithPriority(ctx context.Context, p uint8) context.Context {
	if p > 7 {
		p = 7
	}
	return context.WithValue(ctx, priorityKey{}, p)
}

func priorityFrom(ctx context.Context) uint8 {
	if p, ok := ctx.Value(priorityKey{}).(uint8); ok {
		return p
	}
	return DefaultPriority
}

type requestInfoKey struct{}

type requestInfo struct {
	priority uint8
	stream   uint32
}

// RequestPriority reports the SPDY priority (0..7) of a request a Server is
// handling; it is DefaultPriority for requests that did not come over SPDY.
func RequestPriority(r *http.Request) uint8 {
	if ri, ok := r.Context().Value(requestInfoKey{}).(*requestInfo); ok {
		return ri.priority
	}
	return DefaultPriority
}

// RequestStreamID reports the SPDY stream id of a request a Server is
// handling (0 if it did not come over SPDY).
func RequestStreamID(r *http.Request) uint32 {
	if ri, ok := r.Context().Value(requestInfoKey{}).(*requestInfo); ok {
		return ri.stream
	}
	return 0
}
