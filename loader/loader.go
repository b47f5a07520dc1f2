// Package loader loads a page the way a browser of the SPDY era (Chrome 16,
// Chromium 25) did on the wire, over HTTPS (HTTP/1.1 with up to six
// persistent connections per host), SPDY (one session per host, or
// Options.Sessions of them spread by a policy) or HTTP/2,
// and measures it: page load time, time on wire, bytes, header bytes, the
// HAR 1.2 waterfall and TCP_INFO of every connection.
//
// The page manifest says what must be fetched; the bytes decide when. The
// root document (and every HTML or CSS resource) is tokenized while it
// arrives and each reference is requested the moment its bytes have been
// parsed, in document order, as a browser's preload scanner does. Resources
// the manifest says are requested after a parent completes (script
// execution, onload) are requested then, after their compute delay.
//
// Every load starts cold: new connections, new DNS lookups, full TLS
// handshakes, no cache. Nothing is shared between loads. With
// Options.TLSResume a host's later connections within the load resume the
// session its first handshake left (tls.go says how the cache is seeded);
// only Options.SessionCache, kept by the caller, carries tickets from one
// load to the next (a repeat visit).
package loader

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/spdylab/spdylab/har"
	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
)

// Load performs one cold page load. The returned Result carries the HAR and
// every metric measured. When the load fails (a server misbehaves, a
// resource is missing, the timeout passes) the error names the resource at
// fault, Result.Failed and Result.Error say the same, and Result holds the
// partial HAR and timings. Invalid targets or options return an error
// before anything is sent.
func Load(ctx context.Context, t Target, o Options) (probe.Result, error) {
	l, err := newLoad(t, o)
	if err != nil {
		return probe.Result{Failed: true, Error: err.Error()}, err
	}
	return l.run(ctx)
}

type load struct {
	opt    Options
	m      *page.Manifest
	tlsVer uint16

	ctx    context.Context
	cancel context.CancelCauseFunc

	origins  map[string]origin
	resolver *resolver
	dialer   *dialer
	proto    protocol
	https    map[string]bool // hosts that keep HTTPS (Options.HTTPSHosts, lower case)
	throttle *throttle
	spread   *spreader
	dispatch *dispatcher
	style    *styleGate
	order    *scriptOrder
	// paintText is when the document's first visible text was scanned
	// (paint.go).
	paintText firstText
	wire      wireCounter
	sessions  tls.ClientSessionCache // nil = no resumption
	hs        handshakes

	t0 time.Time // navigation start

	byKey map[string]*page.Resource // host+path -> manifest resource

	mu           sync.Mutex
	conns        []*connection
	closed       bool // no new connections may be registered
	entries      []*entry
	requested    map[string]*entry
	found        map[int]bool // manifest resources referenced by their parent's bytes
	pending      int
	allDone      chan struct{}
	err          error  // the first failure; it cancels the load
	mismatch     error  // the page's bytes do not match the manifest; reported at the end
	openAtCancel string // what was in flight when the load was cancelled
	problems     []string
	wg           sync.WaitGroup
}

