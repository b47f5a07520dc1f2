// Package browser loads a page with real headless Chromium, driven over the
// DevTools protocol, and reports the load the way spdylab's loader does: a
// probe.Result with PLT and ToW by the loader's definitions and a HAR 1.2
// built from the DevTools events (initiators, priorities, connection ids,
// protocol).
//
// Each load starts a fresh Chromium with a throw-away profile (cache off,
// network prediction off, only the given certificates' keys trusted, names
// resolved as the caller says) in the caller's namespace or in a testbed
// host's (Options.Host), and kills its whole process group afterwards.
package browser

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
)

// Options describe one browser load.
type Options struct {
	// URL is the page. Required.
	URL string
	// Host runs Chromium (a *netem.Host: inside the client namespace, with
	// the testbed's /etc/hosts and resolv.conf). nil = this namespace.
	Host Commander
	// Proto: probe.ProtoHTTPS (HTTP/1.1 only), probe.ProtoH2, probe.ProtoH3, or
	// "" for Chromium's own choice over TCP. SPDY gives ErrSPDYUnsupported.
	Proto string
	// TLSVersion "1.2" or "1.3" is checked against what each connection
	// negotiated: Chromium can no longer be capped at TLS 1.2 (the switch
	// went away in Chrome 75), so a 1.2 condition needs servers capped at
	// 1.2 and the load fails, naming the version seen, when they were not.
	// "" = no check.
	TLSVersion string
	// Resolve maps host names to addresses ("10.200.1.2", or
	// "127.0.0.2:4431" to also replace the port) with
	// --host-resolver-rules; every other name then fails to resolve. nil =
	// Chromium resolves through the namespace (testbed DNS across the link,
	// or its /etc/hosts).
	Resolve map[string]string
	// TrustCerts are accepted by their public key
	// (--ignore-certificate-errors-spki-list): a lab CA or self-signed
	// server certificates. Other certificate errors still fail the load.
	TrustCerts []*x509.Certificate
	// Manifest, when set, is the page being loaded: the load ends when each
	// of its resources finished, and Result.Resources counts them. nil
	// (recording an unknown page): the load ends Settle after onload once
	// no request is in flight.
	Manifest *page.Manifest
	// Timeout bounds the load; 0 = 60 s.
	Timeout time.Duration
	// TraceMainThread traces Chromium's renderer main thread during the
	// load (trace.go): the result's MainThread intervals, the critical
	// path's compute evidence. It costs each load seconds of wall time
	// (Tracing.start and the trace's flush), not PLT.
	TraceMainThread bool
	// SpeedIndex records the page's screencast frames during the load and
	// stores its Speed Index beside FCP and LCP (Result.Paint, which every
	// load has). The frames cost each load wall time, not PLT.
	SpeedIndex bool
	// Settle is how long the network must stay quiet after onload before
	// a load without a manifest ends; 0 = 1 s. A load with a manifest
	// whose resources are not all finished ends after Settle plus the
	// manifest's longest discovery delay of quiet (pageTimers).
	Settle time.Duration
	// Binary is the Chromium to run; "" = FindBinary's choice.
	Binary string
	// Profile are browser knobs (user agent, window, extra flags).
	Profile Profile
	// RepeatView makes the load a repeat view (view.go): the same Chromium
	// first loads the page in a tab of its own, unmeasured, and the
	// measured load in a new tab reuses its TLS sessions (and QUIC's 0-RTT
	// state) on new connections with an empty cache. BetweenViews, when
	// set, runs between the two views: it must close every connection
	// from the servers' side (DevTools cannot close Chromium's sockets).
	// MeasuredView, when set, runs once Chromium saw them closed, just
	// before the measured view (the caller's counters start there).
	RepeatView   bool
	BetweenViews func(context.Context) error
	MeasuredView func() error
	// HTTPSHosts keep HTTPS: h3 is not forced on them (their servers offer
	// http/1.1 alone by ALPN, so Chromium speaks HTTP/1.1 to them).
	HTTPSHosts []string
}

// DefaultTimeout bounds a load when Options.Timeout is 0.
const DefaultTimeout = 60 * time.Second

// DefaultSettle is Options.Settle's default.
const DefaultSettle = time.Second

