package probe

import (
	"fmt"
	"strings"
	"time"

	"github.com/spdylab/spdylab/internal/units"
)

// This file is the one owner of the client and browser-profile values a
// Condition may hold, and of which protocols each client can speak.

// Client names (Condition.Client).
const (
	ClientLoader   = "loader"   // spdylab's browser-faithful page loader (the default)
	ClientChromium = "chromium" // real headless Chromium over DevTools
)

// Client describes one program that loads pages.
type Client struct {
	Name string
	// Browser clients run a real browser: a load costs seconds of CPU, so
	// runners give them fewer parallel benches.
	Browser bool
	// cannot returns why the client cannot load with a protocol or TLS
	// setting, "" when it can.
	cannot func(p Protocol, tls string) string
}

// Clients lists every client, the default first.
var Clients = []Client{
	{Name: ClientLoader, cannot: func(Protocol, string) string { return "" }},
	{Name: ClientChromium, Browser: true, cannot: chromiumCannot},
}

func chromiumCannot(p Protocol, tls string) string {
	switch {
	case p.SPDY():
		return "Chromium removed SPDY in version 51 (2016) in favour of HTTP/2; load SPDY with client " + ClientLoader
	case tls == TLSNone:
		return "the lab's pages are https-only for Chromium (plaintext " + p.Name + " is the loader's); use tls 1.2 or 1.3"
	}
	return ""
}

// ClientNames are the valid Condition.Client values (list order).
func ClientNames() []string {
	n := make([]string, len(Clients))
	for i, c := range Clients {
		n[i] = c.Name
	}
	return n
}

// LookupClient finds a client by name; "" is the default loader.
func LookupClient(name string) (Client, bool) {
	if name == "" {
		name = ClientLoader
	}
	for _, c := range Clients {
		if c.Name == name {
			return c, true
		}
	}
	return Client{}, false
}

// ClientName is the condition's client, the default spelled out.
func (c Condition) ClientName() string {
	if c.Client == "" {
		return ClientLoader
	}
	return c.Client
}

// CheckClientProtocol returns an error naming the reason when client
// cannot load over proto with the given TLS version ("" = DefaultTLS).
func CheckClientProtocol(client, proto, tls string) error {
	cl, ok := LookupClient(client)
	if !ok {
		return fmt.Errorf("unknown client %q (want %s)", client, OneOf(ClientNames()))
	}
	p, ok := LookupProtocol(proto)
	if !ok {
		return CheckProtocol(proto)
	}
	tls = LoadTLS(p.Name, tls)
	if why := cl.cannot(p, tls); why != "" {
		return fmt.Errorf("client %s cannot load %s (tls %s): %s", cl.Name, p.Name, tls, why)
	}
	return nil
}

// Browser profiles (Condition.BrowserProfile): the browser whose requests
// the loader reproduces. The mechanisms each one switches on are the
// loader's (loader/profile.go); this list is their names.
const (
	ProfileChrome16       = "chrome16"        // Chrome 16 (2012), the seed studies' browser (the default)
	ProfileChromiumModern = "chromium-modern" // a current Chromium: request throttling, parse-gated h2 requests, modern headers
)

// BrowserProfiles are the valid Condition.BrowserProfile values ("" =
// ProfileChrome16).
var BrowserProfiles = []string{ProfileChrome16, ProfileChromiumModern}

// Renderer costs (Condition.RendererCosts) override the browser profile's
// (loader.RendererCosts): the time a browser's own processes spend
// between the network and the page, which depends on the machine. The
// default, RendererFromProfile, is stored empty; any other value is
// "COMMIT/DISPATCH", two durations such as "35ms/2ms" ("0s/0s" spends
// none), stored in time.Duration's spelling.
const RendererFromProfile = "profile"

// BrowserConnsPerHost is Chrome's limit of persistent HTTP/1.1
// connections per host (ClientSocketPool's per-group limit): the loader's
// pool (loader.DefaultMaxConnsPerHost) and the time model's
// (spec.ModelledLoad) read it here.
const BrowserConnsPerHost = 6

// ChromiumModernRenderer is the chromium-modern profile's renderer costs
// (COMMIT, DISPATCH): Chromium 156's on the lab's 2-core machine with
// nothing else running (the fidelity report's renderer table, pages A and
// B at 20 ms: commit 17.9 ms, dispatch 1.14 ms; beside other testbeds they
// were 41 and 2.3 ms). The loader spends them (loader.ApplyProfile) and
// critpath charges them as client compute, also when it explains a stored
// load again, so both read them here. Chrome 16's profile spends none.
var ChromiumModernRenderer = [2]time.Duration{18 * time.Millisecond, 1100 * time.Microsecond}

// ChromiumModernPaintCost is the time the chromium-modern profile's
// renderer takes from its first text being ready (its document, the
// stylesheets and parser-blocking scripts before that text done) to the
// first contentful paint: style, layout, paint and the frame, which the
// loader does not model step by step. Fitted on the calibration cells of
// bench/studies/paint-fidelity.toml (study pages A, B, C and youtube, one
// server, 10/1 Mbit/s, 20 and 100 ms, https and h2; 2026-11-29, commit
// 0dce056): the median over those 16 cells of Chromium's median FCP minus
// the loader's (25 to 88 ms, larger at 20 ms than at 100 ms). Judged on
// that study's validation cells; BENCHMARKS "The loader's paint estimates".
const ChromiumModernPaintCost = 55 * time.Millisecond

