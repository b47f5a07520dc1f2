package loader

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
)

// imageEntry is a delayable request for host, discovered seq-th.
func imageEntry(host string, seq int) *entry {
	u, _ := url.Parse(fmt.Sprintf("https://%s/img/%d.jpg", host, seq))
	return &entry{url: u, typ: page.TypeImage, priority: priorityOf(page.TypeImage), seq: seq}
}

// admitAll starts admit for every entry and waits until each is either in
// flight or queued (the throttle may hold others already); it returns the releases by entry, in admission order.
func admitAll(t *testing.T, th *throttle, es []*entry) (admitted chan *entry, release map[*entry]func()) {
	t.Helper()
	admitted = make(chan *entry, len(es))
	release = map[*entry]func(){}
	var mu sync.Mutex
	th.mu.Lock()
	before := th.inFlight + len(th.waiting)
	th.mu.Unlock()
	for _, e := range es {
		go func() {
			rel, err := th.admit(context.Background(), e)
			if err != nil {
				return
			}
			mu.Lock()
			release[e] = rel
			mu.Unlock()
			admitted <- e
		}()
	}
	for {
		th.mu.Lock()
		n := th.inFlight + len(th.waiting)
		th.mu.Unlock()
		if n == before+len(es) {
			break
		}
		time.Sleep(time.Millisecond) // waiting for the goroutines to reach the throttle, not a timing assertion
	}
	return admitted, release
}

// drain takes n admitted requests, failing the test if they do not come:
// the throttle holds one it should have let go.
func drain(t *testing.T, ch chan *entry, n int) []*entry {
	t.Helper()
	out := make([]*entry, n)
	for i := range out {
		select {
		case out[i] = <-ch:
		case <-time.After(5 * time.Second):
			t.Fatalf("only %d of %d requests admitted: the throttle holds the rest", i, n)
		}
	}
	return out
}

func (th *throttle) state() (inFlight, waiting int) {
	th.mu.Lock()
	defer th.mu.Unlock()
	return th.inFlight, len(th.waiting)
}

func TestThrottleCapsDelayableRequestsPerPage(t *testing.T) {
	th := newThrottle(RequestThrottle{MaxDelayable: 10}, probe.ProtoH2)
	var es []*entry
	for i := range 15 {
		es = append(es, imageEntry(fmt.Sprintf("s%d.spdylab.test", i%4+1), i))
	}
	admitted, release := admitAll(t, th, es)
	drain(t, admitted, 10)
	if in, w := th.state(); in != 10 || w != 5 {
		t.Fatalf("in flight %d, waiting %d; want 10 and 5", in, w)
	}
	th.mu.Lock()
	want := th.waiting[0].e.seq // sorted: the earliest discovered waits first
	for _, w := range th.waiting {
		want = min(want, w.e.seq)
	}
	th.mu.Unlock()
	var first func()
	for _, rel := range release {
		first = rel
		break
	}
	first()
	if next := <-admitted; next.seq != want {
		t.Errorf("after a release, request %d started; want the earliest waiting one (%d)", next.seq, want)
	}
	// Not delayable: passes even with the page full.
	css := imageEntry("s1.spdylab.test", 99)
	css.typ, css.priority = page.TypeCSS, priorityOf(page.TypeCSS)
	if _, err := th.admit(context.Background(), css); err != nil {
		t.Fatal(err)
	}
	if in, _ := th.state(); in != 10 {
		t.Errorf("a stylesheet took a delayable slot: %d in flight", in)
	}
}

func TestThrottleCapsDelayablePerHostUntilKnownMultiplexed(t *testing.T) {
	for _, proto := range []string{probe.ProtoHTTPS, probe.ProtoH2} {
		th := newThrottle(RequestThrottle{MaxDelayablePerHost: 6}, proto)
		var es []*entry
		for i := range 8 {
			es = append(es, imageEntry("s1.spdylab.test", i))
		}
		es = append(es, imageEntry("s2.spdylab.test", 8), imageEntry("s2.spdylab.test", 9))
		admitted, _ := admitAll(t, th, es)
		got := drain(t, admitted, 8)
		perHost := map[string]int{}
		for _, e := range got {
			perHost[e.url.Hostname()]++
		}
		// A full host does not hold back the other host's requests.
		if perHost["s1.spdylab.test"] != 6 || perHost["s2.spdylab.test"] != 2 {
			t.Fatalf("%s: started %v, want 6 on s1 and 2 on s2", proto, perHost)
		}
		th.hostMultiplexes("s1.spdylab.test")
		if proto == probe.ProtoH2 {
			drain(t, admitted, 2) // s1 speaks h2 now: its last two go
		} else if in, w := th.state(); in != 8 || w != 2 {
			t.Fatalf("https: in flight %d, waiting %d after a connection; HTTP/1.1 hosts stay capped", in, w)
		}
	}
}

