package spdy

import (
	"fmt"
	"io"
	"strings"
	"testing"
)

// schedStream is a stream opened in the order of its id.
func schedStream(id uint32, pri uint8, window int64) *stream {
	return &stream{id: id, opened: uint64(id), priority: pri, send: outflow{avail: window}}
}

func queue(ws *writeScheduler, st *stream, n int, fin bool) *dataWrite {
	dw := &dataWrite{st: st, data: make([]byte, n), fin: fin, done: make(chan error, 1)}
	ws.pushData(dw)
	return dw
}

// drain pops everything sendable and renders it as "id:len[F]" items.
func drain(ws *writeScheduler, session *outflow, maxFrame int) string {
	var out []string
	for {
		item, ok := ws.next(session, maxFrame, false)
		if !ok {
			return strings.Join(out, " ")
		}
		if item.control != nil {
			out = append(out, item.control.f.Type().String())
			continue
		}
		s := fmt.Sprintf("%d:%d", item.data.Stream, len(item.data.Data))
		if item.data.Flags&FlagFin != 0 {
			s += "F"
		}
		out = append(out, s)
	}
}

func TestSchedulerPriorityAndRoundRobin(t *testing.T) {
	var ws writeScheduler
	low := schedStream(1, 7, 1<<20)
	midA := schedStream(3, 3, 1<<20)
	midB := schedStream(5, 3, 1<<20)
	high := schedStream(7, 0, 1<<20)
	queue(&ws, low, 20, true)
	queue(&ws, midA, 25, true)
	queue(&ws, midB, 15, true)
	queue(&ws, high, 12, true)
	ws.pushControl(&WindowUpdateFrame{Stream: 9, Delta: 1}, nil)
	ws.pushUrgent(&PingFrame{ID: 2})
	got := drain(&ws, nil, 10)
	want := "PING WINDOW_UPDATE 7:10 7:2F 3:10 5:10 3:10 5:5F 3:5F 1:10 1:10F"
	if got != want {
		t.Fatalf("order\n got %s\nwant %s", got, want)
	}
}

// Each policy's order of DATA frames: four streams opened as 1, 3, 5, 7
// with priorities 7, 3, 3, 0 queue their data in the order 1, 5, 7, 3.
func TestSchedulerPolicies(t *testing.T) {
	for _, tc := range []struct {
		policy Scheduler
		want   string
	}{
		// Highest priority first; 5 before 3 at priority 3 (queued first),
		// taking turns.
		{SchedulePriority, "7:10 7:2F 5:10 3:10 5:5F 3:10 3:5F 1:10 1:10F"},
		// Turns in the order the streams queued, priority ignored.
		{ScheduleRoundRobin, "1:10 5:10 7:10 3:10 1:10F 5:5F 7:2F 3:10 3:5F"},
		// Open order, each stream to its end.
		{ScheduleFIFO, "1:10 1:10F 3:10 3:10 3:5F 5:10 5:5F 7:10 7:2F"},
		// Highest priority first; at priority 3, 3 (opened first) to its
		// end before 5, though 5 queued first.
		{SchedulePriorityFIFO, "7:10 7:2F 3:10 3:10 3:5F 5:10 5:5F 1:10 1:10F"},
	} {
		t.Run(tc.policy.String(), func(t *testing.T) {
			ws := writeScheduler{policy: tc.policy}
			low, midA, midB, high := schedStream(1, 7, 1<<20), schedStream(3, 3, 1<<20), schedStream(5, 3, 1<<20), schedStream(7, 0, 1<<20)
			queue(&ws, low, 20, true)
			queue(&ws, midB, 15, true)
			queue(&ws, high, 12, true)
			queue(&ws, midA, 25, true)
			ws.pushControl(&WindowUpdateFrame{Stream: 9, Delta: 1}, nil)
			if got, want := drain(&ws, nil, 10), "WINDOW_UPDATE "+tc.want; got != want {
				t.Fatalf("order\n got %s\nwant %s", got, want)
			}
		})
	}
}

