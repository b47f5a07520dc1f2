// Package harness sets up one condition's bench: the page on disk, a
// testbed (emulated link or loopback), one spdylab server per shard host,
// and runs cold page loads against it. It is the glue between page, netem,
// server and loader; the study runner and `spdylab load` both use it.
package harness

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spdylab/spdylab/internal/certs"
	"github.com/spdylab/spdylab/internal/schedwait"
	"github.com/spdylab/spdylab/internal/tcpopt"
	"github.com/spdylab/spdylab/loader"
	"github.com/spdylab/spdylab/netem"
	"github.com/spdylab/spdylab/netem/linkcheck"
	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/server"
	"github.com/spdylab/spdylab/spdy"
)

// Options are the bench's settings that are not part of the condition.
type Options struct {
	// WorkDir holds generated pages (WorkDir/pages/...), reused across
	// benches with the same page, shards, mode and seed. "" = a directory
	// under os.TempDir() shared by all runs.
	WorkDir string
	// Seed is the page generator seed, and the link's loss seed unless the
	// condition sets Link.Seed.
	Seed int64
	// Timeout bounds one load; 0 = the condition's Timeout, else 60 s.
	Timeout time.Duration
	// ServerLog receives the servers' connection and access log; nil = silent.
	ServerLog io.Writer
	// Page, when set, is the condition's page already opened by the caller
	// (the study runner opens each page once, for its ETA and every bench
	// of that page). The harness never changes it; nil = open c.Page.
	Page *page.Manifest
	// Testbed, when set, adjusts the emulated testbed's configuration after
	// it is derived from the condition (the packet log: not part of a
	// condition, whose Link holds every link setting).
	Testbed func(*netem.Config)
	// PcapDir, when set, receives one pcap file per load: the packets on
	// the client's side of the emulated link, recorded by the emulator
	// (netem.StartCapture). Loopback benches refuse it.
	PcapDir string
	// PcapName names a load's capture in PcapDir; nil = LoadFileName(page
	// name, proto, run, ".pcap").
	PcapName func(proto string, run int) string
	// SPDY2Windows is whether the servers' and the loader's spdy/2
	// sessions keep SPDY/3 stream windows (zero = spdy.SPDY2WindowsAuto).
	SPDY2Windows spdy.SPDY2Windows
}

// DefaultTimeout bounds a load when neither Options nor the condition do.
const DefaultTimeout = 60 * time.Second

// HTTPSPort is where servers listen on an emulated testbed. Loopback
// benches share the caller's namespace with other programs, so their
// servers take ephemeral ports instead.
const HTTPSPort = 443

// Bench is one condition's testbed with its servers running.
type Bench struct {
	cond     probe.Condition
	opt      Options
	tb       *netem.Testbed
	m        *page.Manifest
	siteDir  string
	baseURLs map[string]string
	servers  []*server.Server
	// serverHosts names each server's namespace (servers[i] runs in the
	// namespace of server host serverHosts[i]).
	serverHosts []string
	ca          *certs.CA // issues each host's certificate; the loader and Chromium trust it alone
	serving     sync.WaitGroup
	closed      atomic.Bool

	closeOnce sync.Once
	closeErr  error

	capturing bool               // a load's capture runs (a bench's loads never overlap)
	waitFrom  schedwait.Snapshot // the runtime's CPU-wait histogram at the load's start (endLoadStats)

	// plainURLs are a plaintext bench's base URLs per listener protocol
	// (plain.go); baseURLs then holds the HTTP/1.1 ones.
	plainURLs map[string]map[string]string
	// httpsHosts keep HTTPS whatever the load's protocol (deploy.go).
	httpsHosts []string
}

