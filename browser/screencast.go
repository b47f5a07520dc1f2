package browser

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sync"
)

// The load's screencast (Options.SpeedIndex): Page.startScreencast on the
// page's session before navigation makes Chromium send a frame each time
// the page's compositor presents a changed picture, until the next
// unacknowledged frame. Frames are kept encoded (JPEG, at half the window's
// size: the Speed Index compares colour histograms, which do not need the
// detail) and decoded once the load is done, off the reader goroutine.

// screencastParams are Page.startScreencast's.
func screencastParams(w, h int) map[string]any {
	return map[string]any{"format": "jpeg", "quality": 80, "maxWidth": w / 2, "maxHeight": h / 2, "everyNthFrame": 1}
}

// rawFrame is one screencast frame: its JPEG and its presentation time
// (seconds since the epoch, Chromium's wall clock).
type rawFrame struct {
	jpeg []byte
	wall float64
}

// maxFrames bounds the frames a load keeps (about 20 KB each): a page that
// animates for the whole load sends one per display frame, and its Speed
// Index is refused rather than its frames held without bound.
const maxFrames = 3000

// screencast collects one view's frames.
type screencast struct {
	mu      sync.Mutex
	frames  []rawFrame
	decoded error // the first frame that did not decode, or too many frames
	stopped bool
}

// handle takes a Page.screencastFrame event (reader goroutine) and returns
// the ack to send, 0 when there is none.
func (sc *screencast) handle(ev cdpEvent) int {
	var f struct {
		Data     string `json:"data"`
		Metadata struct {
			Timestamp float64 `json:"timestamp"`
		} `json:"metadata"`
		SessionID int `json:"sessionId"`
	}
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if err := json.Unmarshal(ev.Params, &f); err != nil {
		if sc.decoded == nil {
			sc.decoded = fmt.Errorf("a screencast frame does not decode: %v", err)
		}
		return 0
	}
	b, err := base64.StdEncoding.DecodeString(f.Data)
	if err != nil || f.Metadata.Timestamp <= 0 {
		if sc.decoded == nil {
			sc.decoded = fmt.Errorf("a screencast frame without an image or a time")
		}
		return f.SessionID
	}
	switch {
	case sc.stopped || sc.decoded != nil:
	case len(sc.frames) == maxFrames:
		sc.frames, sc.decoded = nil, fmt.Errorf("Chromium sent more than %d screencast frames (a page animating throughout its load)", maxFrames)
	default:
		sc.frames = append(sc.frames, rawFrame{b, f.Metadata.Timestamp})
	}
	return f.SessionID
}

// take ends the collection and returns the frames.
func (sc *screencast) take() ([]rawFrame, error) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	sc.stopped = true
	return sc.frames, sc.decoded
}

// ackFrame acknowledges one frame, so Chromium sends the next. It runs on
// its own goroutine: calls wait for replies the reader goroutine delivers.
func (s *session) ackFrame(sid string, id int) {
	s.conn.call(s.ctx, sid, "Page.screencastFrameAck", map[string]any{"sessionId": id}, nil)
}

// startScreencast starts the page's frames (session sid) when the load
// measures Speed Index.
func (s *session) startScreencast(ctx context.Context, sid string) error {
	if !s.o.SpeedIndex || s.unmeasured {
		return nil
	}
	w, h := s.o.Profile.Width, s.o.Profile.Height
	if w == 0 {
		w = defaultWidth
	}
	if h == 0 {
		h = defaultHeight
	}
	s.frames.Store(&screencast{})
	return s.conn.call(ctx, sid, "Page.startScreencast", screencastParams(w, h), nil)
}

// stopScreencast ends the page's frames; the frames already received stay.
func (s *session) stopScreencast(ctx context.Context, sid string) {
	if s.frames.Load() == nil {
		return
	}
	s.conn.call(ctx, sid, "Page.stopScreencast", nil, nil)
}