// ChromiumModernRendererFit is the calibration set ChromiumModernRenderer
// was fitted on, as the fidelity report states it: a number is judged on
// other cells (the fidelity study's validation set).
const ChromiumModernRendererFit = "the fidelity study's pages A and B at 20 ms RTT on its 10/1 Mbit/s grid " +
	"(in its calibration set), Chromium 156 alone on the lab's 2-core machine"

// LoaderRendererCosts are the renderer costs a loader load of c spends:
// RendererCostsSetting's when set, else its browser profile's. Browser
// clients spend their own (zero here). The profile's were fitted on
// ChromiumModernRendererFit (the fidelity study's calibration set); the
// fidelity report judges them on its validation set.
func LoaderRendererCosts(c Condition) (commit, dispatch time.Duration, err error) {
	if cl, ok := LookupClient(c.Client); ok && cl.Browser {
		return 0, 0, nil
	}
	if s := c.RendererCostsSetting(); s != "" && s != RendererFromProfile {
		return ParseRendererCosts(s)
	}
	if c.BrowserProfileName() == ProfileChromiumModern {
		return ChromiumModernRenderer[0], ChromiumModernRenderer[1], nil
	}
	return 0, 0, nil
}

// MaxRendererCost bounds each renderer cost: larger is a typo, not a
// browser.
const MaxRendererCost = time.Second

// ParseRendererCosts reads a "COMMIT/DISPATCH" pair.
func ParseRendererCosts(s string) (commit, dispatch time.Duration, err error) {
	a, b, ok := strings.Cut(s, "/")
	if !ok {
		return 0, 0, fmt.Errorf("renderer costs %q: want %q or COMMIT/DISPATCH durations, e.g. \"35ms/2ms\"", s, RendererFromProfile)
	}
	commit, err = units.ParseDurationIn(a, 0, MaxRendererCost, "ms")
	if err == nil {
		dispatch, err = units.ParseDurationIn(b, 0, MaxRendererCost, "ms")
	}
	if err != nil {
		return 0, 0, fmt.Errorf("renderer costs %q (COMMIT/DISPATCH, e.g. \"35ms/2ms\"): %v", s, err)
	}
	return commit, dispatch, nil
}

// CanonRendererCosts is v's canonical spelling: RendererFromProfile, or
// the pair in time.Duration's spelling.
func CanonRendererCosts(v string) (string, error) {
	if v == RendererFromProfile {
		return v, nil
	}
	commit, dispatch, err := ParseRendererCosts(v)
	if err != nil {
		return "", err
	}
	return commit.String() + "/" + dispatch.String(), nil
}

// normalizeRendererCosts checks RendererCosts and stores its canonical
// spelling (the default empty).
func normalizeRendererCosts(c Condition, cl Client) (Condition, error) {
	if c.RendererCosts == "" {
		return c, nil
	}
	v, err := CanonRendererCosts(c.RendererCosts)
	if err != nil {
		return c, err
	}
	if v == RendererFromProfile {
		v = ""
	}
	if cl.Browser && v != "" {
		return c, fmt.Errorf("renderer costs %s model a browser in the loader; client %s spends its own (leave them at %s)", v, cl.Name, RendererFromProfile)
	}
	c.RendererCosts = v
	return c, nil
}

// BrowserProfileName is the condition's profile, the default spelled out.
func (c Condition) BrowserProfileName() string {
	if c.BrowserProfile == "" {
		return ProfileChrome16
	}
	return c.BrowserProfile
}

// normalizeClient checks Client and BrowserProfile; the defaults stay
// empty (stored conditions keep their hash).
func normalizeClient(c Condition) (Condition, error) {
	if c.Client == ClientLoader {
		c.Client = ""
	}
	cl, ok := LookupClient(c.Client)
	if !ok {
		return c, fmt.Errorf("unknown client %q (want %s)", c.Client, OneOf(ClientNames()))
	}
	if c.BrowserProfile == ProfileChrome16 {
		c.BrowserProfile = ""
	}
	if c.BrowserProfile != "" && !member(c.BrowserProfile, BrowserProfiles) {
		return c, fmt.Errorf("unknown browser profile %q (want %s)", c.BrowserProfile, OneOf(BrowserProfiles))
	}
	if cl.Browser && c.BrowserProfile != "" {
		return c, fmt.Errorf("browser profile %s models a browser in the loader; client %s is a real browser (leave the profile at its default)", c.BrowserProfile, cl.Name)
	}
	if c.MainThreadTrace && !cl.Browser {
		return c, fmt.Errorf("main_thread_trace traces a real browser's renderer; client %s models its renderer (set client = %s, or drop main_thread_trace)", cl.Name, ClientChromium)
	}
	if c.SpeedIndex && !cl.Browser {
		return c, fmt.Errorf("speed_index needs a real browser's frames; client %s draws none, so it cannot give a Speed Index (set client = %s, or drop speed_index)", cl.Name, ClientChromium)
	}
	c, err := normalizeRendererCosts(c, cl)
	if err != nil {
		return c, err
	}
	if c.Proto != "" {
		if err := CheckClientProtocol(c.Client, c.Proto, c.TLS); err != nil {
			return c, err
		}
	}
	return c, nil
}
