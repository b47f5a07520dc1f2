package main

import (
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"strings"

	"github.com/spdylab/spdylab/internal/tcpopt"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/server"
)

// serveExtras are the listeners beside TCP: h3 on UDP and SPDY over SCTP.
type serveExtras struct {
	h3   *serveH3Flags
	sctp *serveSCTPFlag
}

// serveFlags are serve's flags as registered, before they are checked.
type serveFlags struct {
	root, listen, certFile, keyFile, hosts, protocols, plain *string
	tlsMin, tlsMax, push, hints, pacing, manifest, cc        *string
	maxStreams, initialWindow, sessionWindow, frameSize      *int
	lowat                                                    *int
	quiet                                                    *bool
	cpuProfile                                               *string
	spdy2Win                                                 spdy2WindowsFlag
	limits                                                   *server.LimitFlags
}

// parseServeFlags turns the flags into the server's configuration; status
// is -1 to go on, else the exit status.
func parseServeFlags(args []string, stderr io.Writer) (cfg server.Config, listenAddr, cpuProfileFile string, ex serveExtras, status int) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := registerServeFlags(fs)
	ex = serveExtras{h3: registerServeH3Flags(fs), sctp: registerServeSCTPFlag(fs)}
	f.limits = server.RegisterLimitFlags(fs)
	setHelp(fs, "Prints the server's URL as the first line on stdout and serves until\nSIGINT or SIGTERM. Besides the files under --root it answers\n/_spdylab/bytes?n=N&seed=S, POST /_spdylab/sha256 and /_spdylab/info\n(see the server package documentation).")
	if err := parseFlags(fs, args); err != nil {
		return cfg, "", "", ex, flagExit(err)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "spdylab serve: unexpected arguments %q (the directory goes in --root)\n", fs.Args())
		return cfg, "", "", ex, 2
	}
	cfg, err := f.config(ex, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "spdylab serve: %v\n", err)
		return cfg, "", "", ex, 2
	}
	return cfg, *f.listen, *f.cpuProfile, ex, -1
}

// registerServeFlags registers serve's own flags on fs (the h3, SCTP and
// limit flags register themselves).
func registerServeFlags(fs *flag.FlagSet) *serveFlags {
	f := &serveFlags{
		root:          fs.String("root", "", "directory to serve (empty: only the /_spdylab/ endpoints)"),
		listen:        fs.String("listen", "127.0.0.1:8443", "`HOST:PORT` to listen on (port 0 picks a free one)"),
		certFile:      fs.String("cert", "", "PEM certificate `FILE` (default: a throw-away self-signed one)"),
		keyFile:       fs.String("key", "", "PEM private key `FILE` for --cert"),
		hosts:         fs.String("hosts", "", "comma-separated host names the throw-away certificate covers (localhost and 127.0.0.1 always)"),
		protocols:     fs.String("protocols", strings.Join(server.DefaultProtocols, ","), "ALPN protocols offered over TLS, most preferred first"),
		plain:         fs.String("plain", "", "serve this protocol ("+probe.OneOf(plainTCPProtocols())+") over plain TCP without TLS (https and h2 share the port: HTTP/1.1 and h2c)"),
		tlsMin:        fs.String("tls-min", probe.TLS12, "lowest TLS version: "+probe.OneOf(probe.TLSVersionNames())),
		tlsMax:        fs.String("tls-max", probe.TLS13, "highest TLS version: "+probe.OneOf(probe.TLSVersionNames())),
		maxStreams:    fs.Int("max-streams", 0, "SPDY and h2 max concurrent streams advertised (0 = 100)"),
		initialWindow: fs.Int("initial-window", 0, "SPDY and h2 per-stream receive window in bytes (0 = protocol default)"),
		sessionWindow: fs.Int("session-window", 0, "SPDY/3.1 session and h2 connection receive window in bytes (0 = protocol default)"),
		frameSize:     fs.Int("frame-size", 0, "largest SPDY DATA payload sent, in bytes (0 = 16384)"),
		push:          fs.String("push", "none", "server push policy: "+probe.OneOf(probe.PushPolicies)+" (as in spdylab load --push)"),
		hints:         fs.String("hints", probe.HintsNone, "SPDY server hints: "+probe.OneOf(probe.HintPolicies)+" (as in spdylab load --hints)"),
		pacing:        fs.String("pacing", probe.PacingOff, "TCP pacing of accepted connections: off, on (TCP's own rate) or a rate cap such as 8mbit"),
		manifest:      fs.String("manifest", "", "page manifest `FILE` (default: ROOT/manifest.json when present)"),
		cc:            fs.String("cc", "", "TCP congestion control for accepted connections (cubic, reno, bbr; default: the system's)"),
		lowat:         fs.Int("notsent-lowat", 0, "TCP_NOTSENT_LOWAT in bytes on every connection (0 = kernel default)"),
		quiet:         fs.Bool("quiet", false, "no access log on stderr"),
		cpuProfile:    fs.String("cpuprofile", "", "write a CPU profile of the whole run to `FILE` on exit (for go tool pprof)"),
	}
	f.spdy2Win.register(fs)
	return f
}

