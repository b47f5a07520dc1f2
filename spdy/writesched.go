package spdy

// dataWrite is one application write waiting to become DATA frames. The
// writing goroutine blocks on done until the last byte of data has been handed
// to the connection's buffer, so data is never copied into the scheduler.
type dataWrite struct {
	st   *stream
	data []byte
	fin  bool
	done chan error // buffered: exactly one result is delivered
}

// controlWrite is a queued control frame. written, if set, runs on the writer
// goroutine after the frame is in the write buffer (used for httptrace).
type controlWrite struct {
	f       Frame
	written func()
}

// writeItem is what the scheduler hands the writer next.
type writeItem struct {
	control *controlWrite
	data    *DataFrame
	st      *stream
	// completed is the dataWrite whose last bytes are in data; it is signalled
	// once the frame has been written.
	completed *dataWrite
}

// writeScheduler decides the order of outgoing frames:
//  1. urgent control frames (PING and PING replies), FIFO;
//  2. other control frames (SYN_STREAM, SYN_REPLY, RST_STREAM, SETTINGS,
//     WINDOW_UPDATE, GOAWAY, HEADERS), FIFO, so stream ids go out in order;
//  3. DATA from the highest-priority (lowest number) stream that has data and
//     send window, round-robin among streams of the same priority, one frame
//     of at most maxFrame bytes per turn.
//
// It is a plain data structure guarded by the session mutex; the writer
// goroutine calls next. Window accounting happens in next so that choosing a
// frame and charging the windows are one step.
type writeScheduler struct {
	urgent  []*controlWrite
	control []*controlWrite
	levels  [8][]*stream
}

func (ws *writeScheduler) pushUrgent(f Frame) { ws.urgent = append(ws.urgent, &controlWrite{f: f}) }

func (ws *writeScheduler) pushControl(f Frame, written func()) {
	ws.control = append(ws.control, &controlWrite{f: f, written: written})
}

func (ws *writeScheduler) controlLen() int { return len(ws.urgent) + len(ws.control) }

// pushData queues dw behind any earlier writes of the same stream.
func (ws *writeScheduler) pushData(dw *dataWrite) {
	st := dw.st
	st.pending = append(st.pending, dw)
	if !st.queued {
		st.queued = true
		p := st.priority & 7
		ws.levels[p] = append(ws.levels[p], st)
	}
}

// removeStream drops st's pending writes (returned so the caller can fail
// them) and takes it out of the round-robin.
func (ws *writeScheduler) removeStream(st *stream) []*dataWrite {
	pending := st.pending
	st.pending = nil
	if st.queued {
		st.queued = false
		q := ws.levels[st.priority&7]
		for i, s := range q {
			if s == st {
				ws.levels[st.priority&7] = append(q[:i:i], q[i+1:]...)
				break
			}
		}
	}
	return pending
}

// dropData removes every pending DATA write (used when the session dies).
func (ws *writeScheduler) dropData() []*dataWrite {
	var all []*dataWrite
	for p := range ws.levels {
		for _, st := range ws.levels[p] {
			all = append(all, st.pending...)
			st.pending = nil
			st.queued = false
		}
		ws.levels[p] = nil
	}
	return all
}

// next pops the next frame to write. sessionWindow is nil when the session
// has no session-level flow control (spdy/3).
func (ws *writeScheduler) next(sessionWindow *outflow, maxFrame int, controlOnly bool) (writeItem, bool) {
	if len(ws.urgent) > 0 {
		c := ws.urgent[0]
		ws.urgent[0] = nil
		ws.urgent = ws.urgent[1:]
		return writeItem{control: c}, true
	}
	if len(ws.control) > 0 {
		c := ws.control[0]
		ws.control[0] = nil
		ws.control = ws.control[1:]
		return writeItem{control: c}, true
	}
	if controlOnly {
		return writeItem{}, false
	}
	for p := range ws.levels {
		q := ws.levels[p]
		for i, st := range q {
			dw := st.pending[0]
			n := len(dw.data)
			if n > maxFrame {
				n = maxFrame
			}
			if n > 0 {
				avail := st.send.avail
				if sessionWindow != nil && sessionWindow.avail < avail {
					avail = sessionWindow.avail
				}
				if avail <= 0 {
					continue // blocked by flow control; let others go
				}
				if int64(n) > avail {
					n = int(avail)
				}
			}
			chunk := dw.data[:n:n]
			dw.data = dw.data[n:]
			st.send.take(int64(n))
			if sessionWindow != nil {
				sessionWindow.take(int64(n))
			}
			item := writeItem{st: st}
			var flags uint8
			if len(dw.data) == 0 {
				st.pending[0] = nil
				st.pending = st.pending[1:]
				item.completed = dw
				if dw.fin {
					flags = FlagFin
				}
			}
			item.data = &DataFrame{Stream: st.id, Flags: flags, Data: chunk}
			// Round-robin: the stream goes to the back of its level.
			rest := append(q[:i:i], q[i+1:]...)
			if len(st.pending) > 0 {
				rest = append(rest, st)
			} else {
				st.queued = false
			}
			ws.levels[p] = rest
			return item, true
		}
	}
	return writeItem{}, false
}
