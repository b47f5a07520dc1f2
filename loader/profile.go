package loader

import (
	"fmt"

	"github.com/spdylab/spdylab/client"
	"github.com/spdylab/spdylab/har"
	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
)

// A browser profile is the set of loader mechanisms that make it behave
// as one browser: which requests it holds back (throttle.go) and what its
// requests look like. Each mechanism stays a separate Options field, so a
// study can switch one on at a time; ApplyProfile sets them all by the
// profile's name (probe.BrowserProfiles owns the names).

// HeaderSet chooses the request headers the loader sends.
type HeaderSet int

const (
	// HeadersChrome16 are Chrome 16's (about 365 bytes per image request
	// over HTTP/1.1): what the seed studies' header compression saved on.
	HeadersChrome16 HeaderSet = iota
	// HeadersChromiumModern are a current Chromium's, as Chromium 156
	// sends them (recorded with `spdylab load --client chromium --har`):
	// client hints, sec-fetch-*, the longer Accept (about 550 bytes per
	// image request over HTTP/1.1).
	HeadersChromiumModern
)

// ApplyProfile sets o's mechanisms to those of the named browser profile
// ("" = probe.ProfileChrome16); renderer, when not empty or
// probe.RendererFromProfile, replaces the profile's renderer costs
// (probe.ParseRendererCosts).
func ApplyProfile(o *Options, name, renderer string) error {
	if err := applyProfile(o, name); err != nil {
		return err
	}
	if renderer == "" || renderer == probe.RendererFromProfile {
		return nil
	}
	commit, dispatch, err := probe.ParseRendererCosts(renderer)
	if err != nil {
		return fmt.Errorf("loader: %w", err)
	}
	// The durations are the machine's; how the thread hands requests on
	// stays the profile's.
	o.Renderer.CommitDelay, o.Renderer.DispatchCost = commit, dispatch
	return nil
}

func applyProfile(o *Options, name string) error {
	switch name {
	case "", probe.ProfileChrome16:
		o.Throttle, o.Headers, o.Windows, o.Renderer = RequestThrottle{}, HeadersChrome16, ReceiveWindows{}, RendererCosts{}
		o.StyleAfterScripts, o.ScriptsAwaitStyles, o.RaceConnects, o.HelloPadding = false, false, false, 0
	case probe.ProfileChromiumModern:
		o.Throttle = ChromiumThrottle
		o.Headers = HeadersChromiumModern
		o.Windows = ChromiumWindows
		o.Renderer = ChromiumRendererCosts
		o.StyleAfterScripts, o.ScriptsAwaitStyles, o.RaceConnects, o.HelloPadding = true, true, true, ChromiumHelloPadding
	default:
		return fmt.Errorf("loader: unknown browser profile %q (want %s)", name, probe.OneOf(probe.BrowserProfiles))
	}
	return nil
}

// ChromiumThrottle is a modern Chromium's ResourceScheduler in the terms
// of RequestThrottle.
var ChromiumThrottle = RequestThrottle{MaxDelayable: 10, MaxDelayablePerHost: 6, UntilParsed: true, MultiplexedUncapped: true}

// ChromiumRendererCosts are the chromium-modern profile's
// (probe.ChromiumModernRenderer, where critpath reads them too).
var ChromiumRendererCosts = RendererCosts{CommitDelay: probe.ChromiumModernRenderer[0], DispatchCost: probe.ChromiumModernRenderer[1],
	PaintCost: probe.ChromiumModernPaintCost}

// ReceiveWindows are the receive windows a browser opens on SPDY, HTTP/2
// and QUIC connections. Zero values are SPDY/3's 64 KiB per stream, the
// window of Chrome 16's era and of the seed studies.
type ReceiveWindows struct {
	Stream, Session int
}

// ChromiumWindows are a modern Chromium's (kSpdyStreamMaxRecvWindowSize,
// kSpdySessionMaxRecvWindowSize, and the same sizes for QUIC): with 64 KiB
// per stream, a server sending a few large objects stops at each window
// and then bursts on the WINDOW_UPDATE, which with four hosts overflowed
// the fidelity study's 50-packet queue twice as often as Chromium's loads.
var ChromiumWindows = ReceiveWindows{Stream: client.ChromeStreamWindow, Session: client.ChromeConnWindow}

