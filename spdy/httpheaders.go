package spdy

import (
	"fmt"
	"net/http"
	"net/textproto"
	"strconv"
	"strings"
)

// hopByHop are HTTP/1.1 connection-specific headers that section 3.2.1
// forbids in SPDY header blocks.
var hopByHop = map[string]bool{
	"connection": true, "host": true, "keep-alive": true, "proxy-connection": true,
	"transfer-encoding": true, "upgrade": true, "te": true, "trailer": true,
}

// fromHTTPHeader lowercases names, drops connection-specific headers, and
// adds to dst (values of one name are later NUL-joined by the encoder).
func fromHTTPHeader(dst Header, h http.Header) error {
	for k, vs := range h {
		name := strings.ToLower(k)
		if hopByHop[name] || strings.HasPrefix(name, ":") {
			continue
		}
		for _, v := range vs {
			if strings.IndexByte(v, 0) >= 0 {
				return fmt.Errorf("spdy: value of header %q contains NUL", k)
			}
			if v == "" && len(vs) > 1 {
				continue // an empty part cannot be represented between NULs
			}
			dst[name] = append(dst[name], v)
		}
	}
	return nil
}

// toHTTPHeader converts a SPDY block to canonical http.Header, leaving out
// the ':' pseudo-headers.
func toHTTPHeader(h Header) http.Header {
	out := make(http.Header, len(h))
	for k, vs := range h {
		if strings.HasPrefix(k, ":") {
			continue
		}
		ck := textproto.CanonicalMIMEHeaderKey(k)
		out[ck] = append(out[ck], vs...)
	}
	return out
}

// parseStatus accepts ":status" as "200" or "200 OK".
func parseStatus(v string) (int, string, error) {
	code := v
	if i := strings.IndexByte(v, ' '); i >= 0 {
		code = v[:i]
	}
	n, err := strconv.Atoi(code)
	if err != nil || n < 100 || n > 999 {
		return 0, "", fmt.Errorf("spdy: bad :status %q", v)
	}
	if code == v {
		return n, fmt.Sprintf("%d %s", n, http.StatusText(n)), nil
	}
	return n, v, nil
}

func statusValue(code int) string {
	if t := http.StatusText(code); t != "" {
		return strconv.Itoa(code) + " " + t
	}
	return strconv.Itoa(code)
}

func contentLength(h Header) int64 {
	if v := h.Get("content-length"); v != "" {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 {
			return n
		}
	}
	return -1
}
