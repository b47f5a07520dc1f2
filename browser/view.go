package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"
)

// A repeat view (Options.RepeatView): one Chromium loads the page twice,
// each time in a tab of its own, and only the second load is measured.
// Chromium keeps TLS session tickets and QUIC's 0-RTT state in memory only
// (never in the profile), so a second process on the same profile would
// start cold: the views share the process instead. Between them the HTTP
// cache is cleared (Network.clearBrowserCache; --disk-cache-size=1 keeps
// it near empty anyway), the first tab is closed, and Options.BetweenViews
// closes every connection from the servers' side (DevTools cannot close
// Chromium's sockets); the measured view starts once Chromium has no TCP
// connection left open, so it opens new ones and resumes their sessions.

// viewRouter hands DevTools events to the session of the view being
// loaded and drops those of a finished view's targets (a closed tab's last
// events must not reach the measured view's collector).
type viewRouter struct {
	mu   sync.Mutex
	cur  *session
	mine map[string]bool // sessions attached during the current view
	old  map[string]bool // sessions of finished views
}

func newViewRouter(s *session) *viewRouter {
	return &viewRouter{cur: s, mine: map[string]bool{}, old: map[string]bool{}}
}

func (r *viewRouter) onEvent(ev cdpEvent) {
	var target struct {
		SessionID string `json:"sessionId"`
	}
	if ev.Method == "Target.attachedToTarget" || ev.Method == "Target.detachedFromTarget" {
		json.Unmarshal(ev.Params, &target)
	}
	r.mu.Lock()
	if r.old[ev.SessionID] || r.old[target.SessionID] {
		r.mu.Unlock()
		return
	}
	if ev.Method == "Target.attachedToTarget" && target.SessionID != "" {
		r.mine[target.SessionID] = true
	}
	s := r.cur
	r.mu.Unlock()
	s.onEvent(ev)
}

// next makes s the session events go to; the current view's sessions
// (pageSession among them) are finished.
func (r *viewRouter) next(s *session, pageSession string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for id := range r.mine {
		r.old[id] = true
	}
	if pageSession != "" {
		r.old[pageSession] = true
	}
	r.mine = map[string]bool{}
	r.cur = s
}

// closeSocketsWait bounds the wait for Chromium to see its connections
// closed between the views.
const closeSocketsWait = 10 * time.Second

// firstView loads the page once, unmeasured, and prepares the measured
// view: cache cleared, tab closed, connections closed. It returns the
// measured view's session.
func (s *session) firstView(ctx context.Context, views *viewRouter) (*session, error) {
	fail := func(err error) (*session, error) {
		return s, fmt.Errorf("browser: repeat view: the first view failed: %w", err)
	}
	s.unmeasured = true
	if err := s.run(ctx); err != nil {
		return fail(err)
	}
	page := s.col.pageSession()
	if err := s.conn.call(ctx, page, "Network.clearBrowserCache", nil, nil); err != nil {
		return fail(s.wrap(err))
	}
	if err := s.conn.call(ctx, "", "Target.closeTarget", map[string]any{"targetId": s.targetID}, nil); err != nil {
		return fail(s.wrap(err))
	}
	if s.o.BetweenViews != nil {
		if err := s.o.BetweenViews(ctx); err != nil {
			return fail(err)
		}
	}
	skip, err := s.waitSocketsClosed(ctx)
	if err != nil {
		return fail(err)
	}
	if s.o.MeasuredView != nil {
		if err := s.o.MeasuredView(); err != nil {
			return s, err
		}
	}
	next := &session{o: s.o, conn: s.conn, col: newCollector(), proc: s.proc, cmdr: s.cmdr, ctx: s.ctx, skipSockets: skip}
	views.next(next, page)
	return next, nil
}

// waitSocketsClosed waits until none of Chromium's TCP connections is
// established any more (closed, or half-closed by the server: an idle
// HTTP/1.1 socket Chromium discards when it would reuse it) and returns
// those left, which the measured view's TCP_INFO leaves out.
func (s *session) waitSocketsClosed(ctx context.Context) (map[string]bool, error) {
	deadline := time.Now().Add(closeSocketsWait)
	for {
		socks, err := s.chromiumSockets(ctx)
		if err != nil {
			return nil, err
		}
		open := 0
		left := map[string]bool{}
		for _, sk := range socks {
			left[sk.key()] = true
			if strings.EqualFold(sk.state, "ESTAB") {
				open++
			}
		}
		if open == 0 {
			return left, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%d of Chromium's TCP connections still open %v after the servers closed them", open, closeSocketsWait)
		}
		select {
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// checkNotCached fails a measured repeat view in which a page resource
// never went to the network: the views must not share a cache.
func (s *session) checkNotCached() error {
	if s.o.Manifest == nil {
		return nil
	}
	c := s.col
	c.mu.Lock()
	defer c.mu.Unlock()
	fetched := map[string]bool{}
	cached := map[string]bool{}
	for _, x := range c.all {
		if x.fromCache {
			cached[resKey(x.req.URL)] = true
		} else {
			fetched[resKey(x.req.URL)] = true
		}
	}
	for k := range manifestKeys(s.o.Manifest) {
		if cached[k] && !fetched[k] {
			return fmt.Errorf("browser: repeat view: %s came from Chromium's cache, not the network", k)
		}
	}
	return nil
}