// namedCause makes sure an error that came from the load's context ending
// (a DevTools write that hit the deadline, say) names why it ended: the
// timeout, or the caller's cause.
func namedCause(lctx context.Context, err error) error {
	if err == nil || lctx.Err() == nil {
		return err
	}
	cause := context.Cause(lctx)
	if cause == nil || strings.Contains(err.Error(), cause.Error()) {
		return err
	}
	return fmt.Errorf("browser: %v, while: %w", cause, err)
}

// Load loads o.URL once with a fresh Chromium. A failed load (Chromium
// missing or crashing, certificate or connection errors, no onload before
// the timeout, the DevTools pipe closing) returns the error and a Result
// with Failed, Error and whatever HAR was collected. Chromium and its
// profile are gone when Load returns.
func Load(ctx context.Context, o Options) (probe.Result, error) {
	res := probe.Result{Started: time.Now()}
	res.Condition.Proto = o.Proto
	res.Condition.TLS = o.TLSVersion
	fail := func(err error) (probe.Result, error) {
		res.Failed, res.Error = true, err.Error()
		return res, err
	}
	if err := o.check(); err != nil {
		return fail(err)
	}
	args, err := chromiumFlags(&o)
	if err != nil {
		return fail(err)
	}
	bin, err := FindBinary(o.Binary)
	if err != nil {
		return fail(err)
	}
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	lctx, cancel := context.WithTimeoutCause(ctx, timeout, fmt.Errorf("page did not finish within %v", timeout))
	defer cancel()
	cmdr := o.Host
	if cmdr == nil {
		cmdr = localCommander{}
	}
	proc, err := start(lctx, cmdr, bin, args)
	if err != nil {
		return fail(err)
	}
	defer proc.stop()
	s := &session{o: &o, col: newCollector(), proc: proc, cmdr: cmdr, ctx: lctx}
	views := newViewRouter(s)
	s.conn = newCDPConn(proc.fromChd, proc.toChild, views.onEvent)
	conn := s.conn
	var loadErr error
	if o.RepeatView {
		s, loadErr = s.firstView(lctx, views)
		loadErr = namedCause(lctx, loadErr)
	}
	if loadErr == nil {
		loadErr = namedCause(lctx, s.run(lctx))
	}
	if loadErr == nil && o.RepeatView {
		loadErr = s.checkNotCached()
	}
	if loadErr != nil && s.pageSID != "" && !s.unmeasured && conn.closedErr() == nil {
		// A page that never finished may never have painted: ask it why
		// (paint.go), on the caller's context, as the load's has ended.
		s.readPaint(ctx, s.pageSID)
	}
	tcp, tcpErr := s.tcpInfo(ctx)
	s.awaitTrace(lctx)
	if cpuHook != nil {
		cpuHook(proc.cpuSeconds())
	}
	proc.stop()
	<-conn.done
	r, buildErr := s.result(res, loadErr)
	if tcpErr == nil {
		r.TCP = tcp.infos
		r.BytesWireIn, r.BytesWireOut = tcp.in, tcp.out
	} else if loadErr == nil {
		r.HAR = appendHARComment(r.HAR, "no TCP_INFO: "+tcpErr.Error())
	}
	if loadErr == nil {
		loadErr = buildErr
	}
	if loadErr != nil {
		r.Failed, r.Error = true, loadErr.Error()
		r.PLTms, r.ToWms = 0, 0
	}
	return r, loadErr
}

func (o *Options) check() error {
	u, err := url.Parse(o.URL)
	if err != nil || o.URL == "" {
		return fmt.Errorf("browser: page URL %q: not a URL", o.URL)
	}
	if u.Scheme != "https" && u.Scheme != "http" {
		return fmt.Errorf("browser: page URL %q: scheme must be https or http", o.URL)
	}
	switch o.TLSVersion {
	case "", "1.2", "1.3":
	default:
		return fmt.Errorf("browser: unknown TLS version %q (want 1.2 or 1.3)", o.TLSVersion)
	}
	if o.Timeout < 0 || o.Settle < 0 {
		return errors.New("browser: negative timeout or settle time")
	}
	return nil
}