func TestThrottleHoldsDelayableUntilParsedOnMultiplexed(t *testing.T) {
	for _, proto := range []string{probe.ProtoH2, probe.ProtoHTTPS} {
		th := newThrottle(RequestThrottle{UntilParsed: true}, proto)
		var es []*entry
		for i := range 5 {
			es = append(es, imageEntry("s1.spdylab.test", i))
		}
		admitted, _ := admitAll(t, th, es)
		if proto == probe.ProtoHTTPS {
			drain(t, admitted, 5) // HTTP/1.1 has its per-host limit instead
			continue
		}
		drain(t, admitted, DelayableWhileParsing)
		if in, w := th.state(); in != DelayableWhileParsing || w != 5-DelayableWhileParsing {
			t.Fatalf("while parsing: in flight %d, waiting %d", in, w)
		}
		th.documentParsed()
		drain(t, admitted, 5-DelayableWhileParsing)
	}
}

// TestThrottleMultiplexedUncapped: with MultiplexedUncapped, a host known
// to multiplex gets every delayable request in flight once the document is
// parsed (Chromium on h2), and those requests leave the page cap to the
// hosts not yet known; a request started while its host was unknown counts
// until it ends. HTTP/1.1 hosts stay capped. Without the field the page cap
// holds everything at MaxDelayable.
func TestThrottleMultiplexedUncapped(t *testing.T) {
	for _, uncapped := range []bool{false, true} {
		cfg := RequestThrottle{MaxDelayable: 10, MaxDelayablePerHost: 6, UntilParsed: true, MultiplexedUncapped: uncapped}
		th := newThrottle(cfg, probe.ProtoH2)
		th.hostMultiplexes("s1.spdylab.test")
		var es []*entry
		for i := range 15 {
			es = append(es, imageEntry("s1.spdylab.test", i))
		}
		admitted, _ := admitAll(t, th, es)
		drain(t, admitted, DelayableWhileParsing) // parsing holds even uncapped hosts
		if in, _ := th.state(); in != DelayableWhileParsing {
			t.Fatalf("uncapped %v: %d in flight while parsing, want %d", uncapped, in, DelayableWhileParsing)
		}
		th.documentParsed()
		if !uncapped {
			drain(t, admitted, 10-DelayableWhileParsing)
			if in, w := th.state(); in != 10 || w != 5 {
				t.Fatalf("capped: in flight %d, waiting %d; want 10 and 5", in, w)
			}
			continue
		}
		if in, w := th.state(); in != 15 || w != 0 {
			t.Fatalf("uncapped: in flight %d, waiting %d after parsing; want all 15 of a multiplexed host's", in, w)
		}
		drain(t, admitted, 15-DelayableWhileParsing)
		checkUncappedLeaveThePageCap(t, th)
	}
	var c16, modern Options
	if ApplyProfile(&c16, probe.ProfileChrome16, "") != nil || ApplyProfile(&modern, probe.ProfileChromiumModern, "") != nil {
		t.Fatal("ApplyProfile failed")
	}
	if c16.Throttle.MultiplexedUncapped || !modern.Throttle.MultiplexedUncapped {
		t.Errorf("MultiplexedUncapped: chrome16 %v, chromium-modern %v; want off and on", c16.Throttle.MultiplexedUncapped, modern.Throttle.MultiplexedUncapped)
	}
	th := newThrottle(ChromiumThrottle, probe.ProtoHTTPS)
	th.hostMultiplexes("s1.spdylab.test") // no-op: HTTP/1.1 never multiplexes
	var es []*entry
	for i := range 8 {
		es = append(es, imageEntry("s1.spdylab.test", i))
	}
	admitted, _ := admitAll(t, th, es)
	drain(t, admitted, 6)
	if in, w := th.state(); in != 6 || w != 2 {
		t.Fatalf("https: in flight %d, waiting %d; HTTP/1.1 hosts stay capped", in, w)
	}
}

