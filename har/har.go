// Package har owns spdylab's HAR 1.2 documents
// (http://www.softwareishard.com/blog/har-12-spec/): the types the loader
// and the browser client write, building entries from an exchange's
// events, checking a document against the spec, summing its phases, the
// one spelling of each protocol in httpVersion, and reading the HARs that
// other tools record (Recording) for `page import`.
//
// It imports only the standard library and probe (for the lab's protocol
// names and phase totals), so that any tool can read and write the HARs
// the lab stores.
package har

import (
	"math"
	"time"
)

// Only the parts a page load produces are modelled; fields the spec marks
// optional and that spdylab has nothing to say about are omitted. Custom
// fields start with an underscore, as the spec requires. The JSON names
// are those of every HAR the lab has stored: changing one makes old
// studies unreadable.

// Document is a whole HAR document.
type Document struct {
	Log Log `json:"log"`
}

// Log is the "log" object.
type Log struct {
	Version string   `json:"version"`
	Creator Creator  `json:"creator"`
	Browser *Creator `json:"browser,omitempty"`
	Pages   []Page   `json:"pages,omitempty"`
	Entries []Entry  `json:"entries"`
	Comment string   `json:"comment,omitempty"`
}

// Version is the HAR version spdylab writes.
const Version = "1.2"

// Creator names the program that wrote the log.
type Creator struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// SpdylabVersion is spdylab's version in the HARs it writes.
const SpdylabVersion = "0.1"

// NewLog starts a log spdylab writes, with the client that loaded the
// page as its browser.
func NewLog(browser string, browserVersion string) Log {
	return Log{
		Version: Version,
		Creator: Creator{Name: "spdylab", Version: SpdylabVersion},
		Browser: &Creator{Name: browser, Version: browserVersion},
		Entries: []Entry{},
	}
}

// Page is one page (spdylab writes exactly one per load).
type Page struct {
	StartedDateTime string      `json:"startedDateTime"`
	ID              string      `json:"id"`
	Title           string      `json:"title"`
	PageTimings     PageTimings `json:"pageTimings"`
	Comment         string      `json:"comment,omitempty"`
}

// NewPage is the one page of a spdylab HAR, started at start.
func NewPage(start time.Time, title, comment string, timings PageTimings) Page {
	return Page{StartedDateTime: FormatTime(start), ID: PageID, Title: title, PageTimings: timings, Comment: comment}
}

// PageID is the id of the one page of a spdylab HAR; entries name it as
// their pageref.
const PageID = "page_1"

// PageTimings are milliseconds since StartedDateTime; -1 = not reached.
// The underscore fields are a real browser's paint metrics, absent when
// not measured: first and largest contentful paint, the largest
// contentful paint's resource (an image's URL; absent for text) and the
// Speed Index.
type PageTimings struct {
	OnContentLoad          float64  `json:"onContentLoad"`
	OnLoad                 float64  `json:"onLoad"`
	FirstContentfulPaint   *float64 `json:"_firstContentfulPaint,omitempty"`
	LargestContentfulPaint *float64 `json:"_largestContentfulPaint,omitempty"`
	LCPURL                 string   `json:"_largestContentfulPaintUrl,omitempty"`
	SpeedIndex             *float64 `json:"_speedIndex,omitempty"`
}

// NotReached are the page timings of a load that did not finish.
var NotReached = PageTimings{OnContentLoad: -1, OnLoad: -1}

// Entry is one request/response exchange (or one used server push).
type Entry struct {
	Pageref         string   `json:"pageref,omitempty"`
	StartedDateTime string   `json:"startedDateTime"`
	Time            float64  `json:"time"`
	Request         Request  `json:"request"`
	Response        Response `json:"response"`
	Cache           struct{} `json:"cache"`
	Timings         Timings  `json:"timings"`
	ServerIPAddress string   `json:"serverIPAddress,omitempty"`
	Connection      string   `json:"connection,omitempty"`
	Comment         string   `json:"comment,omitempty"`

	Priority   *Priority `json:"_priority,omitempty"`   // spdylab writes the SPDY priority 0 (highest) .. 7
	Pushed     bool      `json:"_pushed,omitempty"`     // arrived by server push, no request sent
	Retries    int       `json:"_retries,omitempty"`    // sent again after the server did not process it (REFUSED_STREAM, GOAWAY)
	ResourceID *int      `json:"_resourceId,omitempty"` // page.Resource.ID; absent for references the manifest lacks
	Unlisted   bool      `json:"_unlisted,omitempty"`   // referenced by the page but not in its manifest
	Error      string    `json:"_error,omitempty"`      // why the exchange did not complete
}

// NotCompleted is an entry's _error when the load ended before it did.
const NotCompleted = "not completed when the load ended"

// Request is the request half of an entry.
type Request struct {
	Method      string      `json:"method"`
	URL         string      `json:"url"`
	HTTPVersion string      `json:"httpVersion"`
	Cookies     []Cookie    `json:"cookies"`
	Headers     []NameValue `json:"headers"`
	QueryString []NameValue `json:"queryString"`
	HeadersSize int64       `json:"headersSize"`
	BodySize    int64       `json:"bodySize"`
}

// Response is the response half of an entry.
type Response struct {
	Status      int         `json:"status"`
	StatusText  string      `json:"statusText"`
	HTTPVersion string      `json:"httpVersion"`
	Cookies     []Cookie    `json:"cookies"`
	Headers     []NameValue `json:"headers"`
	Content     Content     `json:"content"`
	RedirectURL string      `json:"redirectURL"`
	HeadersSize int64       `json:"headersSize"`
	BodySize    int64       `json:"bodySize"`
}

// Cookie is present only so that the cookies arrays have the right type.
type Cookie struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// NameValue is a header or query parameter.
type NameValue struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Content describes the response body.
type Content struct {
	Size     int64  `json:"size"`
	MimeType string `json:"mimeType"`
}

// Timings are milliseconds; -1 means the phase does not apply. As the
// spec requires, Connect includes SSL, and an entry's Time is the sum of all
// phases other than SSL.
type Timings struct {
	Blocked float64 `json:"blocked"`
	DNS     float64 `json:"dns"`
	Connect float64 `json:"connect"`
	Send    float64 `json:"send"`
	Wait    float64 `json:"wait"`
	Receive float64 `json:"receive"`
	SSL     float64 `json:"ssl"`
}

// NoSetup are timings before anything is known: the phases that may not
// apply are -1, the ones HAR requires 0.
var NoSetup = Timings{Blocked: -1, DNS: -1, Connect: -1, SSL: -1}

// Sum is the entry time the timings imply (SSL excluded because Connect
// contains it; -1 phases count as 0).
func (t Timings) Sum() float64 {
	s := 0.0
	for _, v := range []float64{t.Blocked, t.DNS, t.Connect, t.Send, t.Wait, t.Receive} {
		if v > 0 {
			s += v
		}
	}
	return s
}

// FormatTime formats t the way HAR wants ISO 8601 dates, with milliseconds.
func FormatTime(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z07:00")
}

// Ms converts a duration to HAR's milliseconds, to a microsecond.
func Ms(d time.Duration) float64 {
	return math.Round(float64(d)/float64(time.Microsecond)) / 1000
}
