package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/net/http2"

	"github.com/spdylab/spdylab/spdy"
)

func init() {
	register(command{
		name:    "get",
		summary: "fetch URLs over spdy/3.1, spdy/3, h2 or http/1.1 (curl-like, one connection per origin)",
		run:     runGet,
	})
}

// getFlagList is a flag that may be given several times.
type getFlagList []string

func (r *getFlagList) String() string     { return strings.Join(*r, ",") }
func (r *getFlagList) Set(v string) error { *r = append(*r, v); return nil }

// getOptions are the parsed flags of `spdylab get`.
type getOptions struct {
	proto         string
	insecure      bool
	outputs       []string
	verbose       bool
	data          []byte
	hasData       bool
	method        string
	headers       http.Header
	timeout       time.Duration
	window        int32
	sessionWindow int32
	stdout        io.Writer
	stderr        io.Writer
}

var getProtos = []string{spdy.ProtoSPDY31, spdy.ProtoSPDY3, "h2", "http/1.1"}

func runGet(args []string) int {
	fs := flag.NewFlagSet("get", flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	var o getOptions
	var outputs, hdrs getFlagList
	var data string
	fs.StringVar(&o.proto, "proto", "", "protocol to insist on: spdy/3.1, spdy/3, h2 or http/1.1 (default: offer all over TLS and use what the server picks; http/1.1 for http:// URLs)")
	fs.BoolVar(&o.insecure, "insecure", false, "accept any server certificate (the lab's throw-away certificates)")
	fs.BoolVar(&o.insecure, "k", false, "short for --insecure")
	fs.Var(&outputs, "o", "write the body to `FILE` instead of stdout; give once per URL")
	fs.BoolVar(&o.verbose, "v", false, "trace frames (SPDY, h2) or headers (http/1.1) on stderr")
	fs.StringVar(&data, "data", "", "request body: @FILE reads a file, anything else is sent as is; makes the method POST")
	fs.StringVar(&o.method, "X", "", "request method (default GET, or POST with --data)")
	fs.Var(&hdrs, "H", "extra request header `Name: value` (repeatable)")
	fs.DurationVar(&o.timeout, "timeout", 60*time.Second, "give up after this long")
	window := fs.Int("initial-window", 0, "SPDY per-stream receive window in bytes (0 = the protocol default, 64 KiB)")
	// Chrome opened a 10 MiB session window on every SPDY/3.1 session; so
	// do we. It also tells a plain-TCP server (which has no ALPN to tell 3
	// from 3.1) at once that this session uses session flow control.
	sessionWindow := fs.Int("session-window", 10<<20, "SPDY/3.1 session receive window in bytes (64 KiB to 2^31-1)")
	fs.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: spdylab get [flags] URL...\n\nFetches every URL, several URLs of one origin over one connection\n(concurrently when the protocol multiplexes). Per URL it prints the\nnegotiated protocol, status, size and timings on stderr; bodies go to\nstdout (in URL order) or to -o files.\n\nflags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(getReorderFlags(fs, args)); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(os.Stderr, "spdylab get: "+format+"\n", a...)
		return 2
	}
	urls := fs.Args()
	if len(urls) == 0 {
		return fail("no URL given")
	}
	if o.proto != "" && !slices.Contains(getProtos, o.proto) {
		return fail("--proto %q is not one of %s", o.proto, strings.Join(getProtos, ", "))
	}
	if len(outputs) > 0 && len(outputs) != len(urls) {
		return fail("%d -o files for %d URLs: give one -o per URL or none", len(outputs), len(urls))
	}
	if *window < 0 || *window > 1<<31-1 {
		return fail("--initial-window %d out of range", *window)
	}
	o.window = int32(*window)
	if *sessionWindow < 65536 || *sessionWindow > 1<<31-1 {
		return fail("--session-window %d out of range (65536 to 2147483647)", *sessionWindow)
	}
	o.sessionWindow = int32(*sessionWindow)
	o.outputs = outputs
	if data != "" {
		o.hasData = true
		if strings.HasPrefix(data, "@") {
			b, err := os.ReadFile(data[1:])
			if err != nil {
				return fail("--data: %v", err)
			}
			o.data = b
		} else {
			o.data = []byte(data)
		}
	}
	if o.method == "" {
		o.method = http.MethodGet
		if o.hasData {
			o.method = http.MethodPost
		}
	}
	o.headers = http.Header{}
	for _, h := range hdrs {
		k, v, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(k) == "" {
			return fail("-H %q is not \"Name: value\"", h)
		}
		o.headers.Add(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	parsed := make([]*url.URL, len(urls))
	for i, raw := range urls {
		u, err := url.Parse(raw)
		if err != nil {
			return fail("bad URL %q: %v", raw, err)
		}
		if u.Scheme != "https" && u.Scheme != "http" {
			return fail("URL %q: scheme must be https or http", raw)
		}
		if u.Host == "" {
			return fail("URL %q has no host", raw)
		}
		if u.Scheme == "http" && o.proto == "h2" {
			return fail("URL %q: h2 over plain TCP is not supported; use https", raw)
		}
		parsed[i] = u
	}
	o.stdout, o.stderr = os.Stdout, os.Stderr

	ctx, cancel := context.WithTimeout(context.Background(), o.timeout)
	defer cancel()
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := getFetchAll(ctx, parsed, &o); err != nil {
		fmt.Fprintf(os.Stderr, "spdylab get: %v\n", err)
		return 1
	}
	return 0
}

// getReorderFlags lets flags follow the URLs (`get URL -v`), as curl allows.
func getReorderFlags(fs *flag.FlagSet, args []string) []string {
	var flags, rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = append(rest, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			rest = append(rest, a)
			continue
		}
		flags = append(flags, a)
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") {
			continue
		}
		if f := fs.Lookup(name); f != nil {
			if bf, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && bf.IsBoolFlag() {
				continue
			}
			if i+1 < len(args) {
				flags = append(flags, args[i+1])
				i++
			}
		}
	}
	return append(flags, rest...)
}