// session is one load's DevTools conversation.
type session struct {
	o    *Options
	conn *cdpConn
	col  *collector
	proc *process
	cmdr Commander
	ctx  context.Context // the load's: bounds the calls made for child targets
	// targetID is the view's tab; skipSockets are the connections a
	// repeat view's first view left half-closed (ssSocket.key), which the
	// measured view's TCP_INFO leaves out.
	targetID    string
	skipSockets map[string]bool
	// trace is the renderer main thread's trace of this view (trace.go);
	// nil until run starts it. The reader goroutine hands it events.
	trace atomic.Pointer[tracer]
	// unmeasured is a repeat view's first view: nothing of it is stored,
	// so it is not traced.
	unmeasured bool
	// frames are the view's screencast frames (screencast.go); nil
	// without Options.SpeedIndex. The reader goroutine hands them events.
	frames atomic.Pointer[screencast]
	// paintSeen is what the page's performance timeline said once the
	// page was done (paint.go); paintErr why it said nothing.
	paintSeen *paintSeen
	paintErr  string
	// pageSID is the page's DevTools session once run attached it.
	pageSID string
}

// onEvent is the DevTools event callback (the reader goroutine).
func (s *session) onEvent(ev cdpEvent) {
	if t := s.trace.Load(); t != nil && strings.HasPrefix(ev.Method, "Tracing.") {
		t.handle(ev)
		return
	}
	if sc := s.frames.Load(); sc != nil && ev.Method == "Page.screencastFrame" {
		if id := sc.handle(ev); id != 0 {
			go s.ackFrame(ev.SessionID, id)
		}
		return
	}
	s.col.handle(ev)
	if ev.Method == "Target.attachedToTarget" {
		var e struct {
			SessionID string `json:"sessionId"`
		}
		if json.Unmarshal(ev.Params, &e) == nil && e.SessionID != "" {
			// Calls wait for replies the reader goroutine delivers.
			go s.attachChild(e.SessionID)
		}
	}
}

// autoAttach makes Chromium attach every out-of-process iframe (a
// cross-site frame runs in a renderer of its own under site isolation) and
// dedicated worker below the session, paused until attachChild let it run.
// The network events of such a target (its document's response and end,
// everything it loads) arrive on its own session only: without it a
// cross-site iframe stays "in flight" for ever and its children are never
// seen.
var autoAttach = map[string]any{"autoAttach": true, "waitForDebuggerOnStart": true, "flatten": true}

// attachChild watches the network of a target attached below the page,
// attaches the targets below it too, and lets it run. Errors are ignored:
// the target may be gone already, and one that never runs shows as a page
// that does not finish.
func (s *session) attachChild(sid string) {
	c := s.conn
	for _, m := range []struct {
		method string
		params any
	}{
		{"Network.enable", map[string]any{}},
		{"Network.setCacheDisabled", map[string]any{"cacheDisabled": s.o.Profile.NoCacheHeaders}},
		{"Target.setAutoAttach", autoAttach},
	} {
		c.call(s.ctx, sid, m.method, m.params, nil)
	}
	c.call(s.ctx, sid, "Runtime.runIfWaitingForDebugger", nil, nil)
}

// run opens a tab, navigates and waits until the page is done.
func (s *session) run(ctx context.Context) error {
	c := s.conn
	var ver struct {
		Product string `json:"product"`
	}
	if err := c.call(ctx, "", "Browser.getVersion", nil, &ver); err != nil {
		return s.wrap(err)
	}
	s.proc.version = ver.Product
	var target struct {
		TargetID string `json:"targetId"`
	}
	if err := c.call(ctx, "", "Target.createTarget", map[string]any{"url": "about:blank"}, &target); err != nil {
		return s.wrap(err)
	}
	var att struct {
		SessionID string `json:"sessionId"`
	}
	if err := c.call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &att); err != nil {
		return s.wrap(err)
	}
	sid := att.SessionID
	s.targetID, s.pageSID = target.TargetID, sid
	s.col.setPage(sid)
	traceStarted := s.startTrace(ctx, sid)
	for _, m := range []struct {
		method string
		params any
	}{
		{"Network.enable", map[string]any{}},
		{"Page.enable", nil},
		{"Inspector.enable", nil},
		{"Network.setBypassServiceWorker", map[string]any{"bypass": true}},
		// The fresh profile's caches are empty and --disk-cache-size=1 keeps
		// them so: every load is a first visit. DevTools' "disable cache"
		// would also add no-cache request headers a first visit does not
		// send, so it is a profile knob, off by default.
		{"Network.setCacheDisabled", map[string]any{"cacheDisabled": s.o.Profile.NoCacheHeaders}},
		{"Target.setAutoAttach", autoAttach},
	} {
		if err := c.call(ctx, sid, m.method, m.params, nil); err != nil {
			return s.wrap(err)
		}
	}
	traceStarted()
	if err := s.startScreencast(ctx, sid); err != nil {
		return s.wrap(err)
	}
	var nav struct {
		ErrorText string `json:"errorText"`
	}
	if err := c.call(ctx, sid, "Page.navigate", map[string]any{"url": s.o.URL}, &nav); err != nil {
		return s.wrap(err)
	}
	if nav.ErrorText != "" {
		return fmt.Errorf("browser: navigating to %s: %s", s.o.URL, nav.ErrorText)
	}
	if err := s.wait(ctx); err != nil {
		return err
	}
	if !s.unmeasured && !skipPaintHook {
		s.readPaint(ctx, sid)
	}
	s.stopScreencast(ctx, sid)
	s.endTrace(ctx)
	return nil
}