// config checks the flags' values and builds the server's configuration;
// errors name the flag.
func (f *serveFlags) config(ex serveExtras, stderr io.Writer) (server.Config, error) {
	var cfg server.Config
	if err := f.checkNumbers(); err != nil {
		return cfg, err
	}
	pacingRate, err := servePacing(*f.pacing)
	if err != nil {
		return cfg, fmt.Errorf("--pacing %q: %v", *f.pacing, err)
	}
	if (*f.certFile == "") != (*f.keyFile == "") {
		return cfg, errors.New("--cert and --key go together")
	}
	minV, err := serveTLSVersion(*f.tlsMin)
	if err != nil {
		return cfg, fmt.Errorf("--tls-min: %v", err)
	}
	maxV, err := serveTLSVersion(*f.tlsMax)
	if err != nil {
		return cfg, fmt.Errorf("--tls-max: %v", err)
	}
	plainProto, err := servePlainProtocol(*f.plain)
	if err != nil {
		return cfg, fmt.Errorf("--plain %q: %v", *f.plain, err)
	}
	cfg = server.Config{
		Root:         *f.root,
		Manifest:     *f.manifest,
		Plain:        plainProto,
		TLSMin:       minV,
		TLSMax:       maxV,
		Push:         *f.push,
		CC:           *f.cc,
		NotSentLowat: *f.lowat,
		PacingRate:   pacingRate,
		Hints:        *f.hints,
		Protocols:    commaList(*f.protocols),
		HostNames:    commaList(*f.hosts),
	}
	f.applyWindows(&cfg, ex)
	f.limits.Apply(&cfg) // after H2 and SPDY are filled in: it sets their limit fields
	if *f.certFile != "" {
		c, err := tls.LoadX509KeyPair(*f.certFile, *f.keyFile)
		if err != nil {
			return cfg, fmt.Errorf("loading --cert/--key: %v", err)
		}
		cfg.Certificate = &c
	}
	if !*f.quiet {
		cfg.Log = log.New(stderr, "serve: ", log.LstdFlags|log.Lmicroseconds)
	}
	return cfg, nil
}

// checkNumbers refuses a window, stream count, frame size or low-water
// mark the protocols cannot carry.
func (f *serveFlags) checkNumbers() error {
	for name, v := range map[string]int{"--max-streams": *f.maxStreams, "--initial-window": *f.initialWindow, "--session-window": *f.sessionWindow, "--frame-size": *f.frameSize, "--notsent-lowat": *f.lowat} {
		if v < 0 || v > 1<<31-1 {
			return fmt.Errorf("%s %d is out of range (0 to 2147483647)", name, v)
		}
	}
	if *f.frameSize != 0 && (*f.frameSize < 1 || *f.frameSize > 1<<24-1) {
		return fmt.Errorf("--frame-size %d: a SPDY frame carries 1 to 16777215 bytes", *f.frameSize)
	}
	return nil
}

// applyWindows gives SPDY, h2 and h3 the same stream limit and windows.
func (f *serveFlags) applyWindows(cfg *server.Config, ex serveExtras) {
	cfg.H3 = ex.h3.config(*f.maxStreams, *f.initialWindow, *f.sessionWindow)
	cfg.SPDY.MaxConcurrentStreams = uint32(*f.maxStreams)
	cfg.SPDY.InitialWindowSize = int32(*f.initialWindow)
	cfg.SPDY.SessionWindowSize = int32(*f.sessionWindow)
	cfg.SPDY.MaxFrameSize = *f.frameSize
	cfg.SPDY.SPDY2StreamWindows = f.spdy2Win.mode
	cfg.H2 = server.H2Config{
		MaxConcurrentStreams: uint32(*f.maxStreams),
		InitialWindowSize:    int32(*f.initialWindow),
		ConnWindowSize:       int32(*f.sessionWindow),
	}
}

// commaList is a comma-separated flag's non-empty items, trimmed.
func commaList(s string) []string {
	var out []string
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// servePacing is --pacing as SO_MAX_PACING_RATE in bytes/s: the pacing
// factor's values but link, which needs a condition's downlink.
func servePacing(v string) (uint64, error) {
	f, _ := probe.LookupField("pacing")
	canon, err := f.Canon(v)
	if err != nil {
		return 0, err
	}
	if canon == probe.PacingLink {
		return 0, fmt.Errorf("%s paces at an emulated link's rate, which serve has none of: give a rate such as 8mbit", probe.PacingLink)
	}
	c := probe.Condition{TCP: probe.TCP{Pacing: canon}}
	return uint64(c.PacingBitsPerSecond(tcpopt.PacingUncapped*8) / 8), nil
}