// getConnTimings are the connection-level phases, paid once per origin.
type getConnTimings struct {
	dns, connect, tls time.Duration
}

// getResult is one URL's outcome.
type getResult struct {
	url    *url.URL
	proto  string
	conn   getConnTimings // zero when reused
	reused bool
	status int
	body   []byte
	size   int64
	ttfb   time.Duration
	total  time.Duration
	err    error
}

// getOriginConn is one connection to an origin and a way to send requests on it.
type getOriginConn struct {
	proto     string
	timings   getConnTimings
	roundTrip func(*http.Request) (*http.Response, error)
	multiplex bool
	close     func()
}

func getFetchAll(ctx context.Context, urls []*url.URL, o *getOptions) error {
	// Group URLs by origin, keeping first-seen order.
	var origins []string
	byOrigin := map[string][]int{}
	for i, u := range urls {
		key := u.Scheme + "://" + u.Host
		if _, ok := byOrigin[key]; !ok {
			origins = append(origins, key)
		}
		byOrigin[key] = append(byOrigin[key], i)
	}
	results := make([]*getResult, len(urls))
	var failures []string
	for _, origin := range origins {
		idx := byOrigin[origin]
		oc, err := getDialOrigin(ctx, urls[idx[0]], o)
		if err != nil {
			return fmt.Errorf("%s: %w", origin, err)
		}
		fmt.Fprintf(o.stderr, "* %s: %s, dns %s, connect %s, tls %s\n", origin, oc.proto, getMs(oc.timings.dns), getMs(oc.timings.connect), getMs(oc.timings.tls))
		var wg sync.WaitGroup
		for _, i := range idx {
			run := func() {
				results[i] = getFetchOne(ctx, oc, urls[i], o)
				// The connection's set-up is paid by the first request;
				// the others reuse it.
				if i == idx[0] {
					results[i].conn = oc.timings
				} else {
					results[i].reused = true
				}
			}
			if oc.multiplex && len(idx) > 1 {
				wg.Add(1)
				go func() { defer wg.Done(); run() }()
			} else {
				run()
			}
		}
		wg.Wait()
		oc.close()
	}
	for i, r := range results {
		if r.err != nil {
			fmt.Fprintf(o.stderr, "%s: %s error: %v\n", r.url, r.proto, r.err)
			failures = append(failures, r.url.String())
			continue
		}
		reused := ""
		if r.reused {
			reused = " (reused connection)"
		}
		fmt.Fprintf(o.stderr, "%s: %s %d, %d bytes, dns %s, connect %s, tls %s, ttfb %s, total %s%s\n",
			r.url, r.proto, r.status, r.size, getMs(r.conn.dns), getMs(r.conn.connect), getMs(r.conn.tls), getMs(r.ttfb), getMs(r.total), reused)
		if err := getWriteBody(o, i, r.body); err != nil {
			return err
		}
		if r.status < 200 || r.status > 299 {
			failures = append(failures, fmt.Sprintf("%s (status %d)", r.url, r.status))
		}
	}
	if len(failures) > 0 {
		return fmt.Errorf("%d of %d requests failed: %s", len(failures), len(urls), strings.Join(failures, ", "))
	}
	return nil
}