// checkUncappedLeaveThePageCap goes on from 15 requests in flight to s1,
// a host known to multiplex, under a page cap of 10 and a host cap of 6:
// s2, not yet known, gets its six at once; once s2 is known its waiting
// requests start uncapped while its first six still count, so s3 gets the
// four left and its fifth waits for one of s2's first six to end.
func checkUncappedLeaveThePageCap(t *testing.T, th *throttle) {
	t.Helper()
	settle := func(in, waiting int, what string) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for {
			i, w := th.state()
			if i == in && w == waiting {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: in flight %d, waiting %d; want %d and %d", what, i, w, in, waiting)
			}
			time.Sleep(time.Millisecond) // the admitting goroutines reach the throttle
		}
	}
	var s2, s3 []*entry
	for i := range 11 {
		s2 = append(s2, imageEntry("s2.spdylab.test", 15+i))
	}
	for i := range 5 {
		s3 = append(s3, imageEntry("s3.spdylab.test", 30+i))
	}
	admitted2, release2 := admitAll(t, th, s2)
	first := drain(t, admitted2, 6)
	settle(21, 5, "s1's requests must not fill the page cap for s2")
	th.hostMultiplexes("s2.spdylab.test")
	drain(t, admitted2, 5)
	settle(26, 0, "s2 known to multiplex")
	admitted3, _ := admitAll(t, th, s3)
	drain(t, admitted3, 4)
	settle(30, 1, "s2's first six still count")
	release2[first[0]]()
	if e := <-admitted3; e.url.Hostname() != "s3.spdylab.test" {
		t.Fatalf("admitted %s, want s3's waiting request", e.url)
	}
}

// TestThrottleUncappedStartsPastWaitingRequests: a new request to a host
// known to multiplex starts at once even while a request to a host not
// yet known waits for the full page cap, and it does not count towards the
// cap: the waiting request starts when one of the capped ones ends.
func TestThrottleUncappedStartsPastWaitingRequests(t *testing.T) {
	th := newThrottle(RequestThrottle{MaxDelayable: 2, UntilParsed: true, MultiplexedUncapped: true}, probe.ProtoH2)
	th.documentParsed()
	es := []*entry{imageEntry("s2.spdylab.test", 0), imageEntry("s2.spdylab.test", 1), imageEntry("s2.spdylab.test", 2)}
	admitted, release := admitAll(t, th, es)
	got := drain(t, admitted, 2)
	th.hostMultiplexes("s1.spdylab.test")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel() // frees a held admit when the test fails
	s1 := make(chan func(), 1)
	go func() {
		if rel, err := th.admit(ctx, imageEntry("s1.spdylab.test", 3)); err == nil {
			s1 <- rel
		}
	}()
	for in, w := th.state(); in+w < 4; in, w = th.state() {
		time.Sleep(time.Millisecond) // waiting for the goroutine to reach the throttle
	}
	if in, w := th.state(); in != 3 || w != 1 {
		t.Fatalf("in flight %d, waiting %d; want s1's request started past s2's waiting one", in, w)
	}
	release[got[0]]()
	if e := <-admitted; e.url.Hostname() != "s2.spdylab.test" {
		t.Fatalf("admitted %s, want s2's waiting request while s1's is in flight", e.url)
	}
	(<-s1)()
	if in, w := th.state(); in != 2 || w != 0 {
		t.Fatalf("in flight %d, waiting %d; want s2's two", in, w)
	}
}

func TestThrottleCancelledWaiterLeaves(t *testing.T) {
	th := newThrottle(RequestThrottle{MaxDelayable: 1}, probe.ProtoH2)
	rel, err := th.admit(context.Background(), imageEntry("s1.spdylab.test", 0))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	done := make(chan error)
	go func() {
		_, err := th.admit(ctx, imageEntry("s1.spdylab.test", 1))
		done <- err
	}()
	for _, w := th.state(); w == 0; _, w = th.state() {
		time.Sleep(time.Millisecond)
	}
	stop := errors.New("load over")
	cancel(stop)
	if err := <-done; !errors.Is(err, stop) {
		t.Fatalf("cancelled admit: %v", err)
	}
	rel()
	rel() // idempotent
	if in, w := th.state(); in != 0 || w != 0 {
		t.Fatalf("in flight %d, waiting %d after everything ended", in, w)
	}
}