// Open builds the bench for c. c.Proto is ignored: every server offers
// every protocol, so a runner can interleave protocols on one bench. On
// error everything Open created is torn down again.
func Open(ctx context.Context, c probe.Condition, opt Options) (b *Bench, err error) {
	if opt.Timeout == 0 {
		opt.Timeout = c.Timeout
	}
	if opt.Timeout <= 0 {
		opt.Timeout = DefaultTimeout
	}
	c, m, names, err := validate(c, opt.Seed, opt.Page)
	if err != nil {
		return nil, err
	}
	if err := checkPcapOptions(c, opt); err != nil {
		return nil, err
	}
	for _, cc := range c.TCP.CongestionControls() { // adaptive_cc's bbr too
		if err := netem.CheckCongestionControl(cc); err != nil {
			return nil, fmt.Errorf("harness: cc: %w", err)
		}
	}
	dir, ok := siteInPlace(c, m)
	if !ok {
		if dir, err = ensureSite(opt.WorkDir, m); err != nil {
			return nil, err
		}
	}
	// The half-built bench is torn down through its own variable: every
	// error return sets the result b to nil before deferred calls run.
	built := &Bench{cond: c, opt: opt, m: m, siteDir: dir, baseURLs: map[string]string{}}
	if built.httpsHosts, err = httpsHostsOf(c, m); err != nil {
		return nil, fmt.Errorf("harness: %w", err)
	}
	defer func() {
		if err != nil {
			built.Close()
		}
	}()
	delays, err := hostDelaysOf(c, m)
	if err != nil {
		return nil, fmt.Errorf("harness: %w", err)
	}
	if built.tb, err = openTestbed(ctx, c, opt, names, delays); err != nil {
		return nil, err
	}
	if err := built.startServers(); err != nil {
		return nil, err
	}
	return built, nil
}

// openTestbed builds the condition's testbed: loopback hosts, or the
// emulated link with opt's adjustments.
func openTestbed(ctx context.Context, c probe.Condition, opt Options, names []string, delays map[string]time.Duration) (*netem.Testbed, error) {
	if c.NoLink {
		tb, err := netem.NewLoopback(c.Shards, names)
		if err != nil {
			return nil, fmt.Errorf("harness: testbed: %w", err)
		}
		return tb, nil
	}
	cfg := netem.Config{Shards: c.Shards, Link: c.Link, TCP: c.TCP, DNS: c.DNS, Names: names, HostDelays: delays}
	if cfg.Link.Seed == 0 {
		cfg.Link.Seed = opt.Seed
	}
	if opt.Testbed != nil {
		opt.Testbed(&cfg)
	}
	tb, err := netem.New(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("harness: testbed: %w", err)
	}
	return tb, nil
}

// Validate checks c and its page without building anything and returns
// the page the bench would serve. Errors name the field at fault.
func Validate(c probe.Condition, seed int64) (*page.Manifest, error) {
	_, m, _, err := validate(c, seed, nil)
	return m, err
}

// validate normalises c, opens its page and decides the bench's hosts: a
// page on the lab's names (s1..sN) gets c.Shards servers under those
// names; a page with names of its own (a replayed recording) keeps them
// all, spread over c.Shards server namespaces (default: as many as it has
// hosts, at most MaxShards), and names lists them.
func validate(c probe.Condition, seed int64, opened *page.Manifest) (_ probe.Condition, _ *page.Manifest, names []string, _ error) {
	c, err := normalize(c)
	if err != nil {
		return c, nil, nil, err
	}
	if c, err = page.ResolveHosts(c.Page, c); err != nil { // a study page's fallbacks, written into c
		return c, nil, nil, fmt.Errorf("harness: %w", err)
	}
	m := opened.Clone() // the caller's page stays as it was (preload adds links)
	if opened == nil {
		if m, err = page.Open(c.Page, c.Shards, seed, c.ShardMode); err != nil {
			return c, nil, nil, fmt.Errorf("harness: %w", err)
		}
	}
	if m, err = page.ApplyHosts(m, c); err != nil { // a copy when it changes anything
		return c, nil, nil, fmt.Errorf("harness: %w", err)
	}
	if _, err := httpsHostsOf(c, m); err != nil { // refuses a page of shards
		return c, nil, nil, fmt.Errorf("harness: %w", err)
	}
	if _, err := hostDelaysOf(c, m); err != nil { // refuses a page without connect times
		return c, nil, nil, fmt.Errorf("harness: %w", err)
	}
	if m, err = applyMethod(c, m); err != nil {
		return c, nil, nil, err
	}
	if c.Push == server.PushPreload {
		m.AddPreloadLinks() // what the preload policy pushes; a site of its own in the cache
	}
	if onLabHosts(m) {
		if c.Shards == 0 {
			c.Shards = len(m.Hosts)
		}
		if len(m.Hosts) > c.Shards {
			return c, nil, nil, fmt.Errorf("harness: page %s uses host %s, but the bench has hosts %s..%s", c.Page, m.Hosts[c.Shards], page.HostName(1), page.HostName(c.Shards))
		}
		return c, m, nil, nil
	}
	for i := range probe.MaxShards {
		if lab := page.HostName(i + 1); slices.Contains(m.Hosts, lab) {
			return c, nil, nil, fmt.Errorf("harness: page %s mixes the lab's host name %s with names of its own (%s): use one kind or the other", c.Page, lab, firstOther(m.Hosts))
		}
	}
	if c.Shards == 0 {
		c.Shards = min(len(m.Hosts), probe.MaxShards)
	}
	if len(m.Hosts) > netem.MaxNames(c.Shards) {
		return c, nil, nil, fmt.Errorf("harness: page %s has %d hosts; %d server(s) hold at most %d (raise shards)", c.Page, len(m.Hosts), c.Shards, netem.MaxNames(c.Shards))
	}
	return c, m, m.Hosts, nil
}

