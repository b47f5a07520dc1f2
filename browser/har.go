package browser

import (
	"encoding/json"
	"math"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spdylab/spdylab/har"
)

// harEntry is har.Entry (spdylab's HAR fields, one owner) plus what
// only a real browser knows, in Chrome DevTools' own export names so HAR
// tools and `page import` read them as they read a DevTools HAR.
type harEntry struct {
	har.Entry
	Initiator      json.RawMessage `json:"_initiator,omitempty"`      // CDP Network.Initiator as sent
	ResourceType   string          `json:"_resourceType,omitempty"`   // CDP ResourceType, lower case
	ChromePriority string          `json:"_chromePriority,omitempty"` // CDP ResourcePriority (final)
	Protocol       string          `json:"_protocol,omitempty"`       // ALPN as Chromium reports it
}

type harLog struct {
	Version string       `json:"version"`
	Creator har.Creator  `json:"creator"`
	Browser *har.Creator `json:"browser,omitempty"`
	Pages   []har.Page   `json:"pages"`
	Entries []harEntry   `json:"entries"`
	Comment string       `json:"comment,omitempty"`
}

// newHARLog is har.NewLog with the browser's entries.
func newHARLog(browserVersion string, page har.Page, entries []harEntry) harLog {
	l := har.NewLog("Chromium (headless, DevTools)", browserVersion)
	return harLog{Version: l.Version, Creator: l.Creator, Browser: l.Browser, Pages: []har.Page{page}, Entries: entries}
}

// chromePriorityToSPDY maps Chromium's request priorities to the SPDY
// priority it puts on the wire (net::ConvertRequestPriorityToSpdyPriority:
// HIGHEST 0, MEDIUM 1, LOW 2, LOWEST 3, IDLE 4), so `_priority` means the
// same in a browser HAR as in a loader HAR.
var chromePriorityToSPDY = map[string]int{"VeryHigh": 0, "High": 1, "Medium": 2, "Low": 3, "VeryLow": 4}

// resKey identifies a URL by host name and path+query, ignoring the port
// (loopback benches serve the page's hosts on ephemeral ports).
func resKey(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	return u.Hostname() + u.RequestURI()
}

// isFavicon tells the browser's own favicon request from page resources.
func isFavicon(x *exchange, listed map[string]int) bool {
	u, err := url.Parse(x.req.URL)
	if err != nil || u.Path != "/favicon.ico" {
		return false
	}
	_, inPage := listed[resKey(x.req.URL)]
	return !inPage
}

// ms converts seconds to milliseconds rounded to a microsecond.
func msOf(sec float64) float64 { return math.Round(sec*1e6) / 1000 }

func span(a, b float64) float64 {
	if a < 0 || b < 0 || b < a {
		return -1
	}
	return math.Round((b-a)*1000) / 1000
}

// harTimings converts an exchange's CDP timing to HAR phases.
func harTimings(x *exchange) har.Timings {
	t := har.NoSetup
	if x.resp == nil || x.resp.Timing == nil {
		// No timing (failed before a response, or served from memory):
		// the whole time counts as waiting.
		t.Wait = math.Max(0, msOf(x.end-x.start))
		return t
	}
	tm := x.resp.Timing
	t.DNS = span(tm.DNSStart, tm.DNSEnd)
	t.Connect = span(tm.ConnectStart, tm.ConnectEnd)
	t.SSL = span(tm.SSLStart, tm.SSLEnd)
	if t.SSL > t.Connect {
		t.SSL = t.Connect
	}
	// Blocked: from the request being issued to the first network phase.
	first := tm.SendStart
	for _, v := range []float64{tm.ConnectStart, tm.DNSStart} {
		if v >= 0 {
			first = v
		}
	}
	t.Blocked = math.Max(0, msOf(tm.RequestTime-x.start)+first)
	t.Blocked = math.Round(t.Blocked*1000) / 1000
	t.Send = math.Max(0, span(tm.SendStart, tm.SendEnd))
	t.Wait = math.Max(0, span(tm.SendEnd, tm.ReceiveHeadersEnd))
	end := x.end
	if end == 0 {
		end = x.respAt
	}
	t.Receive = math.Max(0, msOf(end-tm.RequestTime)-tm.ReceiveHeadersEnd)
	t.Receive = math.Round(t.Receive*1000) / 1000
	return t
}

