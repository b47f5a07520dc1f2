package spdy

import (
	"fmt"
	"strings"
	"testing"
)

func schedStream(id uint32, pri uint8, window int64) *stream {
	return &stream{id: id, priority: pri, send: outflow{avail: window}}
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