func newLoad(t Target, o Options) (*load, error) {
	if t.Manifest == nil || len(t.Manifest.Resources) == 0 {
		return nil, errors.New("loader: target has no manifest or the manifest has no resources")
	}
	if err := t.Manifest.Validate(); err != nil {
		return nil, fmt.Errorf("loader: invalid manifest: %w", err)
	}
	if err := probe.CheckProtocol(o.Proto); err != nil {
		return nil, fmt.Errorf("loader: %w", err)
	}
	ver, err := tlsVersion(probe.LoadTLS(o.Proto, o.TLSVersion)) // h3: QUIC's 1.3
	if err != nil {
		return nil, fmt.Errorf("loader: %w", err)
	}
	if err := checkPlaintext(o); err != nil {
		return nil, fmt.Errorf("loader: %w", err)
	}
	if p, _ := probe.LookupProtocol(o.Proto); o.EarlyData && !p.EarlyData {
		return nil, fmt.Errorf("loader: early data (0-RTT) needs %s: Go's crypto/tls has no client 0-RTT over TCP, so %s cannot send it", probe.OneOf(probe.EarlyDataProtocols()), o.Proto)
	}
	if o.Priority != "" && !slices.Contains(probe.PriorityPolicies, o.Priority) {
		return nil, fmt.Errorf("loader: unknown priority policy %q (want %s)", o.Priority, probe.OneOf(probe.PriorityPolicies))
	}
	if o.HelloPadding < 0 || o.HelloPadding > MaxHelloPadding {
		return nil, fmt.Errorf("loader: hello padding %d bytes out of range (0-%d)", o.HelloPadding, MaxHelloPadding)
	}
	if o.MaxConnsPerHost < 0 {
		return nil, fmt.Errorf("loader: MaxConnsPerHost %d is negative", o.MaxConnsPerHost)
	}
	if o.MaxConnsPerHost == 0 {
		o.MaxConnsPerHost = DefaultMaxConnsPerHost
	}
	if o.InitialWindow < 0 || o.InitialWindow > 1<<31-1 {
		return nil, fmt.Errorf("loader: initial window %d out of range", o.InitialWindow)
	}
	if o.Timeout < 0 {
		return nil, fmt.Errorf("loader: timeout %v is negative", o.Timeout)
	}
	if o.Timeout == 0 {
		o.Timeout = DefaultTimeout
	}
	l := &load{
		opt:       o,
		m:         t.Manifest,
		tlsVer:    ver,
		origins:   map[string]origin{},
		resolver:  &resolver{r: o.Resolver, m: map[string]*lookup{}},
		byKey:     map[string]*page.Resource{},
		requested: map[string]*entry{},
		found:     map[int]bool{},
		allDone:   make(chan struct{}),
		sessions:  newSessionCache(o),
	}
	for _, h := range t.Manifest.Hosts {
		base, ok := t.BaseURLs[h]
		if !ok {
			return nil, fmt.Errorf("loader: no base URL for host %s (Target.BaseURLs has %s)", h, keys(t.BaseURLs))
		}
		org, err := parseOrigin(h, base)
		if err != nil {
			return nil, fmt.Errorf("loader: %w", err)
		}
		if org.Plain != (ver == 0) {
			return nil, fmt.Errorf("loader: %w", plainMismatch(h, base, ver == 0))
		}
		l.origins[h] = org
	}
	for i := range t.Manifest.Resources {
		r := &t.Manifest.Resources[i]
		l.byKey[resourceKey(r.Host, r.Target())] = r
	}
	if l.spread, err = sessionSpreader(o); err != nil {
		return nil, fmt.Errorf("loader: %w", err)
	}
	if l.https, err = httpsHostSet(o.HTTPSHosts, t.Manifest.Hosts); err != nil {
		return nil, fmt.Errorf("loader: %w", err)
	}
	l.dialer = newDialer(l, o)
	l.throttle = newThrottle(o.Throttle, o.Proto)
	l.dispatch = &dispatcher{cost: o.Renderer.DispatchCost, batch: o.Renderer.BatchSends}
	l.style = &styleGate{on: o.StyleAfterScripts}
	l.order = newScriptOrder(o.ScriptsAwaitStyles)
	switch o.Proto {
	case probe.ProtoHTTPS:
		l.proto = newH1(l)
	case probe.ProtoH2:
		l.proto = newH2(l)
	case probe.ProtoH3:
		l.proto = newH3(l)
	case probe.ProtoSPDY31SCTP:
		l.proto = newSPDYSCTP(l)
	default:
		l.proto = newSPDY(l, o.Proto)
	}
	l.proto = newSplit(l, l.proto)
	return l, nil
}

func keys(m map[string]string) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	if len(ks) == 0 {
		return "no hosts"
	}
	return strings.Join(ks, ", ")
}

func resourceKey(host, path string) string { return strings.ToLower(host) + path }

// urlKey identifies a URL for de-duplication and manifest lookup.
func urlKey(u *url.URL) string {
	p := u.EscapedPath()
	if p == "" {
		p = "/"
	}
	if u.RawQuery != "" {
		p += "?" + u.RawQuery
	}
	return resourceKey(u.Hostname(), p)
}

// protocol is how requests reach servers: HTTPS's connection pools, or one
// multiplexed session per host.
type protocol interface {
	// fetch performs e's exchange, passing the response body to body, and
	// fills e's timings and headers. It returns when the body has been
	// consumed or the exchange failed.
	fetch(ctx context.Context, e *entry, body func(io.Reader) (int64, error)) error
	// pushed returns a response the server pushed for e's URL, if any.
	pushed(e *entry) (*http.Response, *connection, bool)
	// headerBytes reports raw and compressed header bytes of the whole load.
	headerBytes() (raw, compressed int64)
	// shutdown closes the sessions politely (GOAWAY) after a completed load.
	shutdown()
}