// FIFO: a stream blocked by its window lets the next one send, and a
// stream that runs dry and gets more data later takes its place in open
// order again, ahead of streams opened after it.
func TestSchedulerFIFOBlockedAndRequeued(t *testing.T) {
	ws := writeScheduler{policy: ScheduleFIFO}
	a := schedStream(1, 7, 15)
	b := schedStream(3, 0, 100)
	queue(&ws, a, 30, true)
	queue(&ws, b, 25, false)
	if got, want := drain(&ws, nil, 10), "1:10 1:5 3:10 3:10 3:5"; got != want {
		t.Fatalf("a blocked\n got %s\nwant %s", got, want)
	}
	a.send.avail = 100
	queue(&ws, b, 5, true) // b runs again, but a was opened first
	if got, want := drain(&ws, nil, 10), "1:10 1:5F 3:5F"; got != want {
		t.Fatalf("after a's window opened\n got %s\nwant %s", got, want)
	}
}

func TestParseScheduler(t *testing.T) {
	for _, s := range []Scheduler{SchedulePriority, ScheduleRoundRobin, ScheduleFIFO, SchedulePriorityFIFO} {
		if got, err := ParseScheduler(s.String()); err != nil || got != s {
			t.Errorf("ParseScheduler(%q) = %v, %v", s.String(), got, err)
		}
	}
	if _, err := ParseScheduler("lifo"); err == nil || !strings.Contains(err.Error(), "roundrobin") {
		t.Errorf("ParseScheduler(lifo) = %v, want an error naming the schedulers", err)
	}
	if _, err := newSession(nil, Config{Scheduler: 7}, false); err == nil || !strings.Contains(err.Error(), "Config.Scheduler") {
		t.Errorf("Config.Scheduler 7: %v", err)
	}
}

// On the wire: a server session whose four streams (priorities 7, 3, 3, 0)
// all have their responses queued when its writer starts sends their DATA
// frames in the policy's order, in every SPDY version.
func TestSessionSchedulerOnTheWire(t *testing.T) {
	for _, tc := range []struct {
		policy Scheduler
		want   string
	}{
		{SchedulePriority, "7:100 7:20F 5:100 3:100 5:50F 3:100 3:50F 1:100 1:100F"},
		{ScheduleRoundRobin, "1:100 5:100 7:100 3:100 1:100F 5:50F 7:20F 3:100 3:50F"},
		{ScheduleFIFO, "1:100 1:100F 3:100 3:100 3:50F 5:100 5:50F 7:100 7:20F"},
	} {
		t.Run(tc.policy.String(), func(t *testing.T) {
			allVersions(t, func(t *testing.T, version string) {
				if got := dataOrderOnWire(t, version, tc.policy); got != tc.want {
					t.Fatalf("DATA frames on the wire\n got %s\nwant %s", got, tc.want)
				}
			})
		})
	}
}

// dataOrderOnWire opens streams 1, 3, 5 and 7 on a server session with the
// given scheduler, queues 200, 250, 150 and 120 bytes of response on them
// (in the order 1, 5, 7, 3) before the session starts, and reads the DATA
// frames the peer receives as "id:len[F]".
func dataOrderOnWire(t *testing.T, version string, policy Scheduler) string {
	c, srvConn := tcpPipe(t)
	defer c.Close()
	s, err := newSession(srvConn, Config{Version: version, Scheduler: policy, MaxFrameSize: 100}, false)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	s.mu.Lock()
	streams := map[uint32]*stream{}
	for _, x := range []struct {
		id  uint32
		pri uint8
	}{{1, 7}, {3, 3}, {5, 3}, {7, 0}} {
		streams[x.id] = s.newStreamLocked(x.id, x.pri)
	}
	for _, x := range []struct {
		id uint32
		n  int
	}{{1, 200}, {5, 150}, {7, 120}, {3, 250}} {
		s.sched.pushData(&dataWrite{st: streams[x.id], data: make([]byte, x.n), fin: true, done: make(chan error, 1)})
	}
	s.mu.Unlock()
	s.start(nil)

	wire := uint16(Version)
	if version == ProtoSPDY2 {
		wire = Version2
	}
	fr := NewFramerVersion(wire, io.Discard, c, 0)
	var got []string
	for fins := 0; fins < len(streams); {
		f, err := fr.ReadFrame()
		if err != nil {
			t.Fatalf("after %v: %v", got, err)
		}
		d, ok := f.(*DataFrame)
		if !ok {
			continue // SETTINGS, the session's WINDOW_UPDATE
		}
		item := fmt.Sprintf("%d:%d", d.Stream, len(d.Data))
		if d.Flags&FlagFin != 0 {
			item += "F"
			fins++
		}
		got = append(got, item)
	}
	return strings.Join(got, " ")
}

