package browser

import (
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/spdylab/spdylab/probe"
)

// ErrSPDYUnsupported explains why Chromium cannot load a page over SPDY.
var ErrSPDYUnsupported = errors.New("browser: Chromium cannot speak SPDY: it removed SPDY/3.1 in version 51 (2016) in favour of HTTP/2; load SPDY with the loader (--client loader)")

// Profile are the browser knobs a study may vary.
type Profile struct {
	UserAgent  string   // "" = Chromium's own
	Width      int      // window size in CSS pixels; 0 = 1280
	Height     int      // 0 = 800
	ExtraFlags []string // appended last (they win over ours)
	// NoCacheHeaders turns on DevTools' "disable cache", which also sends
	// cache-control/pragma: no-cache on every request (~40 bytes more per
	// request than a first visit). The cache is empty either way.
	NoCacheHeaders bool
}

// The window's size when the profile gives none.
const defaultWidth, defaultHeight = 1280, 800

// chromiumFlags builds the command line for one load (the profile
// directory is added by start).
func chromiumFlags(o *Options) ([]string, error) {
	w, h := o.Profile.Width, o.Profile.Height
	if w == 0 {
		w = defaultWidth
	}
	if h == 0 {
		h = defaultHeight
	}
	args := []string{
		"--headless",
		"--remote-debugging-pipe",
		"--no-first-run",
		"--no-default-browser-check",
		"--disable-gpu",
		"--mute-audio",
		"--hide-scrollbars",
		fmt.Sprintf("--window-size=%d,%d", w, h),
		// Nothing but the page on the wire: no component updates, safe
		// browsing, field trials, sync, translate, domain reliability.
		"--disable-background-networking",
		"--disable-component-update",
		"--disable-sync",
		"--disable-extensions",
		"--disable-default-apps",
		"--disable-domain-reliability",
		"--disable-client-side-phishing-detection",
		"--metrics-recording-only",
		"--no-pings",
		"--disable-breakpad",
		"--password-store=basic",
		"--use-mock-keychain",
		// The profile preference turns prediction off; these cover the
		// features that do not read it.
		"--dns-prefetch-disable",
		"--disable-features=NetworkPrediction,Prerender2,PreloadMediaEngagementData,LoadingPredictorUseOptimizationGuide,OptimizationHints,MediaRouter,Translate,InterestFeedContentSuggestions,AutofillServerCommunication,CertificateTransparencyComponentUpdater,HttpsUpgrades,HttpsFirstBalancedModeAutoEnable",
		"--disk-cache-size=1",
	}
	if os.Geteuid() == 0 {
		// Chromium refuses to run as root with its setuid/namespace sandbox.
		args = append(args, "--no-sandbox")
	}
	switch o.Proto {
	case probe.ProtoHTTPS:
		args = append(args, "--disable-http2", "--disable-quic")
	case probe.ProtoH2:
		args = append(args, "--disable-quic")
	case probe.ProtoH3:
		origins, err := quicOrigins(o)
		if err != nil {
			return nil, err
		}
		args = append(args, "--enable-quic", "--origin-to-force-quic-on="+strings.Join(origins, ","))
	case "":
		args = append(args, "--disable-quic") // the browser's choice of h1/h2, over TCP
	default:
		if p, ok := probe.LookupProtocol(o.Proto); ok && p.SPDY() {
			return nil, ErrSPDYUnsupported
		}
		return nil, fmt.Errorf("browser: unknown protocol %q (want https, h2 or h3)", o.Proto)
	}
	if rules, err := resolverRules(o.Resolve); err != nil {
		return nil, err
	} else if rules != "" {
		args = append(args, "--host-resolver-rules="+rules)
	}
	if spki, err := spkiList(o.TrustCerts); err != nil {
		return nil, err
	} else if spki != "" {
		args = append(args, "--ignore-certificate-errors-spki-list="+spki)
	}
	if o.Profile.UserAgent != "" {
		args = append(args, "--user-agent="+o.Profile.UserAgent)
	}
	return append(args, o.Profile.ExtraFlags...), nil
}

// resolverRules maps each host name to its address (Chromium's
// --host-resolver-rules syntax), and every other name to NOTFOUND so that
// nothing leaves the lab. An address may carry a port ("127.0.0.2:4431"),
// which replaces the URL's port when connecting (loopback benches listen
// on ephemeral ports). Empty when m is empty: Chromium then resolves
// through the namespace's resolv.conf and /etc/hosts.
func resolverRules(m map[string]string) (string, error) {
	if len(m) == 0 {
		return "", nil
	}
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	var rules []string
	for _, n := range names {
		addr := m[n]
		if n == "" || strings.ContainsAny(n, " ,:/") {
			return "", fmt.Errorf("browser: resolve: %q is not a host name", n)
		}
		host := addr
		if h, _, err := net.SplitHostPort(addr); err == nil {
			host = h
		}
		if net.ParseIP(host) == nil {
			return "", fmt.Errorf("browser: resolve: %s maps to %q, not an IP address (optionally with :port)", n, addr)
		}
		if strings.Contains(host, ":") && !strings.HasPrefix(addr, "[") {
			addr = "[" + addr + "]"
		}
		rules = append(rules, "MAP "+n+" "+addr)
	}
	return strings.Join(append(rules, "MAP * ~NOTFOUND"), ","), nil
}

// spkiList is the base64 SHA-256 of each certificate's public key, the
// form --ignore-certificate-errors-spki-list takes. Chromium then accepts
// exactly the chains that contain one of these keys (a lab CA's or a
// self-signed leaf's) and still rejects any other certificate error, unlike
// --ignore-certificate-errors.
func spkiList(certs []*x509.Certificate) (string, error) {
	var out []string
	for _, c := range certs {
		if c == nil || len(c.RawSubjectPublicKeyInfo) == 0 {
			return "", errors.New("browser: a trusted certificate has no public key")
		}
		out = append(out, SPKIHash(c))
	}
	return strings.Join(out, ","), nil
}

// SPKIHash is base64(SHA-256(SubjectPublicKeyInfo)) of c.
func SPKIHash(c *x509.Certificate) string {
	sum := sha256.Sum256(c.RawSubjectPublicKeyInfo)
	return base64.StdEncoding.EncodeToString(sum[:])
}

// quicOrigins lists host:port of the page's origins for
// --origin-to-force-quic-on: the page URL's and every name in Resolve.
func quicOrigins(o *Options) ([]string, error) {
	u, err := url.Parse(o.URL)
	if err != nil {
		return nil, fmt.Errorf("browser: page URL: %w", err)
	}
	port := u.Port()
	if port == "" {
		port = "443"
	}
	seen := map[string]bool{}
	var out []string
	add := func(h string) {
		if slices.Contains(o.HTTPSHosts, h) {
			return // a third party that never turned h3 on
		}
		hp := net.JoinHostPort(h, port)
		if !seen[hp] {
			seen[hp] = true
			out = append(out, hp)
		}
	}
	add(u.Hostname())
	names := make([]string, 0, len(o.Resolve))
	for n := range o.Resolve {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		add(n)
	}
	return out, nil
}
