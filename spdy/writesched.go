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
//  3. DATA by the policy (Config.Scheduler), one frame of at most maxFrame
//     bytes at a time, from a stream that has data and send window (a
//     stream blocked by flow control lets the next one go):
//     SchedulePriority: the highest-priority (lowest number) stream,
//     round-robin among streams of the same priority;
//     ScheduleRoundRobin: every stream takes turns, priority ignored;
//     ScheduleFIFO: the stream opened first, until it has nothing left;
//     SchedulePriorityFIFO: the highest priority, within it the stream
//     opened first, until it has nothing left.
//
// It is a plain data structure guarded by the session mutex; the writer
// goroutine calls next. Window accounting happens in next so that choosing a
// frame and charging the windows are one step.
type writeScheduler struct {
	policy  Scheduler
	ramp    bool // Config.RampFrames: a stream's frames grow from one segment
	urgent  []*controlWrite
	control []*controlWrite
	// levels holds the streams with pending data: one queue per priority
	// under SchedulePriority, all in levels[0] otherwise (in open order
	// under ScheduleFIFO).
	levels [8][]*stream
}

// level is the queue st waits in.
func (ws *writeScheduler) level(st *stream) int {
	if ws.policy == SchedulePriority || ws.policy == SchedulePriorityFIFO {
		return int(st.priority & 7)
	}
	return 0
}

// enqueue puts st into its queue: at the back, or under the FIFO policies
// before every stream opened after it.
func (ws *writeScheduler) enqueue(st *stream) {
	p := ws.level(st)
	q := ws.levels[p]
	i := len(q)
	if ws.inOpenOrder() {
		for i > 0 && q[i-1].opened > st.opened {
			i--
		}
	}
	q = append(q, nil)
	copy(q[i+1:], q[i:])
	q[i] = st
	ws.levels[p] = q
}

// inOpenOrder tells whether a queue keeps its streams in open order, each
// to its end (the FIFO policies), rather than taking turns.
func (ws *writeScheduler) inOpenOrder() bool {
	return ws.policy == ScheduleFIFO || ws.policy == SchedulePriorityFIFO
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
		ws.enqueue(st)
	}
}

// removeStream drops st's pending writes (returned so the caller can fail
// them) and takes it out of the round-robin.
func (ws *writeScheduler) removeStream(st *stream) []*dataWrite {
	pending := st.pending
	st.pending = nil
	if st.queued {
		st.queued = false
		p := ws.level(st)
		q := ws.levels[p]
		for i, s := range q {
			if s == st {
				ws.levels[p] = append(q[:i:i], q[i+1:]...)
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
			n := min(len(dw.data), ws.frameLimit(st, maxFrame))
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
			st.dataSent += int64(n)
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
			ws.levels[p] = ws.afterTurn(q, i)
			return item, true
		}
	}
	return writeItem{}, false
}

// frameLimit is the largest DATA payload st may send next: maxFrame, or
// under ramp RampFirstFrame at first and then what the stream has sent
// so far (each frame doubles the total), up to maxFrame.
func (ws *writeScheduler) frameLimit(st *stream, maxFrame int) int {
	if !ws.ramp {
		return maxFrame
	}
	return int(min(max(st.dataSent, RampFirstFrame), int64(maxFrame)))
}

// afterTurn is queue q after its stream i sent a frame: round-robin sends
// the stream to the back, FIFO keeps it in place; a stream with nothing
// left leaves the queue.
func (ws *writeScheduler) afterTurn(q []*stream, i int) []*stream {
	st := q[i]
	if len(st.pending) == 0 {
		st.queued = false
		return append(q[:i:i], q[i+1:]...)
	}
	if ws.inOpenOrder() {
		return q
	}
	return append(append(q[:i:i], q[i+1:]...), st)
}
