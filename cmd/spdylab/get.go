package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spdylab/spdylab/client"
	"github.com/spdylab/spdylab/internal/atomicfile"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/spdy"
)

func init() {
	register(command{
		name:     "get",
		summary:  "fetch URLs over https (HTTP/1.1), spdy/3.1, spdy/3, spdy/2, h2 or h3 (curl-like, one connection per origin)",
		synopsis: "spdylab get [flags] URL...",
		examples: []string{
			"spdylab get -k https://127.0.0.1:8443/index.html",
			"spdylab get -k --proto spdy/3.1 -v -o a.html -o b.css https://127.0.0.1:8443/a.html https://127.0.0.1:8443/b.css",
		},
		run: runGet,
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
	spdy2Windows  spdy.SPDY2Windows
	stdout        io.Writer
	stderr        io.Writer
}

// runGet is `spdylab get`: flags in, one client.Get call, output out. It
// has the (args, stdout, stderr) signature every command takes after the
// r9core branch; until that merge, init adapts it.
func runGet(args []string, stdout, stderr io.Writer) int {
	o, urls, status := getParseFlags(args, stderr)
	if o == nil {
		return status
	}
	o.stdout, o.stderr = stdout, stderr
	ctx, cancel := context.WithTimeout(context.Background(), o.timeout)
	defer cancel()
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := getRun(ctx, urls, o); err != nil {
		fmt.Fprintf(stderr, "spdylab get: %v\n", err)
		return 1
	}
	return 0
}

// getParseFlags parses and checks the command line; a nil result comes with
// the exit status (0 for -h, 2 for bad usage, already explained on stderr).
func getParseFlags(args []string, stderr io.Writer) (*getOptions, []*url.URL, int) {
	fs := flag.NewFlagSet("get", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o getOptions
	var outputs, hdrs getFlagList
	var data string
	fs.StringVar(&o.proto, "proto", "", "protocol to insist on: "+probe.OneOf(getProtocols())+" ("+probe.AliasHelp()+"; default: offer all over TLS and use what the server picks; https (HTTP/1.1) for http:// URLs)")
	fs.BoolVar(&o.insecure, "insecure", false, "accept any server certificate (the lab's throw-away certificates)")
	fs.BoolVar(&o.insecure, "k", false, "short for --insecure")
	fs.Var(&outputs, "o", "write the body to `FILE` instead of stdout; give once per URL")
	fs.BoolVar(&o.verbose, "v", false, "trace frames (SPDY, h2) or headers (http/1.1) on stderr")
	fs.StringVar(&data, "data", "", "request body: @FILE reads a file, anything else is sent as is; makes the method POST")
	fs.StringVar(&o.method, "X", "", "request method (default GET, or POST with --data)")
	fs.Var(&hdrs, "H", "extra request header `Name: value` (repeatable)")
	durationVar(fs, &o.timeout, "timeout", 60*time.Second, "s", "give up after this long")
	window := fs.Int("initial-window", 0, "SPDY and h2 per-stream receive window in bytes (0 = the protocol default: 64 KiB for SPDY, Chrome's 6 MiB for h2)")
	// Chrome opened a 10 MiB session window on every SPDY/3.1 session; so
	// do we. It also tells a plain-TCP server (which has no ALPN to tell 3
	// from 3.1) at once that this session uses session flow control.
	sessionWindow := fs.Int("session-window", 10<<20, "SPDY/3.1 session receive window in bytes (64 KiB to 2^31-1)")
	var spdy2Win spdy2WindowsFlag
	spdy2Win.register(fs)
	setHelp(fs, "Fetches every URL, several URLs of one origin over one connection\n(concurrently when the protocol multiplexes). Per URL it prints the\nnegotiated protocol, status, size and timings on stderr; bodies go to\nstdout (in URL order) or to -o files.")
	if err := parseFlags(fs, getReorderFlags(fs, args)); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, nil, 0
		}
		return nil, nil, 2
	}
	fail := func(format string, a ...any) (*getOptions, []*url.URL, int) {
		fmt.Fprintf(stderr, "spdylab get: "+format+"\n", a...)
		return nil, nil, 2
	}
	if fs.NArg() == 0 {
		return fail("no URL given")
	}
	if o.proto != "" {
		alpn, err := getALPN(o.proto)
		if err != nil {
			return fail("--proto %q: %v", o.proto, err)
		}
		o.proto = alpn
	}
	if len(outputs) > 0 && len(outputs) != fs.NArg() {
		return fail("%d -o files for %d URLs: give one -o per URL or none", len(outputs), fs.NArg())
	}
	if *window < 0 || *window > 1<<31-1 {
		return fail("--initial-window %d out of range", *window)
	}
	o.window = int32(*window)
	if *sessionWindow < 65536 || *sessionWindow > 1<<31-1 {
		return fail("--session-window %d out of range (65536 to 2147483647)", *sessionWindow)
	}
	o.sessionWindow = int32(*sessionWindow)
	o.spdy2Windows = spdy2Win.mode
	o.outputs = outputs
	if err := o.setRequest(data, hdrs); err != nil {
		return fail("%v", err)
	}
	urls, err := getParseURLs(fs.Args(), o.proto)
	if err != nil {
		return fail("%v", err)
	}
	return &o, urls, 0
}

// getProtocols are the lab's protocols (probe.Protocols' names) that get
// speaks: those over TCP or QUIC whose ALPN the client knows.
func getProtocols() []string {
	var names []string
	for _, p := range probe.Protocols {
		if p.Transport != probe.TransportSCTP && client.Known(p.ALPN) {
			names = append(names, p.Name)
		}
	}
	return names
}

// getALPN is the ALPN token the client insists on for a protocol written
// as every command takes it (probe.ParseProtocol: a name or an alias).
func getALPN(proto string) (string, error) {
	p, err := probe.ParseProtocol(proto)
	switch {
	case err != nil:
		return "", fmt.Errorf("unknown protocol (want %s)", probe.OneOf(getProtocols()))
	case !slices.Contains(getProtocols(), p.Name):
		return "", fmt.Errorf("get does not speak %s (want %s)", p.Name, probe.OneOf(getProtocols()))
	}
	return p.ALPN, nil
}

// setRequest fills the request body, method and header from the flags.
func (o *getOptions) setRequest(data string, hdrs []string) error {
	if data != "" {
		o.hasData = true
		if strings.HasPrefix(data, "@") {
			b, err := os.ReadFile(data[1:])
			if err != nil {
				return fmt.Errorf("--data: %v", err)
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
			return fmt.Errorf("-H %q is not \"Name: value\"", h)
		}
		o.headers.Add(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	return nil
}

// getParseURLs checks every URL: https or http, a host, no h3 over plain
// TCP (h2 on an http:// URL is h2c with prior knowledge).
func getParseURLs(raw []string, proto string) ([]*url.URL, error) {
	parsed := make([]*url.URL, len(raw))
	for i, r := range raw {
		u, err := url.Parse(r)
		if err != nil {
			return nil, fmt.Errorf("bad URL %q: %v", r, err)
		}
		if u.Scheme != "https" && u.Scheme != "http" {
			return nil, fmt.Errorf("URL %q: scheme must be https or http", r)
		}
		if u.Host == "" {
			return nil, fmt.Errorf("URL %q has no host", r)
		}
		if u.Scheme == "http" && proto == client.ProtoH3 {
			return nil, fmt.Errorf("URL %q: h3 has no plaintext (QUIC always encrypts); use https", r)
		}
		parsed[i] = u
	}
	return parsed, nil
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

// getRun fetches the URLs through the client package and prints what
// happened: one line per origin as it connects, one per URL at the end,
// bodies to stdout (URL order) or the -o files.
func getRun(ctx context.Context, urls []*url.URL, o *getOptions) error {
	// Frame traces and push reports come from the connections' goroutines.
	o.stderr = &getLockedWriter{w: o.stderr}
	dial := client.DialOptions{
		Proto: o.proto, Insecure: o.insecure,
		StreamWindow: o.window, SessionWindow: o.sessionWindow, SPDY2Windows: o.spdy2Windows,
		OnPushed: func(u string, status int, n int64, err error) {
			if err != nil {
				fmt.Fprintf(o.stderr, "* pushed %s: %d, error after %d bytes: %v\n", u, status, n, err)
				return
			}
			fmt.Fprintf(o.stderr, "* pushed %s: %d, %d bytes\n", u, status, n)
		},
	}
	if o.verbose {
		dial.Trace = func(line string) { fmt.Fprintln(o.stderr, line) }
	}
	req := client.GetRequest{Method: o.method, Header: o.headers}
	if o.hasData {
		req.Body = o.data
	}
	results, err := client.Get(ctx, urls, req, dial, func(origin string, c *client.Conn) {
		t := c.Timings
		fmt.Fprintf(o.stderr, "* %s: %s, dns %s, connect %s, tls %s\n", origin, c.Proto, getMs(t.DNS), getMs(t.Connect), getMs(t.TLS))
	})
	if err != nil {
		return err
	}
	var failures []string
	for i, r := range results {
		if r.Err != nil {
			fmt.Fprintf(o.stderr, "%s: %s error: %v\n", r.URL, r.Proto, r.Err)
			failures = append(failures, r.URL.String())
			continue
		}
		reused := ""
		if r.Reused {
			reused = " (reused connection)"
		}
		fmt.Fprintf(o.stderr, "%s: %s %d, %d bytes, dns %s, connect %s, tls %s, ttfb %s, total %s%s\n",
			r.URL, r.Proto, r.Status, len(r.Body), getMs(r.Conn.DNS), getMs(r.Conn.Connect), getMs(r.Conn.TLS), getMs(r.TTFB), getMs(r.Total), reused)
		if err := getWriteBody(o, i, r.Body); err != nil {
			return err
		}
		if r.Status < 200 || r.Status > 299 {
			failures = append(failures, fmt.Sprintf("%s (status %d)", r.URL, r.Status))
		}
	}
	if len(failures) > 0 {
		return fmt.Errorf("%d of %d requests failed: %s", len(failures), len(urls), strings.Join(failures, ", "))
	}
	return nil
}

// getLockedWriter serialises writes from several goroutines.
type getLockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *getLockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// getWriteBody writes a body to stdout (no -o, or -o -) or to its -o path
// through atomicfile: a file whole or not at all, a device or FIFO directly.
func getWriteBody(o *getOptions, i int, body []byte) error {
	if len(o.outputs) == 0 || o.outputs[i] == atomicfile.Stdout {
		_, err := o.stdout.Write(body)
		return err
	}
	return atomicfile.Write(o.outputs[i], body)
}

func getMs(d time.Duration) string {
	return fmt.Sprintf("%.3fms", float64(d)/float64(time.Millisecond))
}
