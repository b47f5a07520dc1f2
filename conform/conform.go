// Package conform checks a SPDY/3.1, SPDY/3 or SPDY/2 server against the
// MUSTs of its draft (draft-mbelshe-httpbis-spdy-00 for 3 and 3.1, "SPDY
// Protocol - Draft 2" for 2) and against the attacks spdylab's own server
// was found weak to, in the spirit of h2spec: each case opens its own
// connection, sends frames by hand, and reports pass or fail with the
// section it checks and what the server sent back. A case the version's
// draft has no counterpart for is skipped, with the reason.
package conform

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/spdylab/spdylab/spdy"
)

// Options say which server to check and how to reach it.
type Options struct {
	// URL is https://host:port/ (TLS, ALPN) or http://host:port/ (plain TCP).
	URL string
	// Version is the SPDY version to speak: "spdy/3.1" (default), "spdy/3"
	// or "spdy/2" (draft 2: wire version 2, its own header dictionary and
	// 16-bit header block fields, no flow control).
	Version string
	// Plain forces plain TCP even for an https URL.
	Plain bool
	// Insecure accepts any certificate (self-signed test servers).
	Insecure bool
	// Timeout bounds each wait for the server; 0 = 5 s.
	Timeout time.Duration
	// Path is a resource the server answers with a reply; "" = "/".
	Path string
	// ServerPID is the server's process id, when the caller knows it: the
	// DoS cases then read its memory from /proc/PID/status. 0 = the memory
	// is reported as not measured (a remote server's cannot be read).
	ServerPID int
	// MemoryLimit bounds a DoS case's growth of the server's resident
	// memory, in bytes, when it is measured; 0 = DefaultMemoryLimit.
	MemoryLimit int64
	// Flood is how many frames a flood case sends; 0 = DefaultFlood.
	Flood int
	// SlowReaderBytes is how many bytes of PINGs the slow reader offers;
	// 0 = DefaultSlowReaderBytes. Less than the kernels' socket buffers
	// (loopback's send buffer grows to 4 MiB) proves nothing.
	SlowReaderBytes int
	// Only runs just the cases with these ids (all when empty).
	Only []string

	addr, host string
	wire       uint16 // o.Version's wire version
}