// entry is one resource's exchange, and later its HAR entry.
type entry struct {
	url      *url.URL
	key      string
	res      *page.Resource // nil: referenced but not in the manifest
	typ      string
	priority uint8
	seq      int // discovery order, breaks priority ties
	session  int // which of its host's SPDY/h2 sessions carries it (spread.go)
	// large: the demand policy counts e on its session (spread.go); under
	// the load's lock.
	large bool
	// admission is e's place in the request scheduler (throttle.go),
	// taken as e is discovered; nil when nothing holds e back.
	admission *throttleWait
	parent    *entry
	async     bool // a script that does not block DOMContentLoaded
	headers   HeaderSet

	mu          sync.Mutex
	queued      time.Time // the browser decided to request it (HAR startedDateTime)
	conn        *connection
	setup       bool // this request carries conn's dns/connect/ssl phases
	sendStart   time.Time
	sendEnd     time.Time
	firstByte   time.Time
	end         time.Time
	reqHeaders  []har.NameValue
	reqHdrSize  int64
	status      int
	statusText  string
	respHeaders []har.NameValue
	respHdrSize int64
	bodyBytes   int64 // content (decoded) bytes
	wireBody    int64 // body bytes as transferred (before Content-Encoding is undone)
	mime        string
	pushed      bool
	retries     int // times sent again after the server did not process it
	done        bool
	err         error
}

func (l *load) run(parent context.Context) (probe.Result, error) {
	cause := fmt.Errorf("the page load exceeded its %v timeout", l.opt.Timeout)
	tctx, tcancel := context.WithTimeoutCause(parent, l.opt.Timeout, cause)
	defer tcancel()
	l.ctx, l.cancel = context.WithCancelCause(tctx)
	defer l.cancel(errLoadDone)

	// Cancellation (failure, timeout, caller) must unblock every read:
	// closing the sockets does that whatever the protocol stack is doing.
	stopWatch := make(chan struct{})
	watchDone := make(chan struct{})
	go func() {
		defer close(watchDone)
		select {
		case <-l.ctx.Done():
			// Note what was still open before closing the sockets turns
			// every open exchange into a read error.
			open := l.incomplete()
			l.mu.Lock()
			l.openAtCancel = open
			l.mu.Unlock()
			l.closeAll()
		case <-stopWatch:
		}
	}()

	l.t0 = time.Now()
	root := l.m.Root()
	rootURL, _ := url.Parse(l.m.URL(0))
	rootEntry := &entry{url: rootURL, key: urlKey(rootURL), res: root, typ: root.Type}
	rootEntry.priority = l.priorityFor(rootEntry)
	l.request(rootEntry)

	select {
	case <-l.allDone:
	case <-l.ctx.Done():
	}
	var tcp []probe.TCPInfo
	if l.ctx.Err() == nil {
		// Read TCP_INFO while the connections are still open.
		tcp = l.tcpInfos()
		l.proto.shutdown()
	}
	close(stopWatch)
	<-watchDone
	l.cancel(errLoadDone)
	l.closeAll()
	l.wg.Wait()
	return l.result(l.counted(tcp))
}

// request schedules e now. It runs the exchange on its own goroutine.
func (l *load) request(e *entry) {
	l.mu.Lock()
	if _, dup := l.requested[e.key]; dup || l.ctx.Err() != nil {
		l.mu.Unlock()
		return
	}
	e.seq = len(l.entries)
	e.queued = time.Now()
	e.headers = l.opt.Headers
	l.requested[e.key] = e
	l.entries = append(l.entries, e)
	l.pending++
	l.wg.Add(1)
	// Under l.mu, so that requests reach the scheduler in discovery order.
	e.admission = l.throttle.enqueue(e)
	e.session, e.large = l.spread.assign(e.url.Hostname(), e.typ, e.url.Path, e.priority)
	l.mu.Unlock()
	go l.exchange(e)
}

// later schedules e after delay (compute time), keeping the load open.
func (l *load) later(e *entry, delay time.Duration) {
	if delay <= 0 {
		l.request(e)
		return
	}
	l.mu.Lock()
	l.pending++
	l.wg.Add(1)
	l.mu.Unlock()
	go func() {
		defer l.wg.Done()
		t := time.NewTimer(delay)
		defer t.Stop()
		select {
		case <-t.C:
			l.request(e)
		case <-l.ctx.Done():
		}
		l.finishOne()
	}()
}

func (l *load) finishOne() {
	l.mu.Lock()
	l.pending--
	if l.pending == 0 {
		close(l.allDone)
	}
	l.mu.Unlock()
}

// fail records the load's first failure and cancels it. Failures after
// cancellation are consequences, not causes, and are kept per entry only.
func (l *load) fail(err error) {
	l.mu.Lock()
	if l.err == nil && l.ctx.Err() == nil {
		l.err = err
	}
	l.mu.Unlock()
	l.cancel(err)
}

