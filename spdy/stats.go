package spdy

import "sync"

// Stats are a session's counters since it started.
type Stats struct {
	// Header blocks (SYN_STREAM, SYN_REPLY, HEADERS): Raw is the uncompressed
	// SPDY name/value encoding, Compressed what went over the wire.
	HeaderBytesSentRaw            int64
	HeaderBytesSentCompressed     int64
	HeaderBytesReceivedRaw        int64
	HeaderBytesReceivedCompressed int64
	// DATA payload bytes (frame headers excluded; received: those of
	// frames discarded unread too).
	DataBytesSent     int64
	DataBytesReceived int64
	// Frames by type name ("DATA", "SYN_STREAM", ...).
	FramesSent     map[string]int64
	FramesReceived map[string]int64
	// Server pushes seen by a client: offered, accepted by OnPush, and
	// claimed through Pushed.
	PushesOffered  int64
	PushesAccepted int64
	PushesClaimed  int64
}

type statsCounter struct {
	mu sync.Mutex
	st Stats
}

func headerSize(f Frame) (BlockSize, bool) {
	switch f := f.(type) {
	case *SynStreamFrame:
		return f.Size, true
	case *SynReplyFrame:
		return f.Size, true
	case *HeadersFrame:
		return f.Size, true
	}
	return BlockSize{}, false
}

func (c *statsCounter) sent(f Frame) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.st.FramesSent == nil {
		c.st.FramesSent = map[string]int64{}
	}
	c.st.FramesSent[f.Type().String()]++
	if d, ok := f.(*DataFrame); ok {
		c.st.DataBytesSent += int64(len(d.Data))
	}
	if sz, ok := headerSize(f); ok {
		c.st.HeaderBytesSentRaw += int64(sz.Raw)
		c.st.HeaderBytesSentCompressed += int64(sz.Compressed)
	}
}

func (c *statsCounter) received(f Frame) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.st.FramesReceived == nil {
		c.st.FramesReceived = map[string]int64{}
	}
	c.st.FramesReceived[f.Type().String()]++
	if d, ok := f.(*DataFrame); ok {
		c.st.DataBytesReceived += int64(len(d.Data) + d.skipped) // discarded payloads too
	}
	if sz, ok := headerSize(f); ok {
		c.st.HeaderBytesReceivedRaw += int64(sz.Raw)
		c.st.HeaderBytesReceivedCompressed += int64(sz.Compressed)
	}
}

func (c *statsCounter) add(fn func(*Stats)) {
	c.mu.Lock()
	fn(&c.st)
	c.mu.Unlock()
}

func (c *statsCounter) snapshot() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.st
	out.FramesSent = make(map[string]int64, len(c.st.FramesSent))
	for k, v := range c.st.FramesSent {
		out.FramesSent[k] = v
	}
	out.FramesReceived = make(map[string]int64, len(c.st.FramesReceived))
	for k, v := range c.st.FramesReceived {
		out.FramesReceived[k] = v
	}
	return out
}
