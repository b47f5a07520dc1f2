package critpath

import (
	"encoding/json"

	"github.com/spdylab/spdylab/har"
)

// decodeHAR reads the parts of a stored HAR the analysis uses into a
// har.Document, leaving out what it never reads (response headers,
// cookies, query strings): decoding is most of the analysis's cost.
func decodeHAR(b []byte) (*har.Document, error) {
	var slim struct {
		Log struct {
			Pages   []har.Page  `json:"pages"`
			Entries []slimEntry `json:"entries"`
		} `json:"log"`
	}
	if err := json.Unmarshal(b, &slim); err != nil {
		return nil, err
	}
	doc := &har.Document{Log: har.Log{Pages: slim.Log.Pages, Entries: make([]har.Entry, len(slim.Log.Entries))}}
	for i, s := range slim.Log.Entries {
		e := &doc.Log.Entries[i]
		e.StartedDateTime, e.Time, e.Timings = s.StartedDateTime, s.Time, s.Timings
		e.Request = har.Request{URL: s.Request.URL, Headers: s.Request.Headers, HeadersSize: s.Request.HeadersSize, BodySize: s.Request.BodySize}
		e.Response.BodySize, e.Response.HeadersSize, e.Response.Content.Size = s.Response.BodySize, s.Response.HeadersSize, s.Response.Content.Size
		e.Connection, e.Pushed, e.ResourceID, e.Error = s.Connection, s.Pushed, s.ResourceID, s.Error
		e.ServerIPAddress = s.ServerIPAddress
	}
	return doc, nil
}

// slimEntry is what the analysis reads of a HAR entry (har.Entry's names).
type slimEntry struct {
	StartedDateTime string  `json:"startedDateTime"`
	Time            float64 `json:"time"`
	Request         struct {
		URL         string          `json:"url"`
		Headers     []har.NameValue `json:"headers"` // sized when headersSize is not known
		HeadersSize int64           `json:"headersSize"`
		BodySize    int64           `json:"bodySize"`
	} `json:"request"`
	Response struct {
		HeadersSize int64 `json:"headersSize"`
		BodySize    int64 `json:"bodySize"`
		Content     struct {
			Size int64 `json:"size"`
		} `json:"content"`
	} `json:"response"`
	Timings    har.Timings `json:"timings"`
	Connection string      `json:"connection"`
	// ServerIPAddress matches Chromium's connections to the servers'.
	ServerIPAddress string `json:"serverIPAddress"`
	Pushed          bool   `json:"_pushed"`
	ResourceID      *int   `json:"_resourceId"`
	Error           string `json:"_error"`
}
