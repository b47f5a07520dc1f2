package client

import (
	"bytes"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/net/http/httpguts"
	"golang.org/x/net/http2/hpack"
)

// headerBuffer collects one HPACK block.
type headerBuffer = bytes.Buffer

// hopByHop are HTTP/1.1 connection-specific fields HTTP/2 forbids.
var hopByHop = map[string]bool{"connection": true, "keep-alive": true, "proxy-connection": true,
	"transfer-encoding": true, "upgrade": true, "host": true}

// requestFields are req's HTTP/2 header fields: pseudo-headers, then the
// header in sorted order (a map has none of its own), lower-cased.
func requestFields(req *http.Request, scheme PriorityScheme) ([]hpack.HeaderField, error) {
	if req.URL == nil {
		return nil, fmt.Errorf("h2: request without URL")
	}
	authority := req.Host
	if authority == "" {
		authority = req.URL.Host
	}
	if authority == "" {
		return nil, fmt.Errorf("h2: request %s has no host", req.URL)
	}
	path := req.URL.RequestURI()
	method := req.Method
	if method == "" {
		method = http.MethodGet
	}
	urlScheme := req.URL.Scheme
	if urlScheme == "" {
		urlScheme = "https"
	}
	fields := []hpack.HeaderField{
		{Name: ":method", Value: method},
		{Name: ":authority", Value: authority},
		{Name: ":scheme", Value: urlScheme},
		{Name: ":path", Value: path},
	}
	keys := make([]string, 0, len(req.Header))
	for k := range req.Header {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	hasPriority := false
	for _, k := range keys {
		name := strings.ToLower(k)
		if hopByHop[name] || (name == "te" && !headerIsTrailers(req.Header[k])) {
			continue
		}
		if !httpguts.ValidHeaderFieldName(name) {
			return nil, fmt.Errorf("h2: invalid header field name %q", k)
		}
		hasPriority = hasPriority || name == "priority"
		for _, v := range req.Header[k] {
			if !httpguts.ValidHeaderFieldValue(v) {
				return nil, fmt.Errorf("h2: invalid value for header field %q", k)
			}
			fields = append(fields, hpack.HeaderField{Name: name, Value: v})
		}
	}
	if req.ContentLength > 0 && req.Header.Get("Content-Length") == "" {
		fields = append(fields, hpack.HeaderField{Name: "content-length", Value: strconv.FormatInt(req.ContentLength, 10)})
	}
	if scheme == PriorityRFC9218 && !hasPriority {
		p := priorityOf(req.Context())
		v := "u=" + strconv.Itoa(int(p))
		if p >= 4 {
			v += ", i"
		}
		fields = append(fields, hpack.HeaderField{Name: "priority", Value: v})
	}
	return fields, nil
}

func headerIsTrailers(vs []string) bool { return len(vs) == 1 && vs[0] == "trailers" }

// fieldsSize is a header list's size as "name: value\r\n" lines.
func fieldsSize(fs []hpack.HeaderField) int64 {
	var n int64
	for _, f := range fs {
		n += int64(len(f.Name) + len(f.Value) + 4)
	}
	return n
}
