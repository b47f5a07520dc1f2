// Package conform checks a SPDY/3.1 or SPDY/3 server against the MUSTs of
// the SPDY/3 draft (draft-mbelshe-httpbis-spdy-00) and against the attacks
// spdylab's own server was found weak to, in the spirit of h2spec: each
// case opens its own connection, sends frames by hand, and reports pass or
// fail with the section it checks and what the server sent back.
package conform

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"time"
)

// Options say which server to check and how to reach it.
type Options struct {
	// URL is https://host:port/ (TLS, ALPN) or http://host:port/ (plain TCP).
	URL string
	// Version is the SPDY version to speak: "spdy/3.1" (default) or "spdy/3".
	Version string
	// Plain forces plain TCP even for an https URL.
	Plain bool
	// Insecure accepts any certificate (self-signed test servers).
	Insecure bool
	// Timeout bounds each wait for the server; 0 = 5 s.
	Timeout time.Duration
	// Path is a resource the server answers with a reply; "" = "/".
	Path string

	addr, host string
}

func (o *Options) timeout() time.Duration {
	if o.Timeout <= 0 {
		return 5 * time.Second
	}
	return o.Timeout
}

// Result is one case's outcome.
type Result struct {
	ID       string `json:"id"`
	Section  string `json:"section"`
	Title    string `json:"title"`
	Version  string `json:"version"`
	Pass     bool   `json:"pass"`
	Expected string `json:"expected"`
	Received string `json:"received"`
	Error    string `json:"error,omitempty"`
}

// Case is one check. run returns whether the server behaved; errors are
// failures too (a connection that could not be made fails every case).
type Case struct {
	ID       string
	Section  string
	Title    string
	Expected string
	run      func(p *peer, o *Options) (bool, error)
}

// Cases lists every case, in spec order.
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
	switch o.Version {
	case "":
		o.Version = "spdy/3.1"
	case "spdy/3.1", "spdy/3":
	default:
		return fmt.Errorf("conform: version %q is not spdy/3.1 or spdy/3", o.Version)
	}
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
	var out []Result
	for _, c := range cases {
		if ctx.Err() != nil {
			return out, ctx.Err()
		}
		out = append(out, runCase(ctx, c, &o))
	}
	return out, nil
}

func runCase(ctx context.Context, c Case, o *Options) Result {
	r := Result{ID: c.ID, Section: c.Section, Title: c.Title, Version: o.Version, Expected: c.Expected}
	p, err := dial(ctx, o)
	if err != nil {
		r.Error = err.Error()
		r.Received = "no connection"
		return r
	}
	defer p.close()
	r.Pass, err = c.run(p, o)
	if err != nil && !(errors.Is(err, errClosed) && r.Pass) {
		r.Pass = false
		r.Error = err.Error()
	}
	r.Received = p.summary()
	return r
}

// Failed counts failing results.
func Failed(rs []Result) int {
	n := 0
	for _, r := range rs {
		if !r.Pass {
			n++
		}
	}
	return n
}