// oneOf is "a, b or c".
func oneOf(names []string) string {
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

func (o *Options) timeout() time.Duration {
	if o.Timeout <= 0 {
		return 5 * time.Second
	}
	return o.Timeout
}

// Result is one case's outcome. A skipped case did not run (Pass is false,
// Skip says why) and is not a failure.
type Result struct {
	ID       string `json:"id"`
	Section  string `json:"section"`
	Title    string `json:"title"`
	Version  string `json:"version"`
	Pass     bool   `json:"pass"`
	Skipped  bool   `json:"skipped,omitempty"`
	Skip     string `json:"skip,omitempty"`
	Expected string `json:"expected"`
	Received string `json:"received"`
	Error    string `json:"error,omitempty"`
	// Class names a DoS case's attack class; its verdict also needs
	// Memory within the limit (when measured) and Fresh served.
	Class string `json:"class,omitempty"`
	// Reaction is how the server met the attack: "stopped" (GOAWAY,
	// RST_STREAM or close), "kept up" (answered everything in time) or
	// "backpressure" (stopped reading), with details.
	Reaction string  `json:"reaction,omitempty"`
	Memory   *Memory `json:"memory,omitempty"`
	// Fresh is what a new connection's GET got while the attacking
	// connection was still open.
	Fresh string `json:"fresh,omitempty"`
}

// Case is one check. run returns whether the server behaved; errors are
// failures too (a connection that could not be made fails every case).
// Section, Title and Expected are SPDY/3's (spdy/3.1 and spdy/3); Draft2
// says what the case checks under spdy/2.
type Case struct {
	ID      string
	Section string // section of the SPDY/3 draft; "" for a draft-2-only case
	Skip    string // why a draft-2-only case does not apply to SPDY/3
	// Skip3 says why a case of SPDY/3.1's session window does not apply to
	// spdy/3 ("" for every other case).
	Skip3 string
	// Class is the DoS class of an attack case ("" for a MUST case): such a
	// case also checks the server's memory and a fresh connection.
	Class    string
	Title    string
	Expected string
	Draft2   Draft2
	run      func(p *peer, o *Options) (bool, error)
	rcvBuf   int // the attacking connection's receive buffer; 0 = the kernel's
}

// Draft2 places a case in "SPDY Protocol - Draft 2", which numbers no
// sections: Section is the heading the MUST is under.
type Draft2 struct {
	Section  string // heading in draft 2; "" when the case does not apply
	Skip     string // why the case does not apply to spdy/2 (Section is "")
	Title    string // when it differs from SPDY/3's
	Expected string // when it differs from SPDY/3's
}

// For returns the case's section, title and expectation under version, or
// skip, the reason it does not apply to that version.
func (c Case) For(version string) (section, title, expected, skip string) {
	if v, _ := spdy.LookupVersion(version); v.Wire != spdy.Version2 {
		if c.Skip3 != "" && !v.SessionWindow {
			return "", c.Title, c.Expected, c.Skip3
		}
		if c.Section == "" {
			return "", c.Title, c.Expected, c.Skip
		}
		return c.Section, c.Title, c.Expected, ""
	}
	d := c.Draft2
	title, expected = c.Title, c.Expected
	if d.Title != "" {
		title = d.Title
	}
	if d.Expected != "" {
		expected = d.Expected
	}
	if d.Section == "" {
		return "", title, expected, d.Skip
	}
	return "draft 2 " + d.Section, title, expected, ""
}

// Cases lists every case: those SPDY/3 and draft 2 share, in SPDY/3 section
// order, then the draft-2-only ones.
func Cases() []Case { return append([]Case(nil), cases...) }

func (o *Options) prepare() error {
	u, err := url.Parse(o.URL)
	if err != nil || u.Host == "" {
		return fmt.Errorf("conform: URL %q is not like https://host:port/", o.URL)
	}
	switch u.Scheme {
	case "https":
	case "http":
		o.Plain = true
	default:
		return fmt.Errorf("conform: URL scheme %q is not https or http", u.Scheme)
	}
	if o.Version == "" {
		o.Version = spdy.Versions[0].Proto
	}
	v, ok := spdy.LookupVersion(o.Version)
	if !ok {
		return fmt.Errorf("conform: version %q is not %s", o.Version, oneOf(spdy.VersionNames()))
	}
	o.wire = v.Wire
	o.host = u.Hostname()
	port := u.Port()
	if port == "" {
		port = map[string]string{"https": "443", "http": "80"}[u.Scheme]
	}
	o.addr = net.JoinHostPort(o.host, port)
	if o.Path == "" {
		o.Path = "/"
	}
	return nil
}

// Run runs every case against the server. The error is for bad options
// only; an unreachable server fails the cases.
func Run(ctx context.Context, o Options) ([]Result, error) {
	if err := o.prepare(); err != nil {
		return nil, err
	}
	todo, err := selectCases(o.Only)
	if err != nil {
		return nil, err
	}
	var out []Result
	for _, c := range todo {
		if ctx.Err() != nil {
			return out, ctx.Err()
		}
		out = append(out, runCase(ctx, c, &o))
	}
	return out, nil
}

// selectCases is every case, or those named by ids (each must exist).
func selectCases(ids []string) ([]Case, error) {
	if len(ids) == 0 {
		return cases, nil
	}
	var out []Case
	for _, id := range ids {
		i := slices.IndexFunc(cases, func(c Case) bool { return c.ID == id })
		if i < 0 {
			return nil, fmt.Errorf("conform: no case %q (spdylab conform --list shows them)", id)
		}
		out = append(out, cases[i])
	}
	return out, nil
}

func runCase(ctx context.Context, c Case, o *Options) Result {
	r := Result{ID: c.ID, Version: o.Version}
	r.Section, r.Title, r.Expected, r.Skip = c.For(o.Version)
	if r.Skip != "" {
		r.Skipped, r.Received = true, "not run"
		return r
	}
	if c.Class != "" {
		return runDoS(ctx, c, o, r)
	}
	p, err := dial(ctx, o, 0)
	if err != nil {
		r.Error = err.Error()
		r.Received = "no connection"
		return r
	}
	defer p.close()
	r.Pass, err = c.run(p, o)
	var nj notJudged
	if errors.As(err, &nj) {
		// The case's precondition did not hold on this server: not a
		// failure, and not a pass.
		r.Pass, r.Skipped, r.Skip = false, true, "not judged: "+string(nj)
		r.Received = p.summary()
		return r
	}
	if err != nil && !(errors.Is(err, errClosed) && r.Pass) {
		r.Pass = false
		r.Error = err.Error()
	}
	r.Received = p.summary()
	return r
}

// Failed counts failing results (skipped ones are not failures).
func Failed(rs []Result) int {
	n := 0
	for _, r := range rs {
		if !r.Pass && !r.Skipped {
			n++
		}
	}
	return n
}

// notJudged is a case's report that the server left it nothing to judge
// (a session window credited as fast as DATA came cannot be overrun): the
// result is skipped with the reason, never passed or failed.
type notJudged string

func (e notJudged) Error() string { return string(e) }

// Skipped counts results of cases that did not apply to the version, or
// that the server left nothing to judge (notJudged).
func Skipped(rs []Result) int {
	n := 0
	for _, r := range rs {
		if r.Skipped {
			n++
		}
	}
	return n
}

// Listed is a case as `conform --list` shows it under one version.
type Listed struct {
	ID       string `json:"id"`
	Section  string `json:"section,omitempty"`
	Title    string `json:"title"`
	Expected string `json:"expected"`
	Class    string `json:"class,omitempty"`
	Skip     string `json:"skip,omitempty"`
}

// List describes every case under version ("" = spdy/3.1) without
// running any.
func List(version string) ([]Listed, error) {
	if version == "" {
		version = spdy.Versions[0].Proto
	}
	if _, ok := spdy.LookupVersion(version); !ok {
		return nil, fmt.Errorf("conform: version %q is not %s", version, oneOf(spdy.VersionNames()))
	}
	out := make([]Listed, len(cases))
	for i, c := range cases {
		l := Listed{ID: c.ID, Class: c.Class}
		l.Section, l.Title, l.Expected, l.Skip = c.For(version)
		out[i] = l
	}
	return out, nil
}