// TestLoadThrottleHoldsImagesBack loads a page whose server holds every
// image response until eleven are in flight at once (or a second passed):
// without the throttle the loader's burst reaches eleven; with Chromium's
// page cap applied to h2 hosts too (MultiplexedUncapped off) it never does.
func TestLoadThrottleHoldsImagesBack(t *testing.T) {
	st := newSite(t, "generic:n=40,mean=2k,depth=1", 2)
	images := 0
	for _, r := range st.m.Resources {
		if r.Type == page.TypeImage {
			images++
		}
	}
	if images < 12 {
		t.Fatalf("the page has %d images; the test needs more than 11", images)
	}
	var mu sync.Mutex
	open, peak := 0, 0
	gathered := make(chan struct{})
	var once sync.Once
	target, _ := goServers(t, st, []string{"h2"}, func(host string, hs *hostStats) http.Handler {
		files := fileHandler(st.dir)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if st.m.Resources[resourceByPath(st.m, host, r.URL.Path)].Type == page.TypeImage {
				mu.Lock()
				open++
				peak = max(peak, open)
				if open > 10 {
					once.Do(func() { close(gathered) })
				}
				mu.Unlock()
				select {
				case <-gathered:
				case <-time.After(time.Second):
				}
				defer func() { mu.Lock(); open--; mu.Unlock() }()
			}
			files.ServeHTTP(w, r)
		})
	})
	for _, throttled := range []bool{false, true} {
		o := Options{Proto: probe.ProtoH2, TLSVersion: "1.3"}
		if throttled {
			o.Throttle = ChromiumThrottle
			o.Throttle.MultiplexedUncapped = false
		}
		mu.Lock()
		open, peak = 0, 0
		gathered = make(chan struct{})
		once = sync.Once{}
		mu.Unlock()
		res, err := Load(context.Background(), target, o)
		if err != nil {
			t.Fatalf("throttled %v: %v", throttled, err)
		}
		checkAgainstManifest(t, st, res)
		mu.Lock()
		p := peak
		mu.Unlock()
		if throttled && p > ChromiumThrottle.MaxDelayable {
			t.Errorf("throttled: %d image requests in flight at once, want at most %d", p, ChromiumThrottle.MaxDelayable)
		}
		if !throttled && p <= ChromiumThrottle.MaxDelayable {
			t.Errorf("unthrottled: peak %d image requests in flight; the burst should exceed %d", p, ChromiumThrottle.MaxDelayable)
		}
	}
}

// resourceByPath finds a manifest resource by host and path (0 = none).
func resourceByPath(m *page.Manifest, host, path string) int {
	for _, r := range m.Resources {
		if r.Path == path && (host == "" || r.Host == host) {
			return r.ID
		}
	}
	return 0
}

// TestThrottleAdmitsInDiscoveryOrder: images found together reach the
// scheduler in the order the page names them, so the page cap's first
// slots go to the first images (Chromium's ResourceScheduler sees each
// request as it is created). When each request's goroutine registered
// itself, whichever ran first took a slot: youtube on four hosts opened
// its last shard before its second.
func TestThrottleAdmitsInDiscoveryOrder(t *testing.T) {
	st := newSite(t, "generic:n=30,mean=2k,depth=1", 3)
	var mu sync.Mutex
	var arrived []string
	target, _ := goServers(t, st, []string{"http/1.1"}, func(host string, hs *hostStats) http.Handler {
		files := fileHandler(st.dir)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if st.m.Resources[resourceByPath(st.m, host, r.URL.Path)].Type == page.TypeImage {
				mu.Lock()
				arrived = append(arrived, host+r.URL.Path)
				mu.Unlock()
				time.Sleep(100 * time.Millisecond) // the first slots stay taken while the rest queue
			}
			files.ServeHTTP(w, r)
		})
	})
	const slots = 3
	res, err := Load(context.Background(), target, Options{Proto: probe.ProtoHTTPS, TLSVersion: "1.3", Throttle: RequestThrottle{MaxDelayable: slots}})
	if err != nil {
		t.Fatal(err)
	}
	h := checkAgainstManifest(t, st, res)
	var discovered []string // HAR entries are in discovery order
	for _, e := range h.Log.Entries {
		if u, err := url.Parse(e.Request.URL); err == nil && st.m.Resources[resourceByPath(st.m, u.Hostname(), u.Path)].Type == page.TypeImage {
			discovered = append(discovered, u.Hostname()+u.Path)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(arrived) < slots || len(discovered) < slots {
		t.Fatalf("%d images arrived, %d discovered", len(arrived), len(discovered))
	}
	first, want := append([]string(nil), arrived[:slots]...), append([]string(nil), discovered[:slots]...)
	sort.Strings(first)
	sort.Strings(want)
	if !slices.Equal(first, want) {
		t.Errorf("first %d image requests at the servers %v, want the first discovered %v", slots, arrived[:slots], discovered[:slots])
	}
}