// wrap turns a DevTools error after Chromium died into one naming that.
func (s *session) wrap(err error) error {
	if s.conn.closedErr() != nil || errors.Is(err, syscall.EPIPE) {
		return fmt.Errorf("browser: %w (%s)", err, s.proc.exitReason())
	}
	return fmt.Errorf("browser: %w", err)
}

// wait returns nil once the page is done, or why it never will be.
func (s *session) wait(ctx context.Context) error {
	settle := s.o.Settle
	if settle <= 0 {
		settle = DefaultSettle
	}
	settle += pageTimers(s.o.Manifest)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	var quietSince time.Time
	for {
		done, quiet, err := s.state()
		if err != nil {
			return err
		}
		if done && s.o.Manifest != nil {
			return nil
		}
		if quiet {
			if quietSince.IsZero() {
				quietSince = time.Now()
			} else if time.Since(quietSince) >= settle {
				return nil
			}
		} else {
			quietSince = time.Time{}
		}
		select {
		case <-s.col.changed:
		case <-tick.C:
		case <-s.conn.done:
			return fmt.Errorf("browser: DevTools connection lost mid-load: %v (%s)", s.conn.closedErr(), s.proc.exitReason())
		case <-ctx.Done():
			return fmt.Errorf("browser: %v; %s", context.Cause(ctx), s.pending())
		}
	}
}

// pageTimers is how long a quiet network may still be followed by one of
// the page's requests: its longest discovery delay (a replayed script
// requests its children that long after it ran; the generated page counts
// each delay from its parent's arrival, so a chain of them never leaves
// the network quiet for longer than one). 0 without a manifest.
func pageTimers(m *page.Manifest) time.Duration {
	var d time.Duration
	if m != nil {
		for _, r := range m.Resources {
			d = max(d, r.Discovery.Delay)
		}
	}
	return d
}

// state: done = onload fired and every manifest resource finished; quiet =
// onload fired and nothing is in flight.
func (s *session) state() (done, quiet bool, err error) {
	c := s.col
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.crashed != "" {
		return false, false, fmt.Errorf("browser: %s", c.crashed)
	}
	if c.decodeErr != nil {
		return false, false, fmt.Errorf("browser: DevTools event: %w", c.decodeErr)
	}
	if c.loadAt == 0 {
		return false, false, nil
	}
	quiet = true
	for _, x := range c.all {
		if !x.finished && !strings.HasSuffix(x.req.URL, "/favicon.ico") && !strings.HasPrefix(x.req.URL, "data:") {
			quiet = false
		}
	}
	if s.o.Manifest == nil {
		return false, quiet, nil
	}
	finished := map[string]bool{}
	keys := manifestKeys(s.o.Manifest)
	for _, x := range c.all {
		if x.redirected && redirects(s.o.Manifest, keys, x) {
			finished[resKey(x.req.URL)] = true // a recorded 3xx, answered as recorded
		}
		if x.finished && !x.redirected {
			if x.failed != "" && !withheld(x.failed) {
				if _, listed := manifestKeys(s.o.Manifest)[resKey(x.req.URL)]; listed {
					return false, false, fmt.Errorf("browser: %s failed: %s", x.req.URL, x.failed)
				}
			}
			finished[resKey(x.req.URL)] = true
		}
	}
	for k := range manifestKeys(s.o.Manifest) {
		if !finished[k] {
			return false, quiet, nil
		}
	}
	return true, quiet, nil
}

// redirects reports whether the redirect that ended x is a page resource
// of its own: a recorded 3xx that the manifest has redirect to its child.
func redirects(m *page.Manifest, keys map[string]int, x *exchange) bool {
	id, ok := keys[resKey(x.req.URL)]
	return ok && x.redirected && m.RedirectChild(id) >= 0
}

