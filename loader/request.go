package loader

import (
	"compress/gzip"
	"compress/zlib"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/spdylab/spdylab/har"
	"github.com/spdylab/spdylab/page"
)

// The request headers of Chrome 16 on Linux, so that header bytes (and
// what SPDY's compression saves on them) are those of the studies' browser.
const (
	userAgent      = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/535.7 (KHTML, like Gecko) Chrome/16.0.912.63 Safari/535.7"
	acceptLanguage = "en-US,en;q=0.8"
	acceptCharset  = "ISO-8859-1,utf-8;q=0.7,*;q=0.3"
	acceptEncoding = "gzip,deflate,sdch"
)

func acceptFor(typ string) string {
	switch typ {
	case page.TypeHTML:
		return "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
	case page.TypeCSS:
		return "text/css,*/*;q=0.1"
	}
	return "*/*"
}

// requestHeaders are e's headers apart from the ones each protocol frames
// itself (Host / :host, Connection, :method, :path, ...), in Chrome's order.
func requestHeaders(e *entry) []har.NameValue {
	if e.res != nil && len(e.res.RequestHeaders) > 0 {
		// A recorded page sends what the recording's browser sent
		// (cookies, user agent): header compression is measured on them.
		h := make([]har.NameValue, 0, len(e.res.RequestHeaders))
		for k, v := range e.res.RequestHeaders {
			h = append(h, har.NameValue{Name: k, Value: v})
		}
		sort.Slice(h, func(a, b int) bool { return h[a].Name < h[b].Name })
		return h
	}
	if e.headers == HeadersChromiumModern {
		return modernRequestHeaders(e)
	}
	h := []har.NameValue{
		{Name: "User-Agent", Value: userAgent},
		{Name: "Accept", Value: acceptFor(e.typ)},
	}
	if e.parent != nil {
		h = append(h, har.NameValue{Name: "Referer", Value: e.parent.url.String()})
	}
	return append(h,
		har.NameValue{Name: "Accept-Encoding", Value: acceptEncoding},
		har.NameValue{Name: "Accept-Language", Value: acceptLanguage},
		har.NameValue{Name: "Accept-Charset", Value: acceptCharset},
	)
}

// requestPath is the path and query to put in the request line.
func requestPath(e *entry) string {
	p := e.url.EscapedPath()
	if p == "" {
		p = "/"
	}
	if e.url.RawQuery != "" {
		p += "?" + e.url.RawQuery
	}
	return p
}

// decodedBody undoes a Content-Encoding the loader advertised, so that the
// body is parsed and its size compared with the manifest as content. The
// returned counter reports the encoded (transfer) bytes.
func decodedBody(encoding string, r io.Reader) (io.Reader, *countingReader, func() error, error) {
	wire := &countingReader{r: r}
	switch strings.ToLower(strings.TrimSpace(encoding)) {
	case "", "identity":
		return wire, wire, func() error { return nil }, nil
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(wire)
		if err != nil {
			return nil, wire, nil, fmt.Errorf("gzip body: %w", err)
		}
		return zr, wire, zr.Close, nil
	case "deflate":
		zr, err := zlib.NewReader(wire)
		if err != nil {
			return nil, wire, nil, fmt.Errorf("deflate body: %w", err)
		}
		return zr, wire, zr.Close, nil
	}
	return nil, wire, nil, fmt.Errorf("unsupported Content-Encoding %q", encoding)
}

// readBody feeds a response body to consume, decoding it first, and records
// content and transfer sizes on e.
func readBody(e *entry, encoding string, r io.Reader, consume func(io.Reader) (int64, error)) error {
	dec, wire, closeDec, err := decodedBody(encoding, r)
	if err != nil {
		return err
	}
	n, err := consume(dec)
	if cerr := closeDec(); err == nil && cerr != nil {
		err = cerr
	}
	e.mu.Lock()
	e.bodyBytes = n
	e.wireBody = wire.n
	e.mu.Unlock()
	return err
}