// firstOther is the first host that is not one of the lab's names.
func firstOther(hosts []string) string {
	for _, h := range hosts {
		if !strings.HasSuffix(h, "."+netem.Domain) {
			return h
		}
	}
	return hosts[0]
}

// onLabHosts reports whether m's hosts are the lab's own s1..sN, in order
// (study pages and pages written by `page gen`).
func onLabHosts(m *page.Manifest) bool {
	for i, h := range m.Hosts {
		if h != page.HostName(i+1) {
			return false
		}
	}
	return true
}

// normalize checks the condition's fields and fills defaults (probe owns
// the rules).
func normalize(c probe.Condition) (probe.Condition, error) {
	c, err := page.ResolveMethod(c)
	if err != nil {
		return c, fmt.Errorf("harness: %w", err)
	}
	c, err = probe.Normalize(c)
	if err != nil {
		return c, fmt.Errorf("harness: %w", err)
	}
	return c, nil
}

// siteInPlace reports whether a page given as a manifest file can be served
// from the manifest's own directory: every resource is there with exactly
// its manifest size (a mirrored real page, or a site from `page gen`).
// Otherwise the harness writes generated files for the manifest.
func siteInPlace(c probe.Condition, m *page.Manifest) (string, bool) {
	if !page.IsManifestPath(c.Page) || c.Push == server.PushPreload || c.Hosts != "" || page.MethodChanges(c) {
		// preload adds headers the on-disk manifest lacks; hosts rewrites
		// references and the page methodology changes bytes (scripts' delays,
		// references)
		return "", false
	}
	dir, err := filepath.Abs(filepath.Dir(c.Page))
	if err != nil {
		return "", false
	}
	for _, r := range m.Resources {
		st, err := os.Stat(filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(r.Path, "/"))))
		if err != nil || !st.Mode().IsRegular() || st.Size() != int64(r.Size) {
			return "", false
		}
	}
	return dir, true
}

// SafeFileName turns a page or protocol name into a file name: letters,
// digits, '-' and '.' stay, everything else becomes '_'.
func SafeFileName(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '.' {
			return r
		}
		return '_'
	}, s)
}

