package har

import (
	"net/http"
	"net/url"
	"sort"
	"time"
)

// Exchange is what a client saw of one request and its response: the
// events and facts an entry is built from. Times that did not happen are
// zero.
type Exchange struct {
	URL      *url.URL
	Protocol string    // lab name or ALPN; HTTPVersion spells it
	Queued   time.Time // the client decided to request it (startedDateTime)
	// Setup is the connection set-up this request waited for and carries
	// in its timings; nil when it went out on a connection set up before.
	Setup     *Setup
	SendStart time.Time
	SendEnd   time.Time
	FirstByte time.Time
	End       time.Time // zero while still open: the entry ends now

	RequestHeaders     []NameValue // nil = not known (headersSize -1)
	RequestHeaderSize  int64
	Status             int
	StatusText         string
	ResponseHeaders    []NameValue // nil = not known (headersSize -1)
	ResponseHeaderSize int64
	ContentBytes       int64 // decoded body bytes
	WireBodyBytes      int64 // body bytes as transferred (before Content-Encoding is undone)
	MimeType           string

	Pushed     bool // arrived by server push: no request was sent
	Retries    int
	Priority   int  // SPDY priority 0 (highest) .. 7
	ResourceID *int // nil: not in the page's manifest
	Connection string
	ServerIP   string
	Done       bool
	Err        error
}

// Setup is the connection set-up a request carries.
type Setup struct {
	DNS       time.Duration // < 0: no lookup
	Connected bool          // the connection was set up: Connect and SSL are known
	Connect   time.Duration // TCP (or QUIC) and TLS
	SSL       time.Duration // < 0: no TLS (plaintext), ssl -1
}

// NewEntry turns an exchange into its HAR entry, on PageID.
func NewEntry(x Exchange) Entry {
	tm := x.timings()
	version := HTTPVersion(x.Protocol)
	e := Entry{
		Pageref:         PageID,
		StartedDateTime: FormatTime(x.Queued),
		Time:            tm.Sum(),
		Request: Request{
			Method:      http.MethodGet,
			URL:         x.URL.String(),
			HTTPVersion: version,
			Cookies:     []Cookie{},
			Headers:     known(x.RequestHeaders),
			QueryString: QueryString(x.URL),
			HeadersSize: sizeIfKnown(x.RequestHeaders, x.RequestHeaderSize),
		},
		Response: Response{
			Status:      x.Status,
			StatusText:  x.StatusText,
			HTTPVersion: version,
			Cookies:     []Cookie{},
			Headers:     known(x.ResponseHeaders),
			Content:     Content{Size: x.ContentBytes, MimeType: x.MimeType},
			HeadersSize: sizeIfKnown(x.ResponseHeaders, x.ResponseHeaderSize),
			BodySize:    x.WireBodyBytes,
		},
		Timings:         tm,
		Pushed:          x.Pushed,
		Retries:         x.Retries,
		Priority:        SPDYPriority(x.Priority),
		ResourceID:      x.ResourceID,
		Unlisted:        x.ResourceID == nil,
		Connection:      x.Connection,
		ServerIPAddress: x.ServerIP,
	}
	if x.Pushed {
		e.Request.HeadersSize = -1 // no request was sent
	}
	if x.Err != nil {
		e.Error = x.Err.Error()
	} else if !x.Done {
		e.Error = NotCompleted
	}
	return e
}

// timings are the exchange's HAR phases. Phases that did not happen are
// -1 (dns, connect, ssl, blocked) or 0 (send, wait, receive, which HAR
// requires); blocked absorbs whatever time the named phases do not cover,
// so that the entry's time is exactly end - startedDateTime.
func (x Exchange) timings() Timings {
	end := x.End
	if end.IsZero() {
		end = time.Now()
	}
	tm := NoSetup
	span := func(a, b time.Time) float64 {
		if a.IsZero() || b.IsZero() || b.Before(a) {
			return 0
		}
		return Ms(b.Sub(a))
	}
	if s := x.Setup; s != nil {
		if s.DNS >= 0 {
			tm.DNS = Ms(s.DNS)
		}
		if s.Connected {
			tm.Connect = Ms(s.Connect)
			if s.SSL >= 0 {
				tm.SSL = Ms(s.SSL)
			}
		}
	}
	sendEnd := x.SendEnd
	if sendEnd.IsZero() {
		sendEnd = x.FirstByte
	}
	tm.Send = span(x.SendStart, sendEnd)
	tm.Wait = span(sendEnd, x.FirstByte)
	tm.Receive = span(x.FirstByte, end)
	if !x.Done && x.FirstByte.IsZero() {
		// Failed before the response started: the time since the request
		// went out is spent waiting.
		tm.Wait = span(sendEnd, end)
	}
	total := Ms(end.Sub(x.Queued))
	known := tm.Send + tm.Wait + tm.Receive
	for _, v := range []float64{tm.DNS, tm.Connect} {
		if v > 0 {
			known += v
		}
	}
	tm.Blocked = max(total-known, 0)
	if x.Pushed {
		tm.Blocked = -1 // nothing waited to be sent
	}
	return tm
}

func known(h []NameValue) []NameValue {
	if h == nil {
		return []NameValue{}
	}
	return h
}

func sizeIfKnown(h []NameValue, size int64) int64 {
	if h == nil {
		return -1
	}
	return size
}

// QueryString lists u's query parameters by name.
func QueryString(u *url.URL) []NameValue {
	out := []NameValue{}
	for k, vs := range u.Query() {
		for _, v := range vs {
			out = append(out, NameValue{Name: k, Value: v})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Headers lists h in a stable order (by name, each name's values as sent).
func Headers(h http.Header) []NameValue {
	out := []NameValue{}
	for k, vs := range h {
		for _, v := range vs {
			out = append(out, NameValue{Name: k, Value: v})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