func getWriteBody(o *getOptions, i int, body []byte) error {
	if len(o.outputs) == 0 {
		_, err := o.stdout.Write(body)
		return err
	}
	// Write to a temporary file and rename so an interrupted run leaves no
	// half-written output behind.
	dst := o.outputs[i]
	tmp, err := os.CreateTemp(getDirOf(dst), ".spdylab-get-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(body); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

func getDirOf(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		if i == 0 {
			return "/"
		}
		return p[:i]
	}
	return "."
}

func getMs(d time.Duration) string {
	return fmt.Sprintf("%.3fms", float64(d)/float64(time.Millisecond))
}

// getDialOrigin resolves, connects and (for https) handshakes, then sets up the
// protocol the server agreed to.
func getDialOrigin(ctx context.Context, u *url.URL, o *getOptions) (*getOriginConn, error) {
	host, port := u.Hostname(), u.Port()
	if port == "" {
		port = map[string]string{"https": "443", "http": "80"}[u.Scheme]
	}
	var t getConnTimings
	start := time.Now()
	addrs, err := net.DefaultResolver.LookupHost(ctx, host)
	if err != nil {
		return nil, fmt.Errorf("resolving %s: %w", host, err)
	}
	t.dns = time.Since(start)
	start = time.Now()
	var d net.Dialer
	var raw net.Conn
	for _, a := range addrs {
		raw, err = d.DialContext(ctx, "tcp", net.JoinHostPort(a, port))
		if err == nil {
			break
		}
	}
	if err != nil {
		return nil, fmt.Errorf("connecting: %w", err)
	}
	t.connect = time.Since(start)

	var conn net.Conn = raw
	proto := o.proto
	if u.Scheme == "https" {
		offer := getProtos
		if o.proto != "" {
			offer = []string{o.proto}
		}
		tc := tls.Client(raw, &tls.Config{
			ServerName:         host,
			NextProtos:         offer,
			InsecureSkipVerify: o.insecure,
		})
		start = time.Now()
		if err := tc.HandshakeContext(ctx); err != nil {
			raw.Close()
			if o.proto != "" && strings.Contains(err.Error(), "application protocol") {
				return nil, fmt.Errorf("TLS handshake: the server does not speak %s (offered only that by ALPN): %w", o.proto, err)
			}
			var unknownCA x509.UnknownAuthorityError
			if errors.As(err, &unknownCA) {
				return nil, fmt.Errorf("TLS handshake: %w (spdylab's servers use throw-away certificates: add --insecure)", err)
			}
			return nil, fmt.Errorf("TLS handshake: %w", err)
		}
		t.tls = time.Since(start)
		got := tc.ConnectionState().NegotiatedProtocol
		switch {
		case o.proto != "" && got != o.proto && !(got == "" && o.proto == "http/1.1"):
			tc.Close()
			if got == "" {
				return nil, fmt.Errorf("ALPN mismatch: asked for %s, the server negotiated no protocol", o.proto)
			}
			return nil, fmt.Errorf("ALPN mismatch: asked for %s, the server chose %s", o.proto, got)
		case got == "":
			got = "http/1.1"
		}
		proto = got
		conn = tc
	} else if proto == "" {
		proto = "http/1.1"
	}

	oc := &getOriginConn{proto: proto, timings: t, close: func() { conn.Close() }}
	switch proto {
	case spdy.ProtoSPDY31, spdy.ProtoSPDY3:
		cfg := &spdy.ClientConfig{Config: spdy.Config{Version: proto, InitialWindowSize: o.window, SessionWindowSize: o.sessionWindow}}
		if o.verbose {
			var mu sync.Mutex
			cfg.Trace = func(sent bool, f spdy.Frame) {
				dir := "<"
				if sent {
					dir = ">"
				}
				mu.Lock()
				fmt.Fprintf(o.stderr, "%s %s\n", dir, f)
				mu.Unlock()
			}
		}
		cc, err := spdy.NewClientConn(conn, cfg)
		if err != nil {
			conn.Close()
			return nil, err
		}
		stopDrain := getDrainPushes(cc, o)
		oc.roundTrip, oc.multiplex = cc.RoundTrip, true
		oc.close = func() { stopDrain(); cc.Close() }
	case "h2":
		c := conn
		if o.verbose {
			c = newH2Tracer(conn, o.stderr)
		}
		tr := &http2.Transport{}
		cc, err := tr.NewClientConn(c)
		if err != nil {
			conn.Close()
			return nil, err
		}
		oc.roundTrip, oc.multiplex = cc.RoundTrip, true
		oc.close = func() { cc.Close() }
	case "http/1.1":
		oc.roundTrip = newGetH1Conn(conn, o).roundTrip
	default:
		conn.Close()
		return nil, fmt.Errorf("server chose %q, which spdylab get does not speak", proto)
	}
	return oc, nil
}

func getFetchOne(ctx context.Context, oc *getOriginConn, u *url.URL, o *getOptions) *getResult {
	r := &getResult{url: u, proto: oc.proto}
	var body io.Reader
	if o.hasData {
		body = bytes.NewReader(o.data)
	}
	start := time.Now()
	trace := &httptrace.ClientTrace{GotFirstResponseByte: func() { r.ttfb = time.Since(start) }}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, trace), o.method, u.String(), body)
	if err != nil {
		r.err = err
		return r
	}
	for k, v := range o.headers {
		req.Header[k] = v
	}
	if req.Header.Get("User-Agent") == "" {
		req.Header.Set("User-Agent", "spdylab-get")
	}
	resp, err := oc.roundTrip(req)
	if err != nil {
		r.err = err
		return r
	}
	defer resp.Body.Close()
	if r.ttfb == 0 {
		r.ttfb = time.Since(start)
	}
	r.status = resp.StatusCode
	r.body, err = io.ReadAll(resp.Body)
	r.size = int64(len(r.body))
	r.total = time.Since(start)
	if err != nil {
		r.err = fmt.Errorf("reading body after %d bytes: %w", len(r.body), err)
	}
	if resp.ContentLength >= 0 && resp.ContentLength != r.size && r.err == nil && req.Method != http.MethodHead {
		r.err = fmt.Errorf("body is %d bytes but Content-Length said %d", r.size, resp.ContentLength)
	}
	return r
}

