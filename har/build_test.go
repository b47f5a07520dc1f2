package har

import (
	"encoding/json"
	"errors"
	"net/url"
	"testing"
	"time"
)

// exchangeAt is an exchange whose events are the given offsets (ms) from a
// fixed start; a negative offset did not happen.
func exchangeAt(queued, sendStart, sendEnd, firstByte, end float64) Exchange {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(ms float64) time.Time {
		if ms < 0 {
			return time.Time{}
		}
		return t0.Add(time.Duration(ms * float64(time.Millisecond)))
	}
	u, _ := url.Parse("https://s1.spdylab.test/a.css?v=2&b=1")
	return Exchange{URL: u, Protocol: "h2", Queued: at(queued), SendStart: at(sendStart), SendEnd: at(sendEnd),
		FirstByte: at(firstByte), End: at(end), Status: 200, StatusText: "OK", Done: true}
}

// Blocked absorbs what the named phases do not cover, so that an entry's
// time is end - startedDateTime, and the result is a valid HAR.
func TestNewEntryTimings(t *testing.T) {
	x := exchangeAt(0, 30, 31, 50, 60)
	x.Setup = &Setup{DNS: 5 * time.Millisecond, Connected: true, Connect: 20 * time.Millisecond, SSL: 12 * time.Millisecond}
	e := NewEntry(x)
	want := Timings{Blocked: 5, DNS: 5, Connect: 20, SSL: 12, Send: 1, Wait: 19, Receive: 10}
	if e.Timings != want || e.Time != 60 {
		t.Errorf("timings %+v time %v, want %+v time 60", e.Timings, e.Time, want)
	}
	if e.Request.HTTPVersion != HTTP2 || e.Request.HeadersSize != -1 || len(e.Request.QueryString) != 2 || !e.Unlisted {
		t.Errorf("request %+v unlisted %v", e.Request, e.Unlisted)
	}
	b, _ := json.Marshal(Document{Log: Log{Version: Version, Creator: Creator{Name: "t", Version: "1"}, Entries: []Entry{e}}})
	if err := Validate(b); err != nil {
		t.Errorf("entry does not validate: %v", err)
	}
}

// A reused connection carries no set-up phases; a push has nothing
// blocked and no request head; a failed exchange waits until it ends.
func TestNewEntryWithoutPhases(t *testing.T) {
	reused := NewEntry(exchangeAt(0, 10, 11, 20, 25))
	if tm := reused.Timings; tm.DNS != -1 || tm.Connect != -1 || tm.SSL != -1 || tm.Blocked != 10 {
		t.Errorf("reused connection: %+v", tm)
	}
	x := exchangeAt(0, 0, 0, 0, 4)
	x.Pushed = true
	x.RequestHeaders, x.RequestHeaderSize = []NameValue{}, 10
	pushed := NewEntry(x)
	if pushed.Timings.Blocked != -1 || pushed.Request.HeadersSize != -1 || pushed.Time != 4 {
		t.Errorf("push: %+v, request headers size %d", pushed.Timings, pushed.Request.HeadersSize)
	}
	x = exchangeAt(0, 10, 11, -1, 40)
	x.Done, x.Err = false, errors.New("reset")
	failed := NewEntry(x)
	if failed.Timings.Wait != 29 || failed.Error != "reset" {
		t.Errorf("failed: %+v, error %q", failed.Timings, failed.Error)
	}
	x.Err = nil
	if e := NewEntry(x); e.Error != NotCompleted {
		t.Errorf("unfinished: error %q, want %q", e.Error, NotCompleted)
	}
}

// One spelling per protocol, whichever client reports it: the lab's names
// and Chromium's CDP protocols agree, h3 included.
func TestHTTPVersionSpellsEachProtocolOnce(t *testing.T) {
	cases := map[string]string{
		"https": HTTP11, "http/1.1": HTTP11, "h2": HTTP2, "http/2.0": HTTP2,
		"h3": "h3", "HTTP/3": "h3", "http/3": "h3", "spdy/3.1": "spdy/3.1",
		"spdy/3.1+sctp": "spdy/3.1+sctp", "": Unknown, "h3-29": "h3-29",
	}
	for in, want := range cases {
		if got := HTTPVersion(in); got != want {
			t.Errorf("HTTPVersion(%q) = %q, want %q", in, got, want)
		}
	}
}
