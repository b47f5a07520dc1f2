package spdy

import (
	"fmt"
	"time"
)

// Defaults of the limits that protect a session from a hostile peer. Each
// is the one place its value is defined; Config fields override them. They
// sit far above what a browser-like client does (a page of 300+ resources,
// pushes it cancels, one SETTINGS per session) so they never bite a
// legitimate load, and far below what costs memory or CPU.
const (
	// DefaultMaxHeaderBytesPerStream caps the decompressed header bytes a
	// stream may receive across SYN_STREAM/SYN_REPLY and all its HEADERS.
	DefaultMaxHeaderBytesPerStream = 512 << 10
	// DefaultMaxQueuedControlFrames caps control frames waiting to be
	// written (PING echoes, RST_STREAMs, WINDOW_UPDATEs) when the peer
	// provokes them but does not read.
	DefaultMaxQueuedControlFrames = 10000
	// DefaultMaxResetsPerSecond caps RST_STREAMs received (rapid reset).
	DefaultMaxResetsPerSecond = 500
	// DefaultMaxEmptyFramesPerSecond caps DATA frames with no payload and
	// no FIN, and HEADERS frames with no headers and no FIN.
	DefaultMaxEmptyFramesPerSecond = 500
	// DefaultMaxSettingsPerSecond caps SETTINGS frames received.
	DefaultMaxSettingsPerSecond = 20
	// DefaultMaxRefusedStreamsPerSecond caps streams refused for exceeding
	// MAX_CONCURRENT_STREAMS.
	DefaultMaxRefusedStreamsPerSecond = 500
	// DefaultFrameReadTimeout bounds how long the rest of a frame may take
	// once its 8-byte header arrived (slowloris).
	DefaultFrameReadTimeout = 30 * time.Second
	// DefaultMaxUnreadPerStreamV2 caps a spdy/2 stream's unread DATA. SPDY/2
	// has no flow control, so this is not advertised: it only bounds memory.
	// 16 MiB lets a whole large resource arrive before a slow reader.
	DefaultMaxUnreadPerStreamV2 = 16 << 20
	// rateBurstFactor: a rate limit of R per second allows bursts of
	// R*rateBurstFactor (a page's worth of cancelled pushes arrives at once).
	rateBurstFactor = 2
)

func orDefault(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

func (c *Config) maxHeaderBytesPerStream() int {
	return orDefault(c.MaxHeaderBytesPerStream, DefaultMaxHeaderBytesPerStream)
}

func (c *Config) maxQueuedControl() int {
	return orDefault(c.MaxQueuedControlFrames, DefaultMaxQueuedControlFrames)
}

// maxInflatedBuffer: at least DefaultMaxInflatedBuffer, and room for a full
// stream window compressed 16:1 (text compresses about 5-10:1).
func (c *Config) maxInflatedBuffer(streamWindow int64) int {
	if c.MaxInflatedBuffer > 0 {
		return c.MaxInflatedBuffer
	}
	return int(max(DefaultMaxInflatedBuffer, 16*streamWindow))
}

// frameReadTimeout: the default applies to servers only. Slowloris is an
// attack on servers, and a client behind a slow or stalling emulated link
// must not give up on a frame its server is still sending.
func (c *Config) frameReadTimeout(isClient bool) time.Duration {
	if c.FrameReadTimeout == 0 && !isClient {
		return DefaultFrameReadTimeout
	}
	return c.FrameReadTimeout
}

// rateLimit is a token bucket: rate tokens per second, bursts of
// rate*rateBurstFactor. A zero rateLimit (rate < 0 in Config) allows all.
type rateLimit struct {
	rate   float64
	burst  float64
	tokens float64
	last   time.Time
}

func newRateLimit(configured, def int) rateLimit {
	r := orDefault(configured, def)
	if r < 0 {
		return rateLimit{}
	}
	b := float64(r * rateBurstFactor)
	return rateLimit{rate: float64(r), burst: b, tokens: b}
}

// allow takes one token at now, reporting false when the bucket is empty.
func (l *rateLimit) allow(now time.Time) bool {
	if l.rate == 0 {
		return true
	}
	if !l.last.IsZero() {
		l.tokens = min(l.burst, l.tokens+now.Sub(l.last).Seconds()*l.rate)
	}
	l.last = now
	if l.tokens < 1 {
		return false
	}
	l.tokens--
	return true
}

// limiters are a session's rate limits on what the peer sends.
type limiters struct {
	resets, empty, settings, refused rateLimit
}

func newLimiters(c *Config) limiters {
	return limiters{
		resets:   newRateLimit(c.MaxResetsPerSecond, DefaultMaxResetsPerSecond),
		empty:    newRateLimit(c.MaxEmptyFramesPerSecond, DefaultMaxEmptyFramesPerSecond),
		settings: newRateLimit(c.MaxSettingsPerSecond, DefaultMaxSettingsPerSecond),
		refused:  newRateLimit(c.MaxRefusedStreamsPerSecond, DefaultMaxRefusedStreamsPerSecond),
	}
}

// overLimitLocked ends the session with GOAWAY PROTOCOL_ERROR (SPDY has no
// "enhance your calm" status) when l has no token left. mu held.
func (s *session) overLimitLocked(l *rateLimit, what string) bool {
	if l.allow(time.Now()) {
		return false
	}
	s.fatalLocked(sessionErrorf("peer exceeded %.0f %s per second", l.rate, what), GoAwayProtocolError, nil, true)
	return true
}

// chargeHeadersLocked counts a header block's decompressed bytes against
// the stream's budget, resetting the stream when it is spent. mu held.
func (s *session) chargeHeadersLocked(st *stream, raw int) bool {
	st.headerBytes += raw
	if limit := s.cfg.maxHeaderBytesPerStream(); st.headerBytes > limit {
		s.resetLocked(st, RstFrameTooLarge, &StreamError{Stream: st.id, Status: RstFrameTooLarge,
			Reason: fmt.Sprintf("%d header bytes on one stream exceed the limit of %d", st.headerBytes, limit)})
		return false
	}
	return true
}