func TestSchedulerFlowControl(t *testing.T) {
	var ws writeScheduler
	a := schedStream(1, 3, 15) // stream window 15
	b := schedStream(3, 3, 100)
	queue(&ws, a, 40, true)
	queue(&ws, b, 40, true)
	session := outflow{avail: 50}
	// a: 10 then 5 (its window), b: 10,10,10 limited by the session's 50.
	got := drain(&ws, &session, 10)
	if want := "1:10 3:10 1:5 3:10 3:10 3:5"; got != want {
		t.Fatalf("with windows\n got %s\nwant %s", got, want)
	}
	if session.avail != 0 || a.send.avail != 0 || b.send.avail != 65 {
		t.Fatalf("windows: session %d a %d b %d", session.avail, a.send.avail, b.send.avail)
	}
	// Opening only the session window lets b finish; a is still blocked.
	session.avail = 100
	if got, want := drain(&ws, &session, 10), "3:5F"; got != want {
		t.Fatalf("after session update got %s want %s", got, want)
	}
	a.send.avail = -5 // e.g. after a SETTINGS reduction: still blocked
	if got := drain(&ws, &session, 10); got != "" {
		t.Fatalf("negative window sent %s", got)
	}
	a.send.avail = 100
	if got, want := drain(&ws, &session, 10), "1:10 1:10 1:5F"; got != want {
		t.Fatalf("after stream update got %s want %s", got, want)
	}
}

func TestSchedulerEmptyFinNeedsNoWindow(t *testing.T) {
	var ws writeScheduler
	a := schedStream(1, 3, 0)
	queue(&ws, a, 0, true)
	session := outflow{avail: 0}
	if got, want := drain(&ws, &session, 10), "1:0F"; got != want {
		t.Fatalf("got %s want %s", got, want)
	}
}

func TestSchedulerRemoveStream(t *testing.T) {
	var ws writeScheduler
	a := schedStream(1, 3, 100)
	b := schedStream(3, 3, 100)
	dwA := queue(&ws, a, 30, true)
	queue(&ws, b, 5, true)
	if removed := ws.removeStream(a); len(removed) != 1 || removed[0] != dwA {
		t.Fatalf("removed %v", removed)
	}
	if got, want := drain(&ws, nil, 10), "3:5F"; got != want {
		t.Fatalf("got %s want %s", got, want)
	}
}

func TestSchedulerControlOnlyWhenDying(t *testing.T) {
	var ws writeScheduler
	queue(&ws, schedStream(1, 0, 100), 5, true)
	ws.pushControl(&GoAwayFrame{}, nil)
	if item, ok := ws.next(nil, 10, true); !ok || item.control == nil {
		t.Fatal("GOAWAY not returned")
	}
	if _, ok := ws.next(nil, 10, true); ok {
		t.Fatal("data returned in control-only mode")
	}
}

// RampFrames: a stream's first frame fits one segment and each next one
// is as large as the stream has sent so far, up to the maximum; without
// it every frame is the maximum. Two streams ramp each on its own.
func TestSchedulerRampFrames(t *testing.T) {
	for _, tc := range []struct {
		ramp bool
		want string
	}{
		{false, "1:16384 1:16384 1:7232F 3:3000F"},
		{true, "1:1200 1:1200 1:2400 1:4800 1:9600 1:16384 1:4416F 3:1200 3:1200 3:600F"},
	} {
		ws := writeScheduler{policy: ScheduleFIFO, ramp: tc.ramp}
		queue(&ws, schedStream(1, 0, 1<<20), 40000, true)
		queue(&ws, schedStream(3, 0, 1<<20), 3000, true)
		if got := drain(&ws, nil, DefaultMaxFrameSize); got != tc.want {
			t.Errorf("ramp %v\n got %s\nwant %s", tc.ramp, got, tc.want)
		}
	}
}
