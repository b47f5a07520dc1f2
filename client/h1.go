package client

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/http/httputil"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// Field is one header field in wire order.
type Field struct{ Name, Value string }

// H1Conn is one persistent HTTP/1.1 connection carrying one exchange at a
// time (no pipelining, as browsers did). It writes request heads exactly as
// given and counts the exact bytes of every head, which http.ReadResponse
// cannot tell.
type H1Conn struct {
	conn net.Conn
	br   *bufio.Reader
	// Trace, when set, sees every head line sent (sent true) and received.
	Trace func(sent bool, line string)

	mu sync.Mutex // held from Send until the response body is finished (RoundTrip)
}

// NewH1Conn uses c (TLS already negotiated, or plain TCP) for HTTP/1.1.
func NewH1Conn(c net.Conn) *H1Conn { return &H1Conn{conn: c, br: bufio.NewReaderSize(c, 32<<10)} }

// H1Response is a response head and its framed body.
type H1Response struct {
	http.Response
	Fields    []Field // header fields in wire order
	HeadBytes int64   // status line and header, interim 1xx responses included
	// Body (also Response.Body) yields exactly the body the framing says
	// (Content-Length, chunked, or up to the end of the connection).
	Reusable bool // the connection may carry another exchange after this body
	chunked  bool
	framed   io.Reader
}

// SendHead writes a request head: "METHOD target HTTP/1.1", fields, blank
// line. It returns the head's size in bytes.
func (c *H1Conn) SendHead(method, target string, fields []Field) (int64, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\n", method, target)
	for _, f := range fields {
		fmt.Fprintf(&b, "%s: %s\r\n", f.Name, f.Value)
	}
	b.WriteString("\r\n")
	if c.Trace != nil {
		head, _, _ := strings.Cut(b.String(), "\r\n\r\n")
		for _, l := range strings.Split(head, "\r\n") {
			c.Trace(true, l)
		}
	}
	n := int64(b.Len())
	if _, err := c.conn.Write(b.Bytes()); err != nil {
		return n, fmt.Errorf("sending request: %w", err)
	}
	return n, nil
}

// WriteBody writes request body bytes after SendHead.
func (c *H1Conn) WriteBody(p []byte) error {
	_, err := c.conn.Write(p)
	return err
}

// AwaitResponse blocks until the first response byte arrives. An error for
// which ConnDropped is true means the server closed the connection before
// answering (a kept-alive connection may be resent on a new one).
func (c *H1Conn) AwaitResponse() error {
	_, err := c.br.Peek(1)
	return err
}

// ReadResponse parses the response head and frames the body; the caller
// reads Body and then calls Finish.
func (c *H1Conn) ReadResponse(method string) (*H1Response, error) {
	resp, err := readResponseHead(c.br)
	if resp != nil && c.Trace != nil {
		c.Trace(false, resp.Proto+" "+resp.Status)
		for _, f := range resp.Fields {
			c.Trace(false, f.Name+": "+f.Value)
		}
	}
	if err != nil {
		return resp, err
	}
	resp.Reusable = resp.ProtoAtLeast(1, 1) && !headerHasToken(resp.Header, "Connection", "close")
	resp.chunked = headerHasToken(resp.Header, "Transfer-Encoding", "chunked")
	resp.ContentLength = -1
	switch {
	case method == http.MethodHead || resp.StatusCode == http.StatusNoContent || resp.StatusCode == http.StatusNotModified:
		resp.framed = http.NoBody
		resp.chunked = false
	case resp.chunked:
		resp.framed = httputil.NewChunkedReader(c.br)
	case resp.Header.Get("Content-Length") != "":
		n, perr := strconv.ParseInt(strings.TrimSpace(resp.Header.Get("Content-Length")), 10, 64)
		if perr != nil || n < 0 {
			return resp, fmt.Errorf("bad Content-Length %q", resp.Header.Get("Content-Length"))
		}
		resp.ContentLength = n
		resp.framed = &exactReader{r: c.br, left: n, total: n}
	default:
		resp.framed = c.br // delimited by the end of the connection
		resp.Reusable = false
	}
	resp.Body = io.NopCloser(resp.framed)
	return resp, nil
}

// Finish drains what the body's framing still holds (a consumer may stop
// early) and the chunked trailer, leaving the connection at the next
// response.
func (c *H1Conn) Finish(resp *H1Response) error {
	if _, err := io.Copy(io.Discard, resp.framed); err != nil {
		return fmt.Errorf("reading the response body: %w", err)
	}
	if resp.chunked {
		// The chunked reader stops after the last chunk; the trailer
		// section (usually just CRLF) still belongs to this response.
		var trailer int64
		for {
			line, err := readLine(c.br, &trailer)
			if err != nil {
				return fmt.Errorf("reading the chunked trailer: %w", err)
			}
			if line == "" {
				break
			}
		}
	}
	return nil
}

