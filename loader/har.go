package loader

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/). Only the parts a
// page load produces are modelled; fields the spec marks optional and that
// spdylab has nothing to say about are omitted. Custom fields start with an
// underscore, as the spec requires.

// HAR is a whole HAR document.
type HAR struct {
	Log HARLog `json:"log"`
}

// HARLog is the "log" object.
type HARLog struct {
	Version string      `json:"version"`
	Creator HARCreator  `json:"creator"`
	Browser *HARCreator `json:"browser,omitempty"`
	Pages   []HARPage   `json:"pages,omitempty"`
	Entries []HAREntry  `json:"entries"`
	Comment string      `json:"comment,omitempty"`
}

// HARCreator names the program that wrote the log.
type HARCreator struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// HARPage is one page (spdylab writes exactly one per load).
type HARPage struct {
	StartedDateTime string         `json:"startedDateTime"`
	ID              string         `json:"id"`
	Title           string         `json:"title"`
	PageTimings     HARPageTimings `json:"pageTimings"`
	Comment         string         `json:"comment,omitempty"`
}

// HARPageTimings are milliseconds since StartedDateTime; -1 = not reached.
type HARPageTimings struct {
	OnContentLoad float64 `json:"onContentLoad"`
	OnLoad        float64 `json:"onLoad"`
}

// HAREntry is one request/response exchange (or one used server push).
type HAREntry struct {
	Pageref         string      `json:"pageref,omitempty"`
	StartedDateTime string      `json:"startedDateTime"`
	Time            float64     `json:"time"`
	Request         HARRequest  `json:"request"`
	Response        HARResponse `json:"response"`
	Cache           struct{}    `json:"cache"`
	Timings         HARTimings  `json:"timings"`
	ServerIPAddress string      `json:"serverIPAddress,omitempty"`
	Connection      string      `json:"connection,omitempty"`
	Comment         string      `json:"comment,omitempty"`

	Priority   *HARPriority `json:"_priority,omitempty"`   // spdylab writes the SPDY priority 0 (highest) .. 7
	Pushed     bool         `json:"_pushed,omitempty"`     // arrived by server push, no request sent
	Retries    int          `json:"_retries,omitempty"`    // sent again after the server did not process it (REFUSED_STREAM, GOAWAY)
	ResourceID *int         `json:"_resourceId,omitempty"` // page.Resource.ID; absent for references the manifest lacks
	Unlisted   bool         `json:"_unlisted,omitempty"`   // referenced by the page but not in its manifest
	Error      string       `json:"_error,omitempty"`      // why the exchange did not complete
}

// HARPriority is an entry's `_priority`. HAR 1.2 leaves underscore fields
// to each tool, and they disagree: spdylab (and tools in WebPageTest's
// line) write a number, Chrome DevTools writes Chromium's request priority
// by name ("VeryHigh" .. "VeryLow"). A reader of other tools' HARs has to
// take both, and shows what was written.
type HARPriority struct {
	Level int    // the priority written as an integer (spdylab: SPDY's 0..7)
	Name  string // the priority written as text, or a non-integer number's digits; "" = Level holds it
}

// SPDYPriority is the `_priority` spdylab writes: the SPDY priority p.
func SPDYPriority(p int) *HARPriority { return &HARPriority{Level: p} }

// String is the priority as the file wrote it.
func (p HARPriority) String() string {
	if p.Name != "" {
		return p.Name
	}
	return strconv.Itoa(p.Level)
}

// MarshalJSON writes a number unless the priority was read as text.
func (p HARPriority) MarshalJSON() ([]byte, error) {
	if p.Name != "" {
		return json.Marshal(p.Name)
	}
	return json.Marshal(p.Level)
}

