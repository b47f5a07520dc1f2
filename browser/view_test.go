package browser

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// closedConn is a DevTools connection Chromium already closed: calls fail
// at once (attachChild's are ignored).
func closedConn() *cdpConn {
	c := newCDPConn(strings.NewReader(""), nopWriteCloser{}, nil)
	<-c.done
	return c
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Write(p []byte) (int, error) { return len(p), nil }
func (nopWriteCloser) Close() error                { return nil }

// Between a repeat view's two views the router moves to the measured
// view's session: the first view's targets (its page and what attached
// below it) can no longer reach it, not even by detaching, while the
// browser's own events and the new tab's do.
func TestViewRouterDropsTheFirstViewsEvents(t *testing.T) {
	conn := closedConn()
	first := &session{o: &Options{}, col: newCollector(), conn: conn, ctx: context.Background()}
	views := newViewRouter(first)
	attached := func(sid string) cdpEvent {
		p, _ := json.Marshal(map[string]any{"sessionId": sid, "targetInfo": map[string]any{}})
		return cdpEvent{Method: "Target.attachedToTarget", Params: p}
	}
	request := func(sid, id string) cdpEvent {
		p, _ := json.Marshal(map[string]any{"requestId": id, "request": map[string]any{"url": "https://s1.spdylab.test/" + id}, "timestamp": 1})
		return cdpEvent{Method: "Network.requestWillBeSent", SessionID: sid, Params: p}
	}
	views.onEvent(attached("frame1")) // a frame below the first page
	views.onEvent(request("page1", "a"))
	measured := &session{o: &Options{}, col: newCollector(), conn: conn, ctx: context.Background()}
	views.next(measured, "page1")
	detached, _ := json.Marshal(map[string]any{"sessionId": "page1"})
	views.onEvent(cdpEvent{Method: "Target.detachedFromTarget", Params: detached})
	views.onEvent(request("page1", "late"))
	views.onEvent(request("frame1", "late2"))
	views.onEvent(request("page2", "b"))
	if n := len(first.col.all); n != 1 {
		t.Errorf("the first view saw %d requests, want 1", n)
	}
	if c := measured.col; len(c.all) != 1 || c.all[0].id != "b" || c.crashed != "" {
		t.Errorf("the measured view saw %d requests (crashed %q), want only its own", len(c.all), c.crashed)
	}
}
