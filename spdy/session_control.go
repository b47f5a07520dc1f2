package spdy

// Session-level control frames: SETTINGS, PING and GOAWAY.

import (
	"context"
	"time"
)

func (s *session) onSettings(f *SettingsFrame) {
	if s.overLimitLocked(&s.limits.settings, "SETTINGS frames") {
		return
	}
	if s.isClient && s.onPersist != nil {
		s.onPersist(f)
	}
	for _, e := range f.Entries {
		switch e.ID {
		case SettingMaxConcurrentStreams:
			s.peerMaxStreams = e.Value
			close(s.slotFreed)
			s.slotFreed = make(chan struct{})
		case SettingInitialWindowSize:
			if !s.flow && !s.spdy2SettingLocked(e.Value) {
				continue // SPDY/2 has no windows (node-spdy still announces one)
			}
			if e.Value > maxWindow {
				s.fatalLocked(sessionErrorf("SETTINGS_INITIAL_WINDOW_SIZE %d exceeds 2^31-1", e.Value), GoAwayProtocolError, nil, true)
				return
			}
			delta := int64(e.Value) - s.peerInitWindow
			s.peerInitWindow = int64(e.Value)
			for _, st := range s.streams {
				if st.unwindowed {
					continue
				}
				if !st.send.add(delta) { // may go negative (section 2.6.8)
					s.resetLocked(st, RstFlowControlError, nil)
				}
			}
			s.wake.Signal()
		}
	}
}

func (s *session) onPing(f *PingFrame) {
	if s.isPeerID(f.ID) {
		// Echo at once, ahead of queued data (section 2.6.5).
		if max := s.cfg.maxQueuedControl(); s.sched.controlLen() >= max {
			s.fatalLocked(sessionErrorf("PING flood: more than %d control frames queued", max), GoAwayProtocolError, nil, true)
			return
		}
		s.sched.pushUrgent(&PingFrame{ID: f.ID})
		s.wake.Signal()
		return
	}
	if ch, ok := s.pings[f.ID]; ok {
		delete(s.pings, f.ID)
		close(ch)
		return
	}
	s.recvWindowEchoLocked(f.ID)
	// An id of our parity we did not send is ignored (section 2.6.5).
}

func (s *session) onGoAway(f *GoAwayFrame) {
	if s.goAwayReceived == nil {
		s.goAwayReceived = f
	}
	for id, st := range s.streams {
		if !s.isPeerID(id) && id > f.LastGoodStream {
			s.closeStreamLocked(st, &GoAwayError{LastGoodStream: f.LastGoodStream, Status: f.Status, Stream: id}, closedByRemoteRst)
		}
	}
	close(s.slotFreed)
	s.slotFreed = make(chan struct{})
	s.afterStreamClosedLocked()
}

// takePingIDLocked hands out the next PING id of our parity.
func (s *session) takePingIDLocked() uint32 {
	id := s.nextPingID
	s.nextPingID += 2
	if s.nextPingID > 0x7fffffff {
		s.nextPingID -= 0x7ffffffe // wrap, keeping parity (2.6.5 allows reuse)
	}
	return id
}

// ping sends a PING and waits for its echo.
func (s *session) ping(ctx context.Context) (time.Duration, error) {
	s.mu.Lock()
	if s.dead {
		s.mu.Unlock()
		return 0, ErrSessionClosed
	}
	id := s.takePingIDLocked()
	ch := make(chan struct{})
	s.pings[id] = ch
	start := time.Now()
	s.sched.pushUrgent(&PingFrame{ID: id})
	s.wake.Signal()
	s.mu.Unlock()
	select {
	case <-ch:
		s.mu.Lock()
		dead := s.dead
		s.mu.Unlock()
		if dead {
			return 0, ErrSessionClosed
		}
		return time.Since(start), nil
	case <-ctx.Done():
		s.mu.Lock()
		delete(s.pings, id)
		s.mu.Unlock()
		return 0, ctx.Err()
	}
}