// UnmarshalJSON takes a string or a number; anything else is an error
// (ValidateHAR reports it too).
func (p *HARPriority) UnmarshalJSON(b []byte) error {
	var x any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&x); err != nil {
		return err
	}
	switch v := x.(type) {
	case nil: // null: as good as absent
	case string:
		*p = HARPriority{Name: v}
	case json.Number:
		if n, err := strconv.Atoi(v.String()); err == nil {
			*p = HARPriority{Level: n}
		} else {
			*p = HARPriority{Name: v.String()} // 2.5 or 1e3: shown as written
		}
	default:
		return fmt.Errorf("_priority is %s, want a number or a name", b)
	}
	return nil
}

// HARRequest is the request half of an entry.
type HARRequest struct {
	Method      string         `json:"method"`
	URL         string         `json:"url"`
	HTTPVersion string         `json:"httpVersion"`
	Cookies     []HARCookie    `json:"cookies"`
	Headers     []HARNameValue `json:"headers"`
	QueryString []HARNameValue `json:"queryString"`
	HeadersSize int64          `json:"headersSize"`
	BodySize    int64          `json:"bodySize"`
}

// HARResponse is the response half of an entry.
type HARResponse struct {
	Status      int            `json:"status"`
	StatusText  string         `json:"statusText"`
	HTTPVersion string         `json:"httpVersion"`
	Cookies     []HARCookie    `json:"cookies"`
	Headers     []HARNameValue `json:"headers"`
	Content     HARContent     `json:"content"`
	RedirectURL string         `json:"redirectURL"`
	HeadersSize int64          `json:"headersSize"`
	BodySize    int64          `json:"bodySize"`
}

// HARCookie is present only so that the cookies arrays have the right type.
type HARCookie struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// HARNameValue is a header or query parameter.
type HARNameValue struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// HARContent describes the response body.
type HARContent struct {
	Size     int64  `json:"size"`
	MimeType string `json:"mimeType"`
}

// HARTimings are milliseconds; -1 means the phase does not apply. As the
// spec requires, Connect includes SSL, and an entry's Time is the sum of all
// phases other than SSL.
type HARTimings struct {
	Blocked float64 `json:"blocked"`
	DNS     float64 `json:"dns"`
	Connect float64 `json:"connect"`
	Send    float64 `json:"send"`
	Wait    float64 `json:"wait"`
	Receive float64 `json:"receive"`
	SSL     float64 `json:"ssl"`
}

// harTime formats t the way HAR wants ISO 8601 dates, with milliseconds.
func harTime(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z07:00")
}

// ms converts a duration to milliseconds with microsecond resolution.
func ms(d time.Duration) float64 {
	return math.Round(float64(d)/float64(time.Microsecond)) / 1000
}

// sum returns the entry time implied by the timings (SSL excluded because
// Connect contains it).
func (t HARTimings) sum() float64 {
	s := 0.0
	for _, v := range []float64{t.Blocked, t.DNS, t.Connect, t.Send, t.Wait, t.Receive} {
		if v > 0 {
			s += v
		}
	}
	return s
}