// windows are the stream and session receive windows of a load's SPDY,
// h2 and h3 connections: the condition's initial window when it sets one,
// else the profile's, else 64 KiB, each with a session window of at least
// 10 MiB (sessionWindow), unless Options.SessionWindow sets it.
func (o *Options) windows(protoDefault int) (stream, session int) {
	stream, session = o.defaultWindows(protoDefault)
	if o.SessionWindow > 0 {
		session = o.SessionWindow
	}
	return stream, session
}

// defaultWindows are windows without Options.SessionWindow.
func (o *Options) defaultWindows(protoDefault int) (stream, session int) {
	switch {
	case o.InitialWindow > 0:
		stream = o.InitialWindow
	case o.Windows.Stream > 0:
		return o.Windows.Stream, max(o.Windows.Session, o.Windows.Stream)
	default:
		stream = protoDefault
	}
	return stream, sessionWindow(stream)
}

// sessionWindow is the connection-level receive window: Chromium let a
// session receive far more than one stream's window (10 MiB), so that
// flow control never throttles a page with many streams in flight.
func sessionWindow(stream int) int {
	if w := 10 << 20; stream < w {
		return w
	}
	return stream
}

// Modern Chromium's identity, as its requests carry it.
const (
	modernUserAgent    = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36"
	modernClientHints  = `"Not:A-Brand";v="8", "Chromium";v="156"`
	modernAcceptEnc    = "gzip, deflate, br, zstd"
	modernAcceptLang   = "en-US,en;q=0.9"
	modernAcceptHTML   = "text/html,application/xhtml+xml,application/xml;q=0.9,image/jxl,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7"
	modernAcceptImage  = "image/jxl,image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8"
	modernAcceptCSS    = "text/css,*/*;q=0.1"
	modernAcceptScript = "*/*"
)

// modernRequestHeaders are a current Chromium's headers for e, in its
// HTTP/1.1 order (Host and Connection are the protocol's).
func modernRequestHeaders(e *entry) []har.NameValue {
	accept, dest, mode := modernAcceptScript, "empty", "no-cors"
	switch e.typ {
	case page.TypeHTML:
		accept, dest, mode = modernAcceptHTML, "document", "navigate"
	case page.TypeCSS:
		accept, dest = modernAcceptCSS, "style"
	case page.TypeJS:
		dest = "script"
	case page.TypeImage:
		accept, dest = modernAcceptImage, "image"
	}
	h := []har.NameValue{
		{Name: "sec-ch-ua", Value: modernClientHints},
		{Name: "sec-ch-ua-mobile", Value: "?0"},
		{Name: "sec-ch-ua-platform", Value: `"Linux"`},
	}
	if e.parent == nil {
		h = append(h, har.NameValue{Name: "Upgrade-Insecure-Requests", Value: "1"})
	}
	h = append(h,
		har.NameValue{Name: "User-Agent", Value: modernUserAgent},
		har.NameValue{Name: "Accept", Value: accept},
		har.NameValue{Name: "Sec-Fetch-Site", Value: fetchSite(e)},
		har.NameValue{Name: "Sec-Fetch-Mode", Value: mode},
	)
	if e.parent == nil {
		h = append(h, har.NameValue{Name: "Sec-Fetch-User", Value: "?1"})
	}
	h = append(h, har.NameValue{Name: "Sec-Fetch-Dest", Value: dest})
	if e.parent != nil {
		h = append(h, har.NameValue{Name: "Referer", Value: e.parent.url.String()})
	}
	return append(h,
		har.NameValue{Name: "Accept-Encoding", Value: modernAcceptEnc},
		har.NameValue{Name: "Accept-Language", Value: modernAcceptLang},
	)
}

// fetchSite is Sec-Fetch-Site: "none" for the navigation, "same-origin"
// for the document's host, else "same-site" (the shards share the
// registrable domain spdylab.test).
func fetchSite(e *entry) string {
	if e.parent == nil {
		return "none"
	}
	root := e.parent
	for root.parent != nil {
		root = root.parent
	}
	if root.url.Host == e.url.Host {
		return "same-origin"
	}
	return "same-site"
}
