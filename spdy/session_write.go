package spdy

// The session's writer: control frames first, then DATA in the
// scheduler's order (writesched.go).

// queueControl queues a control frame triggered by the peer, enforcing the
// bound on queued control frames. mu held.
func (s *session) queueControl(f Frame) {
	if s.dead {
		return
	}
	if max := s.cfg.maxQueuedControl(); s.sched.controlLen() >= max {
		s.fatalLocked(sessionErrorf("peer caused more than %d queued control frames", max), GoAwayProtocolError, nil, true)
		return
	}
	s.sched.pushControl(f, nil)
	s.wake.Signal()
}

func (s *session) writeLoop() {
	defer close(s.writerDone)
	var err error
	for {
		s.mu.Lock()
		var item writeItem
		for {
			var ok bool
			var sw *outflow
			if s.v31 {
				sw = &s.send
			}
			item, ok = s.sched.next(sw, s.maxFrame, s.dead)
			if ok {
				break
			}
			if s.dead || err != nil {
				s.mu.Unlock()
				if err == nil {
					s.fr.Flush()
				}
				s.conn.Close()
				return
			}
			if s.fr.Buffered() > 0 {
				// Nothing else is ready: this is the moment to hit the socket.
				s.mu.Unlock()
				err = s.fr.Flush()
				s.mu.Lock()
				if err != nil {
					s.fatalLocked(err, GoAwayOK, nil, false)
				}
				continue
			}
			s.wake.Wait()
		}
		s.mu.Unlock()

		var f Frame
		if item.control != nil {
			f = item.control.f
		} else {
			f = item.data
		}
		err = s.fr.WriteFrame(f)
		if err == nil {
			s.stats.sent(f)
			if s.cfg.Trace != nil {
				s.cfg.Trace(true, f)
			}
		}
		if item.control != nil && item.control.written != nil && err == nil {
			item.control.written()
		}
		if item.data != nil {
			s.dataWritten(item, err)
		}
		if err != nil {
			s.fatal(err, GoAwayOK, nil)
		}
	}
}

// dataWritten finishes the bookkeeping of one DATA frame after it is written.
func (s *session) dataWritten(item writeItem, err error) {
	if item.completed == nil {
		return
	}
	if err != nil {
		item.completed.done <- err
		return
	}
	s.mu.Lock()
	if item.completed.fin {
		item.st.localClosed = true
		s.maybeCloseLocked(item.st)
	}
	s.mu.Unlock()
	item.completed.done <- nil
}