// ValidateHAR checks that data is a HAR 1.2 document that HAR viewers (Chrome
// DevTools, the HAR spec's own viewer) can open: every required field present
// with the right type, dates in ISO 8601, timings that are numbers >= 0 or -1
// where the spec allows it, ssl not larger than connect, and each entry's
// time equal to the sum of its phases. The error names the first offending
// entry by index and URL; all problems found are joined.
func ValidateHAR(data []byte) error {
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("har: not JSON: %w", err)
	}
	v := &harValidator{}
	log, ok := v.object(doc, "log", "")
	if !ok {
		return v.err()
	}
	if ver, ok := v.str(log, "version", "log"); ok && ver != "1.2" && ver != "1.1" {
		v.add("log.version is %q, want \"1.2\"", ver)
	}
	if c, ok := v.object(log, "creator", "log"); ok {
		v.str(c, "name", "log.creator")
		v.str(c, "version", "log.creator")
	}
	pageIDs := map[string]bool{}
	if raw, present := log["pages"]; present {
		pages, ok := raw.([]any)
		if !ok {
			v.add("log.pages is not an array")
		}
		for i, p := range pages {
			where := fmt.Sprintf("log.pages[%d]", i)
			po, ok := p.(map[string]any)
			if !ok {
				v.add("%s is not an object", where)
				continue
			}
			v.date(po, "startedDateTime", where)
			if id, ok := v.str(po, "id", where); ok {
				pageIDs[id] = true
			}
			v.str(po, "title", where)
			if pt, ok := v.object(po, "pageTimings", where); ok {
				for _, k := range []string{"onContentLoad", "onLoad"} {
					if x, present := pt[k]; present {
						if f, ok := x.(float64); !ok || (f < 0 && f != -1) {
							v.add("%s.pageTimings.%s is %v, want a number >= 0 or -1", where, k, x)
						}
					}
				}
			}
		}
	}
	entries, ok := log["entries"].([]any)
	if !ok {
		v.add("log.entries is missing or not an array")
		return v.err()
	}
	for i, e := range entries {
		eo, ok := e.(map[string]any)
		if !ok {
			v.add("log.entries[%d] is not an object", i)
			continue
		}
		where := fmt.Sprintf("log.entries[%d]", i)
		if req, ok := eo["request"].(map[string]any); ok {
			if u, ok := req["url"].(string); ok {
				where = fmt.Sprintf("log.entries[%d] (%s)", i, u)
			}
		}
		v.entry(eo, where, pageIDs)
	}
	return v.err()
}

type harValidator struct{ problems []string }

func (v *harValidator) add(format string, args ...any) {
	v.problems = append(v.problems, fmt.Sprintf(format, args...))
}

func (v *harValidator) err() error {
	if len(v.problems) == 0 {
		return nil
	}
	const show = 20
	p := v.problems
	more := ""
	if len(p) > show {
		more = fmt.Sprintf("\n(and %d more problems)", len(p)-show)
		p = p[:show]
	}
	return errors.New("har: " + strings.Join(p, "\nhar: ") + more)
}

func join(where, key string) string {
	if where == "" {
		return key
	}
	return where + "." + key
}

// harField reads m[key] as a T, reporting a missing key or a value of the
// wrong JSON type (described as kind, e.g. "a string").
func harField[T any](v *harValidator, m map[string]any, key, where, kind string) (T, bool) {
	x, ok := m[key].(T)
	if !ok {
		if _, present := m[key]; present {
			v.add("%s is not %s", join(where, key), kind)
		} else {
			v.add("%s is missing", join(where, key))
		}
	}
	return x, ok
}

func (v *harValidator) object(m map[string]any, key, where string) (map[string]any, bool) {
	return harField[map[string]any](v, m, key, where, "an object")
}

func (v *harValidator) str(m map[string]any, key, where string) (string, bool) {
	return harField[string](v, m, key, where, "a string")
}

func (v *harValidator) num(m map[string]any, key, where string, allowMinus1 bool) (float64, bool) {
	f, ok := harField[float64](v, m, key, where, "a number")
	if !ok {
		return 0, false
	}
	if f < 0 && !(allowMinus1 && f == -1) {
		v.add("%s is %v, want >= 0%s", join(where, key), f, map[bool]string{true: " or -1", false: ""}[allowMinus1])
		return f, false
	}
	return f, true
}

func (v *harValidator) array(m map[string]any, key, where string) ([]any, bool) {
	return harField[[]any](v, m, key, where, "an array")
}

func (v *harValidator) date(m map[string]any, key, where string) {
	s, ok := v.str(m, key, where)
	if !ok {
		return
	}
	if _, err := time.Parse(time.RFC3339Nano, s); err != nil {
		v.add("%s is %q, not an ISO 8601 date with time zone", join(where, key), s)
	}
}

func (v *harValidator) nameValues(m map[string]any, key, where string) {
	a, ok := v.array(m, key, where)
	if !ok {
		return
	}
	for i, x := range a {
		o, ok := x.(map[string]any)
		w := fmt.Sprintf("%s[%d]", join(where, key), i)
		if !ok {
			v.add("%s is not an object", w)
			continue
		}
		v.str(o, "name", w)
		v.str(o, "value", w)
	}
}