func timeOf(t har.Timings) float64 { return math.Round(t.Sum()*1000) / 1000 }

// headerList turns a CDP header map into sorted HAR name/values and their
// size as "name: value\r\n" lines (the loader's raw header measure).
func headerList(h map[string]string) ([]har.NameValue, int64) {
	out := []har.NameValue{}
	var size int64
	for k, v := range h {
		// CDP joins repeated headers with "\n"; HAR lists them apart.
		for _, one := range strings.Split(v, "\n") {
			out = append(out, har.NameValue{Name: k, Value: one})
			size += int64(len(k) + 2 + len(one) + 2)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Name != out[j].Name {
			return out[i].Name < out[j].Name
		}
		return out[i].Value < out[j].Value
	})
	return out, size
}

func queryString(raw string) []har.NameValue {
	u, err := url.Parse(raw)
	if err != nil {
		return []har.NameValue{}
	}
	return har.QueryString(u)
}

// harEntryOf builds one HAR entry. reqHdr/respHdr are the raw header sizes
// it counted (for Result.HeaderBytes*).
func harEntryOf(x *exchange, resID *int, wall0, start0 float64) (e harEntry, reqHdr, respHdr int64) {
	hdrs := x.reqHeaders
	if hdrs == nil {
		hdrs = x.req.Headers
	}
	reqList, reqSize := headerList(hdrs)
	e.Pageref = har.PageID
	wall := x.wall
	if wall == 0 {
		wall = wall0 + (x.start - start0)
	}
	e.StartedDateTime = har.FormatTime(wallTime(wall))
	e.Timings = harTimings(x)
	e.Time = timeOf(e.Timings)
	e.Request = har.Request{Method: x.req.Method, URL: x.req.URL, Cookies: []har.Cookie{},
		Headers: reqList, QueryString: queryString(x.req.URL), HeadersSize: reqSize, BodySize: 0}
	e.Response = har.Response{Cookies: []har.Cookie{}, Headers: []har.NameValue{},
		Content: har.Content{Size: x.dataBytes, MimeType: "x-unknown"}, HeadersSize: -1, BodySize: -1}
	e.Initiator = x.initiator
	e.ResourceType = strings.ToLower(x.typ)
	e.ChromePriority = x.priority
	if p, ok := chromePriorityToSPDY[x.priority]; ok {
		e.Priority = har.SPDYPriority(p)
	}
	e.ResourceID = resID
	e.Unlisted = resID == nil
	e.Request.HTTPVersion = har.Unknown
	if r := x.resp; r != nil {
		e.Protocol = r.Protocol
		e.Request.HTTPVersion = har.HTTPVersion(r.Protocol)
		e.Response.HTTPVersion = e.Request.HTTPVersion
		e.Response.Status = r.Status
		e.Response.StatusText = r.StatusText
		e.Response.Headers, respHdr = headerList(r.Headers)
		if x.respText != "" {
			respHdr = int64(len(x.respText)) // HTTP/1.x: the exact head
		}
		e.Response.HeadersSize = respHdr
		if r.MimeType != "" {
			e.Response.Content.MimeType = r.MimeType
		}
		if x.finished && x.failed == "" && x.encoded > 0 {
			e.Response.BodySize = max(0, int64(x.encoded-r.EncodedDataLength))
		}
		if x.redirected {
			e.Response.RedirectURL = r.Headers["location"]
			if e.Response.RedirectURL == "" {
				e.Response.RedirectURL = r.Headers["Location"]
			}
		}
		if r.ConnectionID > 0 {
			e.Connection = strconv.FormatInt(int64(r.ConnectionID), 10)
		}
		e.ServerIPAddress = strings.Trim(r.RemoteIPAddress, "[]")
	} else {
		e.Response.HTTPVersion = har.Unknown
	}
	if x.failed != "" {
		e.Error = x.failed
	} else if !x.finished {
		e.Error = har.NotCompleted
	}
	return e, reqSize, respHdr
}

// wallTime is a CDP wall time (seconds since the epoch) to a microsecond.
func wallTime(sec float64) time.Time { return time.UnixMicro(int64(math.Round(sec * 1e6))) }