// RoundTrip is the http.RoundTripper form for `spdylab get`: it sends req
// with Host first and the header fields in sorted order, and returns the
// response; the connection is free for the next request once the body is
// closed. It honours httptrace's GotFirstResponseByte.
func (c *H1Conn) RoundTrip(req *http.Request) (*http.Response, error) {
	c.mu.Lock()
	if d, ok := req.Context().Deadline(); ok {
		c.conn.SetDeadline(d)
	}
	var body []byte
	if req.Body != nil && req.Body != http.NoBody {
		b, err := io.ReadAll(req.Body)
		if err != nil {
			c.mu.Unlock()
			return nil, fmt.Errorf("reading the request body: %w", err)
		}
		body = b
	}
	if _, err := c.SendHead(req.Method, req.URL.RequestURI(), h1Fields(req, len(body))); err != nil {
		c.mu.Unlock()
		return nil, err
	}
	if len(body) > 0 {
		if err := c.WriteBody(body); err != nil {
			c.mu.Unlock()
			return nil, fmt.Errorf("sending the request body: %w", err)
		}
	}
	if err := c.AwaitResponse(); err != nil {
		c.mu.Unlock()
		return nil, fmt.Errorf("waiting for the response: %w", err)
	}
	if trace := httptrace.ContextClientTrace(req.Context()); trace != nil && trace.GotFirstResponseByte != nil {
		trace.GotFirstResponseByte()
	}
	resp, err := c.ReadResponse(req.Method)
	if err != nil {
		c.mu.Unlock()
		return nil, err
	}
	resp.Request = req
	resp.Body = &h1Body{r: resp.framed, c: c, resp: resp}
	return &resp.Response, nil
}

// h1Fields are req's header fields for the wire: Host, the header sorted,
// Content-Length for a body.
func h1Fields(req *http.Request, bodyLen int) []Field {
	host := req.Host
	if host == "" {
		host = req.URL.Host
	}
	fields := []Field{{"Host", host}}
	keys := make([]string, 0, len(req.Header))
	for k := range req.Header {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if strings.EqualFold(k, "Host") || strings.EqualFold(k, "Content-Length") {
			continue
		}
		for _, v := range req.Header[k] {
			fields = append(fields, Field{k, v})
		}
	}
	if bodyLen > 0 || (req.Method != http.MethodGet && req.Method != http.MethodHead) {
		fields = append(fields, Field{"Content-Length", strconv.Itoa(bodyLen)})
	}
	return fields
}

// h1Body releases the connection when closed.
type h1Body struct {
	r    io.Reader
	c    *H1Conn
	resp *H1Response
	once sync.Once
}

func (b *h1Body) Read(p []byte) (int, error) { return b.r.Read(p) }

func (b *h1Body) Close() error {
	var err error
	b.once.Do(func() {
		err = b.c.Finish(b.resp)
		b.c.mu.Unlock()
	})
	return err
}

// ConnDropped reports whether err is the server closing or resetting the
// connection.
func ConnDropped(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// exactReader reads exactly total bytes of a Content-Length body; the
// connection ending earlier is an error saying how much arrived.
type exactReader struct {
	r           io.Reader
	left, total int64
}

func (x *exactReader) Read(p []byte) (int, error) {
	if x.left <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > x.left {
		p = p[:x.left]
	}
	n, err := x.r.Read(p)
	x.left -= int64(n)
	if x.left == 0 {
		return n, nil
	}
	if err == io.EOF {
		return n, fmt.Errorf("connection closed after %d of %d body bytes (Content-Length): %w", x.total-x.left, x.total, io.ErrUnexpectedEOF)
	}
	return n, err
}

// MaxHeaderBytes caps a response head.
const MaxHeaderBytes = 256 << 10

// readResponseHead parses the status line and header fields, counting their
// exact bytes on the wire. Interim 1xx responses are skipped and counted.
func readResponseHead(br *bufio.Reader) (*H1Response, error) {
	var size int64
	for {
		line, err := readLine(br, &size)
		if err != nil {
			return nil, fmt.Errorf("reading the status line: %w", err)
		}
		proto, rest, _ := strings.Cut(line, " ")
		codeStr, reason, _ := strings.Cut(rest, " ")
		major, minor, ok := http.ParseHTTPVersion(proto)
		code, cerr := strconv.Atoi(codeStr)
		if !ok || cerr != nil || len(codeStr) != 3 {
			return nil, fmt.Errorf("malformed status line %q", truncate(line, 80))
		}
		resp := &H1Response{Response: http.Response{
			Status: codeStr + " " + reason, StatusCode: code, Proto: proto,
			ProtoMajor: major, ProtoMinor: minor, Header: http.Header{},
		}, Fields: []Field{}}
		for {
			line, err := readLine(br, &size)
			if err != nil {
				resp.HeadBytes = size
				return nil, fmt.Errorf("reading the response header: %w", err)
			}
			if line == "" {
				break
			}
			name, value, ok := strings.Cut(line, ":")
			if !ok || name == "" || strings.ContainsAny(name, " \t") {
				return nil, fmt.Errorf("malformed header line %q", truncate(line, 80))
			}
			value = strings.TrimSpace(value)
			resp.Header.Add(name, value)
			resp.Fields = append(resp.Fields, Field{Name: name, Value: value})
		}
		if code >= 100 && code < 200 && code != http.StatusSwitchingProtocols {
			continue
		}
		resp.HeadBytes = size
		return resp, nil
	}
}

func readLine(br *bufio.Reader, size *int64) (string, error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		*size += int64(len(chunk))
		buf = append(buf, chunk...)
		if *size > MaxHeaderBytes {
			return "", fmt.Errorf("response header larger than %d bytes", MaxHeaderBytes)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			if err == io.EOF && len(buf) > 0 {
				err = io.ErrUnexpectedEOF
			}
			return "", err
		}
		return strings.TrimRight(string(buf), "\r\n"), nil
	}
}

func headerHasToken(h http.Header, name, token string) bool {
	for _, v := range h.Values(name) {
		for _, t := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}
