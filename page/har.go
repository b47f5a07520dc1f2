package page

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// This file reads HAR 1.2 files as the recorders of ../shared/pages write
// them (Chrome DevTools, chrome-har, WebPageTest, Browsertime, Firefox):
// only the fields import uses, and numbers that some recorders write as
// strings ("_initiator_line": "", "status": "200") or leave out.

// MaxHARBytes caps the size of a HAR file import reads into memory.
// Recordings of real pages are 0.5 to 50 MB; a file beyond this is refused
// by name rather than exhausting memory.
const MaxHARBytes = 512 << 20

// MaxHAREntries caps the entries of one HAR (a page with more requests
// than this is not a page load).
const MaxHAREntries = 200000

type harFile struct {
	Log *harLog `json:"log"`
}

type harLog struct {
	Pages   []harPage  `json:"pages"`
	Entries []harEntry `json:"entries"`
}

type harPage struct {
	ID    string `json:"id"`
	Title string `json:"title"`
}

type harEntry struct {
	Pageref         string      `json:"pageref"`
	StartedDateTime string      `json:"startedDateTime"`
	Time            flexNum     `json:"time"`
	Request         harRequest  `json:"request"`
	Response        harResponse `json:"response"`
	Timings         harTimings  `json:"timings"`
	ResourceType    string      `json:"_resourceType"`
	// Initiator is a URL (chrome-har, WebPageTest) or DevTools' object
	// {"type", "url", "lineNumber", "columnNumber"} (Chrome's own export).
	Initiator       json.RawMessage `json:"_initiator"`
	InitiatorType   string          `json:"_initiator_type"`
	InitiatorLine   flexNum         `json:"_initiator_line"`
	InitiatorColumn flexNum         `json:"_initiator_column"`
	ContentEncoding string          `json:"_contentEncoding"` // WebPageTest
}

type harHeader struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type harRequest struct {
	Method  string      `json:"method"`
	URL     string      `json:"url"`
	Headers []harHeader `json:"headers"`
}

type harResponse struct {
	Status       flexNum     `json:"status"`
	RedirectURL  string      `json:"redirectURL"`
	Headers      []harHeader `json:"headers"`
	Content      harContent  `json:"content"`
	HeadersSize  flexNum     `json:"headersSize"`
	BodySize     flexNum     `json:"bodySize"`
	TransferSize flexNum     `json:"_transferSize"`
}

type harContent struct {
	Size     flexNum `json:"size"`
	MimeType string  `json:"mimeType"`
}

type harTimings struct {
	Blocked flexNum `json:"blocked"`
	DNS     flexNum `json:"dns"`
	Connect flexNum `json:"connect"`
	Send    flexNum `json:"send"`
	Wait    flexNum `json:"wait"`
	Receive flexNum `json:"receive"`
}

// flexNum is a number written as a JSON number or a numeric string; null,
// "", or anything else leaves it unset (OK false) rather than failing the
// whole file over one odd field.
type flexNum struct {
	V  float64
	OK bool
}

func (n *flexNum) UnmarshalJSON(b []byte) error {
	*n = flexNum{}
	s := strings.TrimSpace(string(b))
	if strings.HasPrefix(s, `"`) {
		if err := json.Unmarshal(b, &s); err != nil {
			return nil
		}
	}
	if v, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil && v == v && v < 1e15 && v > -1e15 {
		*n = flexNum{V: v, OK: true}
	}
	return nil
}

// positive is the value when it is set and >= 0 (HAR writes -1 for "not
// available").
func (n flexNum) positive() (float64, bool) { return n.V, n.OK && n.V >= 0 }

// initiator returns the initiator's URL and type, from either form.
func (e *harEntry) initiator() (url, typ string, line, col float64, hasLine bool) {
	typ = e.InitiatorType
	line, hasLine = e.InitiatorLine.positive()
	col, _ = e.InitiatorColumn.positive()
	raw := bytes.TrimSpace(e.Initiator)
	if len(raw) == 0 || raw[0] == 'n' {
		return "", typ, line, col, hasLine
	}
	if raw[0] == '"' {
		json.Unmarshal(raw, &url)
		return url, typ, line, col, hasLine
	}
	var obj struct {
		Type   string  `json:"type"`
		URL    string  `json:"url"`
		Line   flexNum `json:"lineNumber"`
		Column flexNum `json:"columnNumber"`
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
	if l, ok := obj.Line.positive(); ok && !hasLine {
		line, hasLine = l, true
		col, _ = obj.Column.positive()
	}
	return url, typ, line, col, hasLine
}

// readHARFile reads a HAR file, refusing one larger than MaxHARBytes.
func readHARFile(file string) ([]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > MaxHARBytes {
		return nil, fmt.Errorf("%s is %d MB; spdylab imports HAR files up to %d MB", file, st.Size()>>20, MaxHARBytes>>20)
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxHARBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxHARBytes {
		return nil, fmt.Errorf("%s is larger than %d MB; spdylab imports HAR files up to that size", file, MaxHARBytes>>20)
	}
	return b, nil
}

// parseHAR decodes a HAR; syntax errors name the line and column.
func parseHAR(b []byte) (*harLog, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, errors.New("empty file: not a HAR")
	}
	var h harFile
	if err := json.Unmarshal(b, &h); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syn):
			l, c := lineCol(b, int(syn.Offset))
			if int(syn.Offset) >= len(b) {
				return nil, fmt.Errorf("malformed HAR: truncated at byte %d (line %d)", len(b), l)
			}
			return nil, fmt.Errorf("malformed HAR: JSON error at line %d column %d: %v", l, c, syn)
		case errors.As(err, &typ):
			l, c := lineCol(b, int(typ.Offset))
			return nil, fmt.Errorf("malformed HAR: line %d column %d: %s must be %s, not JSON %s", l, c, typ.Field, typ.Type, typ.Value)
		}
		return nil, fmt.Errorf("malformed HAR: %v", err)
	}
	if h.Log == nil {
		return nil, errors.New("not a HAR: no \"log\" object at the top level")
	}
	if len(h.Log.Entries) == 0 {
		return nil, errors.New("the HAR has no entries (log.entries is empty or missing)")
	}
	if len(h.Log.Entries) > MaxHAREntries {
		return nil, fmt.Errorf("the HAR has %d entries; spdylab imports at most %d", len(h.Log.Entries), MaxHAREntries)
	}
	return h.Log, nil
}