func (l *load) exchange(e *entry) {
	defer l.wg.Done()
	defer l.finishOne()
	release, err := l.throttle.wait(l.ctx, e.admission)
	if err == nil {
		err = l.exchangeBody(e)
		release()
	}
	if l.spread.demanding() {
		l.mu.Lock()
		l.spread.finished(e.url.Hostname(), e.session, e.large)
		l.mu.Unlock()
	}
	e.mu.Lock()
	if e.end.IsZero() {
		e.end = time.Now()
	}
	e.done = err == nil
	e.err = err
	e.mu.Unlock()
	if err != nil {
		if l.ctx.Err() != nil {
			return
		}
		l.fail(fmt.Errorf("%s: %w", e.url, err))
		return
	}
	l.completed(e)
}

func (l *load) exchangeBody(e *entry) error {
	host := e.url.Hostname()
	if _, ok := l.origins[host]; !ok {
		return fmt.Errorf("host %s is not one of the page's hosts %v", host, l.m.Hosts)
	}
	consume := l.bodyConsumer(e)
	if resp, c, ok := l.proto.pushed(e); ok {
		return l.usePushed(e, resp, c, consume)
	}
	if err := l.proto.fetch(l.ctx, e, consume); err != nil {
		return err
	}
	return l.checkResponse(e)
}

// checkResponse holds the response against the manifest.
func (l *load) checkResponse(e *entry) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if want := wantStatus(e.res); e.status != want {
		return fmt.Errorf("status %d %s, want %d", e.status, e.statusText, want)
	}
	if e.res != nil && e.bodyBytes != int64(e.res.Size) {
		return fmt.Errorf("got %d body bytes, the manifest says %d", e.bodyBytes, e.res.Size)
	}
	return nil
}

// wantStatus is the status a resource must answer: 200, or the one its
// recording had (a redirect, an error page).
func wantStatus(r *page.Resource) int {
	if r == nil {
		return http.StatusOK
	}
	return r.StatusCode()
}

// bodyConsumer reads a response body: documents and stylesheets are scanned
// for references as they arrive, everything else is drained.
func (l *load) bodyConsumer(e *entry) func(io.Reader) (int64, error) {
	found := func(ref reference) { l.discovered(e, ref) }
	switch e.typ {
	case page.TypeHTML:
		var text func(int)
		if e.res != nil && e.res.ID == l.documentID() {
			text = func(offset int) { l.paintText.seen(offset) }
		}
		if e.parent == nil && l.opt.Renderer.CommitDelay > 0 {
			return func(r io.Reader) (int64, error) {
				return scanHTMLText(&commitReader{ctx: l.ctx, r: r, delay: l.opt.Renderer.CommitDelay}, e.url, found, text)
			}
		}
		return func(r io.Reader) (int64, error) { return scanHTMLText(r, e.url, found, text) }
	case page.TypeCSS:
		return func(r io.Reader) (int64, error) { return scanCSS(r, e.url, found) }
	}
	return func(r io.Reader) (int64, error) { return io.Copy(io.Discard, r) }
}

// usePushed takes a response the server pushed instead of sending a request.
func (l *load) usePushed(e *entry, resp *http.Response, c *connection, consume func(io.Reader) (int64, error)) error {
	defer resp.Body.Close()
	e.mu.Lock()
	e.pushed = true
	e.conn = c
	e.status = resp.StatusCode
	e.statusText = statusText(resp)
	e.respHeaders = har.Headers(resp.Header)
	e.respHdrSize = -1
	e.mime = resp.Header.Get("Content-Type")
	now := time.Now()
	e.sendStart, e.sendEnd, e.firstByte = now, now, now
	e.mu.Unlock()
	if err := readBody(e, resp.Header.Get("Content-Encoding"), resp.Body, consume); err != nil {
		return fmt.Errorf("reading the pushed response: %w", err)
	}
	e.mu.Lock()
	e.end = time.Now()
	e.mu.Unlock()
	return l.checkResponse(e)
}

func statusText(resp *http.Response) string {
	s := resp.Status
	if i := strings.IndexByte(s, ' '); i >= 0 {
		return s[i+1:]
	}
	return http.StatusText(resp.StatusCode)
}

// track registers a new connection; false once the load is over.
func (l *load) track(c *connection) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed || l.ctx.Err() != nil {
		return false
	}
	c.id = len(l.conns) + 1
	l.conns = append(l.conns, c)
	return true
}

// closeAll closes every connection of the load and refuses new ones.
func (l *load) closeAll() {
	l.mu.Lock()
	l.closed = true
	conns := append([]*connection(nil), l.conns...)
	l.mu.Unlock()
	for _, c := range conns {
		c.Close()
	}
}

// connectionsOpened counts the load's connections but those that lost a
// race for a host's session (Options.RaceConnects): a browser's HAR does
// not show Chromium's cancelled connect jobs either.
func (l *load) connectionsOpened() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, c := range l.conns {
		if !c.abandoned.Load() {
			n++
		}
	}
	return n
}