// withheld reports a failure Chromium gives a response it asked for and
// received but kept from the page: opaque response blocking (a no-cors
// request, such as an image, answered with JSON, HTML, XML or text/plain
// under nosniff, which a replay requests as an image where the recorded
// page used fetch or XHR) or a response header's own policy (a frame
// forbidden by X-Frame-Options or CSP frame-ancestors, a
// Cross-Origin-Resource-Policy). The server was asked and answered, so such a
// resource does not fail the load; it is not a completed resource either
// (Result.Resources, PLT), and its HAR entry keeps the error.
func withheld(failure string) bool {
	return failure == "net::ERR_BLOCKED_BY_ORB" || failure == "net::ERR_BLOCKED_BY_RESPONSE"
}

// pending describes the load's state for a timeout error.
func (s *session) pending() string {
	c := s.col
	c.mu.Lock()
	defer c.mu.Unlock()
	var open []string
	for _, x := range c.all {
		if !x.finished {
			open = append(open, x.req.URL)
		}
	}
	var missing []string
	if s.o.Manifest != nil {
		seen := map[string]bool{}
		for _, x := range c.all {
			seen[resKey(x.req.URL)] = true
		}
		for _, r := range s.o.Manifest.Resources {
			if !seen[resKey(s.o.Manifest.URL(r.ID))] {
				missing = append(missing, r.Path)
			}
		}
	}
	msg := "onload had not fired"
	if c.loadAt != 0 {
		msg = "onload fired"
	}
	if len(open) > 0 {
		msg += fmt.Sprintf("; still in flight: %s", strings.Join(first(open, 5), ", "))
	}
	if len(missing) > 0 {
		msg += fmt.Sprintf("; never requested: %d page resources (%s)", len(missing), strings.Join(first(missing, 5), ", "))
	}
	return msg
}

func first(s []string, n int) []string {
	if len(s) > n {
		return append(s[:n:n], fmt.Sprintf("... %d more", len(s)-n))
	}
	return s
}

// manifestKeys maps each page resource's resKey to its id.
func manifestKeys(m *page.Manifest) map[string]int {
	out := make(map[string]int, len(m.Resources))
	for _, r := range m.Resources {
		out[resKey(m.URL(r.ID))] = r.ID
	}
	return out
}

func appendHARComment(har []byte, line string) []byte {
	var doc struct {
		Log map[string]any `json:"log"`
	}
	if json.Unmarshal(har, &doc) != nil || doc.Log == nil {
		return har
	}
	c, _ := doc.Log["comment"].(string)
	if c != "" {
		c += "\n"
	}
	doc.Log["comment"] = c + line
	b, err := json.MarshalIndent(doc, "", " ")
	if err != nil {
		return har
	}
	return b
}

// Recording is one recorded page load.
type Recording struct {
	HAR           []byte       // HAR 1.2, entries with _initiator
	Result        probe.Result // PLT, ToW, bytes, connections of the recorded load
	Requests      int          // entries in the HAR
	WithInitiator int          // of which name their initiator
	OnLoadMs      float64      // -1 when onload never fired
}

// Record loads o.URL without a manifest (until the network stays quiet for
// Settle after onload) and returns the HAR with initiators: what
// `spdylab record` writes. On failure the partial HAR comes with the error.
func Record(ctx context.Context, o Options) (Recording, error) {
	o.Manifest = nil
	r, err := Load(ctx, o)
	rec := Recording{HAR: r.HAR, Result: r, OnLoadMs: -1}
	var doc struct {
		Log struct {
			Pages []struct {
				PageTimings struct {
					OnLoad float64 `json:"onLoad"`
				} `json:"pageTimings"`
			} `json:"pages"`
			Entries []struct {
				Initiator json.RawMessage `json:"_initiator"`
			} `json:"entries"`
		} `json:"log"`
	}
	if json.Unmarshal(r.HAR, &doc) == nil {
		rec.Requests = len(doc.Log.Entries)
		for _, e := range doc.Log.Entries {
			if len(e.Initiator) > 0 {
				rec.WithInitiator++
			}
		}
		if len(doc.Log.Pages) == 1 {
			rec.OnLoadMs = doc.Log.Pages[0].PageTimings.OnLoad
		}
	}
	return rec, err
}