// entryFieldKinds are the optional entry fields HAR 1.2 types (strings)
// and spdylab's own underscore fields, with the JSON kind each must have,
// so that a HAR `har check` accepts is one `har show` and the report read.
var entryFieldKinds = map[string]string{
	"serverIPAddress": "a string", "connection": "a string", "comment": "a string",
	"_pushed": "a boolean", "_unlisted": "a boolean", "_error": "a string",
	"_retries": "an integer", "_resourceId": "an integer",
}

// optionalTypes reports optional entry fields of the wrong JSON kind.
func (v *harValidator) optionalTypes(e map[string]any, where string) {
	for key, kind := range entryFieldKinds {
		x, present := e[key]
		if !present || x == nil {
			continue
		}
		ok := false
		switch kind {
		case "a string":
			_, ok = x.(string)
		case "a boolean":
			_, ok = x.(bool)
		case "an integer":
			f, isNum := x.(float64)
			ok = isNum && f == float64(int64(f))
		}
		if !ok {
			v.add("%s.%s is not %s", where, key, kind)
		}
	}
}

func (v *harValidator) entry(e map[string]any, where string, pageIDs map[string]bool) {
	if ref, present := e["pageref"]; present {
		s, ok := ref.(string)
		if !ok {
			v.add("%s.pageref is not a string", where)
		} else if len(pageIDs) > 0 && !pageIDs[s] {
			v.add("%s.pageref %q names no page", where, s)
		}
	}
	if prio, present := e["_priority"]; present {
		switch prio.(type) {
		case string, float64, nil:
		default:
			v.add("%s._priority is not a number or a string", where)
		}
	}
	v.optionalTypes(e, where)
	v.date(e, "startedDateTime", where)
	total, totalOK := v.num(e, "time", where, false)
	if req, ok := v.object(e, "request", where); ok {
		w := where + ".request"
		v.str(req, "method", w)
		v.str(req, "url", w)
		v.str(req, "httpVersion", w)
		v.array(req, "cookies", w)
		v.nameValues(req, "headers", w)
		v.nameValues(req, "queryString", w)
		v.num(req, "headersSize", w, true)
		v.num(req, "bodySize", w, true)
	}
	if resp, ok := v.object(e, "response", where); ok {
		w := where + ".response"
		v.num(resp, "status", w, false)
		v.str(resp, "statusText", w)
		v.str(resp, "httpVersion", w)
		v.array(resp, "cookies", w)
		v.nameValues(resp, "headers", w)
		if c, ok := v.object(resp, "content", w); ok {
			v.num(c, "size", w+".content", false)
			v.str(c, "mimeType", w+".content")
		}
		v.str(resp, "redirectURL", w)
		v.num(resp, "headersSize", w, true)
		v.num(resp, "bodySize", w, true)
	}
	v.object(e, "cache", where)
	t, ok := v.object(e, "timings", where)
	if !ok {
		return
	}
	w := where + ".timings"
	sum := 0.0
	allOK := true
	for _, k := range []string{"send", "wait", "receive"} {
		f, ok := v.num(t, k, w, false)
		allOK = allOK && ok
		sum += f
	}
	optional := map[string]float64{}
	for _, k := range []string{"blocked", "dns", "connect", "ssl"} {
		if _, present := t[k]; !present {
			optional[k] = -1
			continue
		}
		f, ok := v.num(t, k, w, true)
		allOK = allOK && ok
		optional[k] = f
		if k != "ssl" && f > 0 {
			sum += f
		}
	}
	if optional["ssl"] > 0 && optional["ssl"] > optional["connect"]+0.001 {
		v.add("%s.ssl (%v) exceeds connect (%v); connect must include ssl", w, optional["ssl"], optional["connect"])
	}
	// Timings are rounded to a microsecond each, so allow a little slack.
	if allOK && totalOK && math.Abs(sum-total) > 0.01 {
		v.add("%s.time is %v but its timings add up to %v", where, total, sum)
	}
}
