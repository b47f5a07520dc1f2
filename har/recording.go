package har

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// Recording is a HAR as the recorders of real pages write it (Chrome
// DevTools, chrome-har, WebPageTest, Browsertime, Firefox), read for
// `page import`: only the fields import uses, and numbers that some
// recorders write as strings ("_initiator_line": "", "status": "200") or
// leave out. Unlike Document it does not fail over one odd field.
type Recording struct {
	Log *RecordedLog `json:"log"`
}

// RecordedLog is a recording's "log" object.
type RecordedLog struct {
	Pages   []RecordedPage  `json:"pages"`
	Entries []RecordedEntry `json:"entries"`
}

// RecordedPage is one page of a recording.
type RecordedPage struct {
	ID              string              `json:"id"`
	Title           string              `json:"title"`
	StartedDateTime string              `json:"startedDateTime"`
	PageTimings     RecordedPageTimings `json:"pageTimings"`
}

// RecordedPageTimings are a recorded page's milestones in milliseconds
// after its startedDateTime (-1 or missing: not reached or not recorded).
type RecordedPageTimings struct {
	OnContentLoad Number `json:"onContentLoad"`
	OnLoad        Number `json:"onLoad"`
	// LCP and LCPURL are the largest contentful paint and its element's
	// resource, as spdylab record writes them (PageTimings); LCPURL is ""
	// for a text block and when it is not a string.
	LCP    Number    `json:"_largestContentfulPaint"`
	LCPURL looseText `json:"_largestContentfulPaintUrl"`
}

// looseText is a string field that never fails a recording's decoding:
// what is not a string leaves it empty.
type looseText string

func (t *looseText) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*t = looseText(s)
	} else {
		*t = ""
	}
	return nil
}

// RecordedEntry is one exchange of a recording.
type RecordedEntry struct {
	Pageref         string           `json:"pageref"`
	StartedDateTime string           `json:"startedDateTime"`
	Time            Number           `json:"time"`
	Request         RecordedRequest  `json:"request"`
	Response        RecordedResponse `json:"response"`
	Timings         RecordedTimings  `json:"timings"`
	ResourceType    string           `json:"_resourceType"`
	// RawInitiator is a URL (chrome-har, WebPageTest) or DevTools' object
	// {"type", "url", "lineNumber", "columnNumber"} (Chrome's own export);
	// Initiator reads either.
	RawInitiator    json.RawMessage `json:"_initiator"`
	InitiatorType   string          `json:"_initiator_type"`
	InitiatorLine   Number          `json:"_initiator_line"`
	InitiatorColumn Number          `json:"_initiator_column"`
	ContentEncoding string          `json:"_contentEncoding"` // WebPageTest
	// What `har show` prints besides: the connection, the priority as
	// written (Priority reads it), spdylab's push flag and error.
	Connection  Text            `json:"connection"`
	RawPriority json.RawMessage `json:"_priority"`
	Pushed      Text            `json:"_pushed"`
	Error       Text            `json:"_error"`
}

// Priority is the entry's _priority (a number or a name), nil when it is
// absent or neither.
func (e *RecordedEntry) Priority() *Priority {
	raw := bytes.TrimSpace(e.RawPriority)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var p Priority
	if json.Unmarshal(raw, &p) != nil {
		return nil
	}
	return &p
}

// Text is a string some recorders write as a number or a bool
// ("connection": 1234): it keeps those as written; objects, arrays and
// null leave it empty rather than failing the whole file.
type Text string

// UnmarshalJSON never fails.
func (t *Text) UnmarshalJSON(b []byte) error {
	*t = ""
	var s string
	if json.Unmarshal(b, &s) == nil {
		*t = Text(s)
		return nil
	}
	if v := strings.TrimSpace(string(b)); v != "" && v != "null" && v[0] != '{' && v[0] != '[' {
		*t = Text(v)
	}
	return nil
}

// RecordedRequest is the request half of a recorded entry.
type RecordedRequest struct {
	Method  string      `json:"method"`
	URL     string      `json:"url"`
	Headers []NameValue `json:"headers"`
}

// RecordedResponse is the response half of a recorded entry.
type RecordedResponse struct {
	Status       Number          `json:"status"`
	RedirectURL  string          `json:"redirectURL"`
	Headers      []NameValue     `json:"headers"`
	Content      RecordedContent `json:"content"`
	HeadersSize  Number          `json:"headersSize"`
	BodySize     Number          `json:"bodySize"`
	TransferSize Number          `json:"_transferSize"`
}

// RecordedContent describes a recorded response body.
type RecordedContent struct {
	Size     Number `json:"size"`
	MimeType string `json:"mimeType"`
}

// RecordedTimings are a recorded entry's phases.
type RecordedTimings struct {
	Blocked Number `json:"blocked"`
	DNS     Number `json:"dns"`
	Connect Number `json:"connect"`
	SSL     Number `json:"ssl"` // HAR 1.2: included in connect when given
	Send    Number `json:"send"`
	Wait    Number `json:"wait"`
	Receive Number `json:"receive"`
}

// Number is a number written as a JSON number or a numeric string; null,
// "", or anything else leaves it unset (OK false) rather than failing the
// whole file over one odd field.
type Number struct {
	V  float64
	OK bool
}

// UnmarshalJSON never fails: what is not a number leaves n unset.
func (n *Number) UnmarshalJSON(b []byte) error {
	*n = Number{}
	s := strings.TrimSpace(string(b))
	if strings.HasPrefix(s, `"`) {
		if err := json.Unmarshal(b, &s); err != nil {
			return nil
		}
	}
	if v, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil && v == v && v < 1e15 && v > -1e15 {
		*n = Number{V: v, OK: true}
	}
	return nil
}

// Positive is the value when it is set and >= 0 (HAR writes -1 for "not
// available").
func (n Number) Positive() (float64, bool) { return n.V, n.OK && n.V >= 0 }

// Initiator is what requested the entry: its URL and type, and where in
// that resource the reference stands when the recorder says, from either
// form of _initiator.
func (e *RecordedEntry) Initiator() (url, typ string, line, col float64, hasLine bool) {
	typ = e.InitiatorType
	line, hasLine = e.InitiatorLine.Positive()
	col, _ = e.InitiatorColumn.Positive()
	raw := bytes.TrimSpace(e.RawInitiator)
	if len(raw) == 0 || raw[0] == 'n' {
		return "", typ, line, col, hasLine
	}
	if raw[0] == '"' {
		json.Unmarshal(raw, &url)
		return url, typ, line, col, hasLine
	}
	var obj struct {
		Type   string `json:"type"`
		URL    string `json:"url"`
		Line   Number `json:"lineNumber"`
		Column Number `json:"columnNumber"`
		Stack  *struct {
			CallFrames []struct {
				URL string `json:"url"`
			} `json:"callFrames"`
		} `json:"stack"`
	}
	if json.Unmarshal(raw, &obj) != nil {
		return "", typ, line, col, hasLine
	}
	if typ == "" {
		typ = obj.Type
	}
	url = obj.URL
	if url == "" && obj.Stack != nil {
		for _, f := range obj.Stack.CallFrames {
			if f.URL != "" {
				url = f.URL
				break
			}
		}
	}
	if l, ok := obj.Line.Positive(); ok && !hasLine {
		line, hasLine = l, true
		col, _ = obj.Column.Positive()
	}
	return url, typ, line, col, hasLine
}