// ensureSite writes the page under workDir/pages, keyed by the manifest's
// content hash, unless an identical site is already there. A lock file
// serialises benches of a parallel runner that want the same page.
func ensureSite(workDir string, m *page.Manifest) (string, error) {
	if workDir == "" {
		workDir = filepath.Join(os.TempDir(), "spdylab-work")
	}
	js, err := jsonManifest(m)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(js)
	name := SafeFileName(m.Name)
	if len(name) > 40 {
		name = name[:40]
	}
	pages := filepath.Join(workDir, "pages")
	if err := os.MkdirAll(pages, 0o755); err != nil {
		return "", fmt.Errorf("harness: work dir: %w", err)
	}
	dir := filepath.Join(pages, fmt.Sprintf("%s-%d-%x", name, len(m.Hosts), sum[:6]))
	lock, err := os.OpenFile(dir+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return "", fmt.Errorf("harness: %w", err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return "", fmt.Errorf("harness: locking %s: %w", lock.Name(), err)
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	// Holding the lock, any temporary directory of this site is left over
	// from a writer that was killed mid-write (WriteSite removes its own on
	// error); clear it so killed runs do not accumulate.
	stale, _ := filepath.Glob(filepath.Join(pages, "."+filepath.Base(dir)+".spdylab-tmp-*"))
	for _, s := range stale {
		os.RemoveAll(s)
	}
	if have, err := os.ReadFile(filepath.Join(dir, page.ManifestFile)); err == nil && sameManifest(have, js) {
		return dir, nil
	}
	if err := m.WriteSite(dir); err != nil {
		return "", fmt.Errorf("harness: writing page %s: %w", m.Name, err)
	}
	return dir, nil
}

// startServers starts one server per server namespace, serving every
// site (host name) that lives there at the site's own address, each with a
// certificate of its own issued by the bench's CA.
func (b *Bench) startServers() error {
	ca, err := certs.NewCA("spdylab bench CA")
	if err != nil {
		return fmt.Errorf("harness: certificate authority: %w", err)
	}
	b.ca = ca
	// Every server gets the page and push map computed here once: with a
	// replayed page of hundreds of resources on 8 servers, parsing and
	// walking it per server was most of Open's CPU.
	maps := pageMaps{push: b.m.PushMap(), deps: b.m.DependencyMap()}
	for _, s := range b.tb.Servers() {
		sites := b.tb.SitesOn(s)
		if len(sites) == 0 {
			continue // more servers than the page has hosts
		}
		srv, err := b.newServer(s, sites, maps)
		if err != nil {
			return err
		}
		b.servers = append(b.servers, srv)
		b.serverHosts = append(b.serverHosts, s.Name)
		for _, site := range sites {
			if err := b.serveSite(srv, site); err != nil {
				return err
			}
		}
	}
	return nil
}

// pageMaps are the page's push and dependency maps
// (page.Manifest.PushMap, DependencyMap), shared by the bench's servers.
type pageMaps struct{ push, deps map[string][]string }

// newServer is the server of one namespace with the condition's protocol
// settings and a certificate per site.
func (b *Bench) newServer(s *netem.Host, sites []*netem.Host, maps pageMaps) (*server.Server, error) {
	c := b.cond
	var names []string
	var certList []tls.Certificate
	issue := b.ca.Issue
	if c.TLSKx == probe.KxRSA {
		issue = b.ca.IssueRSA // RSA key exchange encrypts to the certificate's key
	}
	for _, site := range sites {
		cert, err := issue(site.Name)
		if err != nil {
			return nil, fmt.Errorf("harness: certificate for %s: %w", site.Name, err)
		}
		names = append(names, site.Name)
		certList = append(certList, cert)
	}
	push := c.Push
	if push == "" {
		push = server.PushNone
	}
	spdyCfg, err := serverSPDY(c)
	if err != nil {
		return nil, err
	}
	spdyCfg.SPDY2StreamWindows = b.opt.SPDY2Windows
	cfg := server.Config{
		Root:         b.siteDir,
		Site:         b.m, // the manifest in siteDir, already parsed
		Protocols:    append([]string(nil), server.DefaultProtocols...),
		Certificates: certList,
		HostNames:    names,
		TLSMin:       serverTLSMin(c),
		HTTP1Hosts:   b.http1Sites(names),
		TLSMax:       serverTLSMax(c),
		CipherSuites: probe.TLSCipherSuites(c.TLSKx),
		Nagle:        c.Nagle,
		SPDY:         spdyCfg,
		H2: server.H2Config{
			MaxConcurrentStreams: uint32(c.MaxStreams),
			InitialWindowSize:    int32(c.InitialWindow),
			ConnWindowSize:       int32(c.SessionWindow),
		},
		H3:            h3Config(c),
		Push:          push,
		PushMap:       maps.push,
		DepsMap:       maps.deps,
		Hints:         c.Hints,
		FrameSize:     c.FrameSize,
		CC:            c.TCP.CC,
		NotSentLowat:  c.TCP.NotSentLowat,
		AdaptiveCC:    c.TCP.AdaptiveCC,
		AdaptiveLowat: c.TCP.AdaptiveLowat,
		PacingRate:    pacingRate(c),

		AdaptivePacing: c.TCP.AdaptivePacing,
		AdaptiveRegrow: c.TCP.AdaptiveRegrow,
	}
	if b.opt.ServerLog != nil {
		cfg.Log = newLogger(b.opt.ServerLog, s.Name)
	}
	srv, err := server.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("harness: server for %s: %w", s.Name, err)
	}
	return srv, nil
}

// serverTLSMin lets the servers speak a 2012 TLS version (1.0, 1.1) when
// the condition asks for one; otherwise the server's default minimum (1.2).
func serverTLSMin(c probe.Condition) uint16 {
	if v, err := probe.ParseTLSVersion(c.TLS); err == nil && v != 0 && v < tls.VersionTLS12 {
		return v
	}
	return 0
}

// serverSPDY is the servers' SPDY configuration for c: its stream limit,
// receive window and DATA scheduler (h2 and h3 keep their servers' own
// order: probe.SchedulerNote).
func serverSPDY(c probe.Condition) (spdy.Config, error) {
	sched, err := spdy.ParseScheduler(c.Scheduler) // probe's names are the spdy package's
	if err != nil {
		return spdy.Config{}, fmt.Errorf("harness: %w", err)
	}
	return spdy.Config{
		MaxConcurrentStreams: uint32(c.MaxStreams),
		InitialWindowSize:    int32(c.InitialWindow),
		SessionWindowSize:    int32(c.SessionWindow),
		Scheduler:            sched,
		RampFrames:           c.FrameRamp,
	}, nil
}

// pacingRate is the SO_MAX_PACING_RATE (bytes/s) the servers set for c's
// pacing knob; 0 leaves the kernel's behaviour.
func pacingRate(c probe.Condition) uint64 {
	return uint64(c.PacingBitsPerSecond(tcpopt.PacingUncapped*8) / 8)
}

// serveSite has srv listen at site's address (TCP, and UDP for h3 or SCTP)
// and records the site's base URL for the clients.
func (b *Bench) serveSite(srv *server.Server, site *netem.Host) error {
	if plaintext(b.cond) {
		return b.servePlainSite(srv, site) // plain.go
	}
	l, url, err := b.listenSite(site, HTTPSPort, "https")
	if err != nil {
		return err
	}
	if err := b.serveH3(site, srv, l.Addr().String()); err != nil {
		l.Close()
		return err
	}
	b.serveOn(l, srv.Serve)
	b.baseURLs[site.Name] = url
	return nil
}

// listenSite opens site's TCP listener at port (an ephemeral one without
// a link) and returns it with the base URL the clients reach it at.
func (b *Bench) listenSite(site *netem.Host, port int, scheme string) (net.Listener, string, error) {
	c := b.cond
	if c.NoLink {
		port = 0
	}
	l, err := site.Listen("tcp", site.HostPort(port))
	if err != nil {
		return nil, "", fmt.Errorf("harness: listening on %s (%s): %w", site.Name, site.HostPort(port), err)
	}
	// Serve sets the congestion control too, but it runs in a goroutine
	// whose error nobody reads: a kernel without the algorithm would
	// leave a bench that refuses every load instead of a setup error.
	if err := tcpopt.SetCongestion(l, c.TCP.CC); err != nil {
		l.Close()
		return nil, "", fmt.Errorf("harness: server for %s: %w", site.Name, err)
	}
	if c.DNS && b.tb.Emulated() {
		// The loader resolves the name through the client's resolver,
		// so the load pays for DNS across the link.
		return l, fmt.Sprintf("%s://%s:%d", scheme, site.Name, port), nil
	}
	return l, scheme + "://" + l.Addr().String(), nil
}

// serveOn runs serve(l) until the bench closes.
func (b *Bench) serveOn(l net.Listener, serve func(net.Listener) error) {
	b.serving.Add(1)
	go func() {
		defer b.serving.Done()
		serve(l)
		l.Close()
	}()
}

// Manifest is the page the bench serves.
func (b *Bench) Manifest() *page.Manifest { return b.m }

// Condition is the normalised condition (defaults filled in, Proto empty).
func (b *Bench) Condition() probe.Condition { return b.cond }

// SiteDir is the directory the servers serve.
func (b *Bench) SiteDir() string { return b.siteDir }

// BaseURLs maps each shard host to the URL its server listens at.
func (b *Bench) BaseURLs() map[string]string {
	out := make(map[string]string, len(b.baseURLs))
	for k, v := range b.baseURLs {
		out[k] = v
	}
	return out
}

// Testbed is the bench's testbed (for `spdylab load -v` style reporting).
func (b *Bench) Testbed() *netem.Testbed { return b.tb }

// Load performs one cold page load with proto: new connections, full TLS
// handshakes, nothing cached (with the condition's TLSResume, a host's
// later connections in the load resume its first handshake's session, as
// a browser's do; no ticket outlives the load). A repeat view (the
// condition's View) first loads the page once more, unmeasured, and starts
// with its TLS sessions (view.go). It never hangs past the per-load timeout; a
// failure is reported in the Result (Failed, Error), not as a panic or a
// hang.
func (b *Bench) Load(ctx context.Context, proto string, run int) probe.Result {
	// Once the link emulator is gone no packet crosses the link: the load
	// stops at once, instead of waiting out its timeout, and says why.
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if died := b.tb.EmulatorDied(); died != nil {
		go func() {
			select {
			case <-died:
				cancel()
			case <-lctx.Done():
			}
		}()
	}
	r := b.load(lctx, proto, run)
	if err := b.Broken(); err != nil {
		r.Failed, r.Error = true, fmt.Sprintf("harness: the load of %s run %d could not finish: %v", proto, run, err)
	}
	return r
}

// Broken says why the bench can no longer load (its link emulator died),
// or nil.
func (b *Bench) Broken() error { return b.tb.EmulatorErr() }

func (b *Bench) load(ctx context.Context, proto string, run int) probe.Result {
	cond := b.cond
	cond.Proto = proto
	res := probe.Result{Condition: cond, Run: run, Started: time.Now()}
	fail := func(err error) probe.Result {
		res.Failed, res.Error = true, err.Error()
		b.explain(&res, loader.RendererCosts{}) // says there is none
		return res
	}
	if _, err := probe.Normalize(cond); err != nil { // the condition's options with this protocol
		return fail(fmt.Errorf("harness: %w", err))
	}
	if err := checkPlainProto(cond, proto); err != nil {
		return fail(err)
	}
	if b.closed.Load() {
		return fail(errors.New("harness: bench is closed"))
	}
	if cl, _ := probe.LookupClient(cond.Client); cl.Browser {
		return b.browserLoad(ctx, cond, res)
	}
	// The settings proto ignores (a bench's SPDY knobs on its https
	// baseline) stay in the stored condition but never reach the client.
	opt, err := b.loaderOptions(probe.ForProtocol(cond), proto)
	if err != nil {
		return fail(err)
	}
	if cond.Repeat() {
		// The first view's tickets go into this cache and the measured
		// load starts with them.
		opt.SessionCache = tls.NewLRUClientSessionCache(repeatSessionCacheSize)
		if err := b.firstView(func() error { _, err := b.runLoader(ctx, opt); return err }); err != nil {
			return fail(err)
		}
	}
	if err := b.beginLoadStats(proto, run); err != nil {
		return fail(err)
	}
	defer b.stopPcap() // a load that hung keeps its capture too
	r, err := b.runLoader(ctx, opt)
	r = b.finishLoad(r, res, err)
	b.countDeployed(&r, proto)
	b.explain(&r, opt.Renderer)
	return r
}

// finishLoad gives a client's result r the load's condition, run and
// start (res's), and its error, and collects the per-load counters.
func (b *Bench) finishLoad(r, res probe.Result, err error) probe.Result {
	r.Condition, r.Run = res.Condition, res.Run
	if r.Started.IsZero() {
		r.Started = res.Started
	}
	if err != nil {
		r.Failed = true
		if r.Error == "" {
			r.Error = err.Error()
		}
	}
	b.endLoadStats(&r)
	return r
}

// loaderOptions are the loader's options for one load of cond with proto
// on this bench.
func (b *Bench) loaderOptions(cond probe.Condition, proto string) (loader.Options, error) {
	opt := loader.Options{
		RootCAs:        b.ca.Pool(),
		Proto:          proto,
		TLSVersion:     cond.TLS,
		TLSKx:          cond.TLSKx,
		InitialWindow:  cond.InitialWindow,
		SessionWindow:  cond.SessionWindow,
		AdaptiveWindow: cond.AdaptiveWindow,
		Timeout:        b.opt.Timeout,
		SCTP:           cond.SCTP,
		TLSResume:      cond.TLSResume, // within the load: a host's first handshake seeds it
		EarlyData:      cond.EarlyData,
		Priority:       cond.Priority,
		Sessions:       cond.Sessions,
		SessionPolicy:  cond.SessionPolicy,
		// A condition that limits streams measures the limit, not the
		// refusals of requests sent before the server's SETTINGS.
		AwaitPeerSettings: cond.MaxStreams > 0,
		SPDY2Windows:      b.opt.SPDY2Windows,
		HTTPSHosts:        b.httpsHosts,
	}
	if err := loader.ApplyProfile(&opt, cond.BrowserProfile, cond.RendererCostsSetting()); err != nil {
		return opt, fmt.Errorf("harness: %w", err)
	}
	if b.tb.Emulated() {
		client := b.tb.Client()
		opt.Dial = client.DialContext
		opt.ListenPacket = client.ListenPacket
		if cond.DNS {
			opt.Resolver = client.Resolver()
		}
	} else {
		// Loopback: dial directly so the loader sets the client's
		// congestion control itself.
		opt.CC = cond.TCP.CC
	}
	return opt, nil
}

// runLoader is one loader.Load of the bench's page. The loader has its own
// timeout; the outer one here (with grace for teardown) only guards
// against a loader that fails to honour it.
func (b *Bench) runLoader(ctx context.Context, opt loader.Options) (probe.Result, error) {
	lctx, cancel := context.WithTimeout(ctx, b.opt.Timeout+10*time.Second)
	defer cancel()
	type outcome struct {
		r   probe.Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		r, err := loader.Load(lctx, loader.Target{Manifest: b.m, BaseURLs: b.targetURLs(opt.Proto)}, opt)
		done <- outcome{r, err}
	}()
	select {
	case out := <-done:
		return out.r, out.err
	case <-lctx.Done():
		select {
		case out := <-done:
			return out.r, out.err
		case <-time.After(5 * time.Second):
			return probe.Result{}, fmt.Errorf("harness: load did not return within %v after its deadline: %v", 5*time.Second, context.Cause(lctx))
		}
	}
}

// Check runs the testbed's short link self-check. Loopback benches have no
// link to check and report OK with what they measure.
func (b *Bench) Check(ctx context.Context) probe.LinkCheck {
	if b.closed.Load() {
		return probe.LinkCheck{Problem: "bench is closed"}
	}
	lc, err := linkcheck.Check(ctx, b.tb, false)
	if err != nil {
		lc.OK = false
		if lc.Problem == "" {
			lc.Problem = err.Error()
		}
	}
	return lc
}

// Close stops the servers and tears the testbed down. It is idempotent.
func (b *Bench) Close() error {
	b.closeOnce.Do(func() {
		b.closed.Store(true)
		var errs []error
		for _, s := range b.servers {
			if err := s.Close(); err != nil && !errors.Is(err, http.ErrServerClosed) && !errors.Is(err, net.ErrClosed) {
				errs = append(errs, err)
			}
		}
		b.serving.Wait()
		if b.tb != nil {
			if err := b.tb.Close(); err != nil {
				errs = append(errs, err)
			}
		}
		b.closeErr = errors.Join(errs...)
	})
	return b.closeErr
}

// jsonManifest is the manifest exactly as WriteSite stores it.
func jsonManifest(m *page.Manifest) ([]byte, error) {
	js, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(js, '\n'), nil
}

func sameManifest(a, b []byte) bool { return bytes.Equal(a, b) }

func newLogger(w io.Writer, host string) *log.Logger {
	return log.New(w, host+" ", log.LstdFlags|log.Lmicroseconds)
}

// CheckConditions validates every condition as Open would before a load
// (its page opened, the page factors applied, the hosts decided), without
// building anything, so a factor that cannot apply to a page is refused
// before a run. It returns one error naming every failing condition (at
// most maxReported of them, then how many more).
func CheckConditions(conds []probe.Condition, seed int64, describe func(int) string) error {
	const maxReported = 10
	var problems []string
	failed := 0
	for i, c := range conds {
		if _, err := Validate(c, seed); err != nil {
			failed++
			if len(problems) < maxReported {
				problems = append(problems, describe(i)+": "+err.Error())
			}
		}
	}
	if failed == 0 {
		return nil
	}
	msg := strings.Join(problems, "\n  ")
	if failed > len(problems) {
		msg += fmt.Sprintf("\n  ... and %d more", failed-len(problems))
	}
	return fmt.Errorf("%d of %d conditions cannot run:\n  %s", failed, len(conds), msg)
}
