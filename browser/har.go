package browser

import (
	"encoding/json"
	"math"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spdylab/spdylab/loader"
	"github.com/spdylab/spdylab/probe"
)

// harEntry is loader.HAREntry (spdylab's HAR fields, one owner) plus what
// only a real browser knows, in Chrome DevTools' own export names so HAR
// tools and `page import` read them as they read a DevTools HAR.
type harEntry struct {
	loader.HAREntry
	Initiator      json.RawMessage `json:"_initiator,omitempty"`      // CDP Network.Initiator as sent
	ResourceType   string          `json:"_resourceType,omitempty"`   // CDP ResourceType, lower case
	ChromePriority string          `json:"_chromePriority,omitempty"` // CDP ResourcePriority (final)
	Protocol       string          `json:"_protocol,omitempty"`       // ALPN as Chromium reports it
}

type harLog struct {
	Version string             `json:"version"`
	Creator loader.HARCreator  `json:"creator"`
	Browser *loader.HARCreator `json:"browser,omitempty"`
	Pages   []loader.HARPage   `json:"pages"`
	Entries []harEntry         `json:"entries"`
	Comment string             `json:"comment,omitempty"`
}

// chromePriorityToSPDY maps Chromium's request priorities to the SPDY
// priority it puts on the wire (net::ConvertRequestPriorityToSpdyPriority:
// HIGHEST 0, MEDIUM 1, LOW 2, LOWEST 3, IDLE 4), so `_priority` means the
// same in a browser HAR as in a loader HAR.
var chromePriorityToSPDY = map[string]int{"VeryHigh": 0, "High": 1, "Medium": 2, "Low": 3, "VeryLow": 4}

// httpVersion names a CDP protocol the way loader HARs do.
func httpVersion(proto string) string {
	switch strings.ToLower(proto) {
	case "http/1.1":
		return "HTTP/1.1"
	case "h2":
		return "HTTP/2.0"
	case "h3", "http/3":
		return "HTTP/3"
	case "":
		return "unknown"
	}
	return proto
}

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
func harTimings(x *exchange) loader.HARTimings {
	t := loader.HARTimings{Blocked: -1, DNS: -1, Connect: -1, SSL: -1}
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

func timeOf(t loader.HARTimings) float64 {
	s := 0.0
	for _, v := range []float64{t.Blocked, t.DNS, t.Connect, t.Send, t.Wait, t.Receive} {
		if v > 0 {
			s += v
		}
	}
	return math.Round(s*1000) / 1000
}

// headerList turns a CDP header map into sorted HAR name/values and their
// size as "name: value\r\n" lines (the loader's raw header measure).
func headerList(h map[string]string) ([]loader.HARNameValue, int64) {
	out := []loader.HARNameValue{}
	var size int64
	for k, v := range h {
		// CDP joins repeated headers with "\n"; HAR lists them apart.
		for _, one := range strings.Split(v, "\n") {
			out = append(out, loader.HARNameValue{Name: k, Value: one})
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

func queryString(raw string) []loader.HARNameValue {
	out := []loader.HARNameValue{}
	u, err := url.Parse(raw)
	if err != nil {
		return out
	}
	for k, vs := range u.Query() {
		for _, v := range vs {
			out = append(out, loader.HARNameValue{Name: k, Value: v})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// harEntryOf builds one HAR entry. reqHdr/respHdr are the raw header sizes
// it counted (for Result.HeaderBytes*).
func harEntryOf(x *exchange, resID *int, wall0, start0 float64) (e harEntry, reqHdr, respHdr int64) {
	hdrs := x.reqHeaders
	if hdrs == nil {
		hdrs = x.req.Headers
	}
	reqList, reqSize := headerList(hdrs)
	e.Pageref = "page_1"
	wall := x.wall
	if wall == 0 {
		wall = wall0 + (x.start - start0)
	}
	e.StartedDateTime = harTimeOf(wall)
	e.Timings = harTimings(x)
	e.Time = timeOf(e.Timings)
	e.Request = loader.HARRequest{Method: x.req.Method, URL: x.req.URL, Cookies: []loader.HARCookie{},
		Headers: reqList, QueryString: queryString(x.req.URL), HeadersSize: reqSize, BodySize: 0}
	e.Response = loader.HARResponse{Cookies: []loader.HARCookie{}, Headers: []loader.HARNameValue{},
		Content: loader.HARContent{Size: x.dataBytes, MimeType: "x-unknown"}, HeadersSize: -1, BodySize: -1}
	e.Initiator = x.initiator
	e.ResourceType = strings.ToLower(x.typ)
	e.ChromePriority = x.priority
	if p, ok := chromePriorityToSPDY[x.priority]; ok {
		e.Priority = loader.SPDYPriority(p)
	}
	e.ResourceID = resID
	e.Unlisted = resID == nil
	e.Request.HTTPVersion = "unknown"
	if r := x.resp; r != nil {
		e.Protocol = r.Protocol
		e.Request.HTTPVersion = httpVersion(r.Protocol)
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
		e.Response.HTTPVersion = "unknown"
	}
	if x.failed != "" {
		e.Error = x.failed
	} else if !x.finished {
		e.Error = "not completed when the load ended"
	}
	return e, reqSize, respHdr
}

func harTimeOf(sec float64) string {
	return time.UnixMicro(int64(math.Round(sec * 1e6))).UTC().Format("2006-01-02T15:04:05.000Z07:00")
}

// addPhases sums the HAR phases into Result.Phases (ssl apart, as the
// loader does: connect includes it).
func addPhases(p *probe.Phases, t loader.HARTimings) {
	pos := func(v float64) float64 { return math.Max(0, v) }
	p.Blocked += pos(t.Blocked)
	p.DNS += pos(t.DNS)
	p.Connect += pos(t.Connect)
	p.SSL += pos(t.SSL)
	p.Send += pos(t.Send)
	p.Wait += pos(t.Wait)
	p.Receive += pos(t.Receive)
}