// getH1Conn sends HTTP/1.1 requests one at a time over one connection.
type getH1Conn struct {
	mu   sync.Mutex
	conn net.Conn
	br   *bufio.Reader
	o    *getOptions
}

func newGetH1Conn(c net.Conn, o *getOptions) *getH1Conn {
	return &getH1Conn{conn: c, br: bufio.NewReader(c), o: o}
}

func (h *getH1Conn) roundTrip(req *http.Request) (*http.Response, error) {
	h.mu.Lock()
	if d, ok := req.Context().Deadline(); ok {
		h.conn.SetDeadline(d)
	}
	var w io.Writer = h.conn
	var dump bytes.Buffer
	if h.o.verbose {
		w = io.MultiWriter(h.conn, &dump)
	}
	if err := req.Write(w); err != nil {
		h.mu.Unlock()
		return nil, err
	}
	if h.o.verbose {
		head, _, _ := strings.Cut(dump.String(), "\r\n\r\n")
		for _, l := range strings.Split(head, "\r\n") {
			fmt.Fprintf(h.o.stderr, "> %s\n", l)
		}
	}
	resp, err := http.ReadResponse(h.br, req)
	if err != nil {
		h.mu.Unlock()
		return nil, err
	}
	if trace := httptrace.ContextClientTrace(req.Context()); trace != nil && trace.GotFirstResponseByte != nil {
		trace.GotFirstResponseByte()
	}
	if h.o.verbose {
		fmt.Fprintf(h.o.stderr, "< %s %s\n", resp.Proto, resp.Status)
		for k, vs := range resp.Header {
			for _, v := range vs {
				fmt.Fprintf(h.o.stderr, "< %s: %s\n", k, v)
			}
		}
	}
	// The connection is free for the next request once this body is read.
	resp.Body = &getUnlockOnClose{ReadCloser: resp.Body, unlock: h.mu.Unlock}
	return resp, nil
}

type getUnlockOnClose struct {
	io.ReadCloser
	once   sync.Once
	unlock func()
}

func (u *getUnlockOnClose) Close() error {
	err := u.ReadCloser.Close()
	u.once.Do(u.unlock)
	return err
}

// getDrainPushes reads every pushed response as it is announced and reports
// it on stderr. get has no cache to put pushes in, but a push nobody reads
// keeps its bytes counted against the session window, and enough of them
// would stall the responses that were asked for.
func getDrainPushes(cc *spdy.ClientConn, o *getOptions) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			for _, u := range cc.PushedURLs() {
				resp, ok := cc.Pushed(u)
				if !ok {
					continue
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					n, err := io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if err != nil {
						fmt.Fprintf(o.stderr, "* pushed %s: %d, error after %d bytes: %v\n", u, resp.StatusCode, n, err)
						return
					}
					fmt.Fprintf(o.stderr, "* pushed %s: %d, %d bytes\n", u, resp.StatusCode, n)
				}()
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() {
		close(done)
		wg.Wait()
	}
}
