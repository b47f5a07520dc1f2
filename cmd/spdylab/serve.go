package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/spdylab/spdylab/internal/atomicfile"
	"github.com/spdylab/spdylab/internal/tcpopt"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/server"
	"github.com/spdylab/spdylab/spdy"
)

func init() {
	register(command{
		name:     "serve",
		summary:  "serve a directory over spdy/3.1, spdy/3, spdy/2, h2 and http/1.1 (TLS+ALPN) or plain-TCP SPDY",
		synopsis: "spdylab serve [--root DIR] [--listen HOST:PORT] [flags]",
		examples: []string{
			"spdylab serve --root site --listen 127.0.0.1:8443    # then: spdylab get -k https://127.0.0.1:8443/",
			"spdylab serve --root site --plain spdy/3 --listen 127.0.0.1:8080",
			"spdylab serve --root site --push deps --pacing on --notsent-lowat 16384 --frame-size 4096",
		},
		run: runServe,
	})
}

func runServe(args []string, stdout, stderr io.Writer) int {
	cfg, listen, cpuProfile, ex, status := parseServeFlags(args, stderr)
	if status >= 0 {
		return status
	}
	srv, err := server.New(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "spdylab serve: %v\n", err)
		return 2
	}
	l, err := net.Listen("tcp", listen)
	if err != nil {
		srv.Close()
		fmt.Fprintf(stderr, "spdylab serve: %v\n", err)
		return 1
	}
	if err := ex.h3.start(srv, l.Addr(), cfg.PlainSPDY != ""); err != nil {
		srv.Close()
		l.Close()
		fmt.Fprintf(stderr, "spdylab serve: %v\n", err)
		return 1
	}
	if err := ex.sctp.start(srv, l.Addr(), stderr); err != nil {
		srv.Close()
		l.Close()
		fmt.Fprintf(stderr, "spdylab serve: %v\n", err)
		return 2
	}
	stopProfile, err := startCPUProfile(cpuProfile)
	if err != nil {
		srv.Close()
		l.Close()
		fmt.Fprintf(stderr, "spdylab serve: --cpuprofile: %v\n", err)
		return 1
	}
	defer stopProfile()
	return serveUntilSignal(srv, l, stdout, stderr)
}

// parseServeFlags turns the flags into the server's configuration; status
// is -1 to go on, else the exit status.
// serveExtras are the listeners beside TCP: h3 on UDP and SPDY over SCTP.
type serveExtras struct {
	h3   *serveH3Flags
	sctp *serveSCTPFlag
}

func parseServeFlags(args []string, stderr io.Writer) (cfg server.Config, listenAddr, cpuProfileFile string, ex serveExtras, status int) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	root := fs.String("root", "", "directory to serve (empty: only the /_spdylab/ endpoints)")
	listen := fs.String("listen", "127.0.0.1:8443", "`HOST:PORT` to listen on (port 0 picks a free one)")
	certFile := fs.String("cert", "", "PEM certificate `FILE` (default: a throw-away self-signed one)")
	keyFile := fs.String("key", "", "PEM private key `FILE` for --cert")
	hosts := fs.String("hosts", "", "comma-separated host names the throw-away certificate covers (localhost and 127.0.0.1 always)")
	protocols := fs.String("protocols", strings.Join(server.DefaultProtocols, ","), "ALPN protocols offered over TLS, most preferred first")
	plain := fs.String("plain", "", "serve this SPDY version ("+probe.OneOf(spdy.VersionNames())+") over plain TCP without TLS")
	tlsMin := fs.String("tls-min", probe.TLS12, "lowest TLS version: "+probe.OneOf(probe.TLSVersionNames()))
	tlsMax := fs.String("tls-max", probe.TLS13, "highest TLS version: "+probe.OneOf(probe.TLSVersionNames()))
	maxStreams := fs.Int("max-streams", 0, "SPDY and h2 max concurrent streams advertised (0 = 100)")
	initialWindow := fs.Int("initial-window", 0, "SPDY and h2 per-stream receive window in bytes (0 = protocol default)")
	sessionWindow := fs.Int("session-window", 0, "SPDY/3.1 session and h2 connection receive window in bytes (0 = protocol default)")
	frameSize := fs.Int("frame-size", 0, "largest SPDY DATA payload sent, in bytes (0 = 16384)")
	push := fs.String("push", "none", "server push policy: "+probe.OneOf(probe.PushPolicies)+" (as in spdylab load --push)")
	hints := fs.String("hints", probe.HintsNone, "SPDY server hints: "+probe.OneOf(probe.HintPolicies)+" (as in spdylab load --hints)")
	pacing := fs.String("pacing", probe.PacingOff, "TCP pacing of accepted connections: off, on (TCP's own rate) or a rate cap such as 8mbit")
	manifest := fs.String("manifest", "", "page manifest `FILE` (default: ROOT/manifest.json when present)")
	cc := fs.String("cc", "", "TCP congestion control for accepted connections (cubic, reno, bbr; default: the system's)")
	lowat := fs.Int("notsent-lowat", 0, "TCP_NOTSENT_LOWAT in bytes on every connection (0 = kernel default)")
	quiet := fs.Bool("quiet", false, "no access log on stderr")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the whole run to `FILE` on exit (for go tool pprof)")
	var spdy2Win spdy2WindowsFlag
	spdy2Win.register(fs)
	ex = serveExtras{h3: registerServeH3Flags(fs), sctp: registerServeSCTPFlag(fs)}
	limits := server.RegisterLimitFlags(fs)
	setHelp(fs, "Prints the server's URL as the first line on stdout and serves until\nSIGINT or SIGTERM. Besides the files under --root it answers\n/_spdylab/bytes?n=N&seed=S, POST /_spdylab/sha256 and /_spdylab/info\n(see the server package documentation).")
	if err := parseFlags(fs, args); err != nil {
		return cfg, "", "", ex, flagExit(err)
	}
	bad := func(format string, a ...any) (server.Config, string, string, serveExtras, int) {
		fmt.Fprintf(stderr, "spdylab serve: "+format+"\n", a...)
		return cfg, "", "", ex, 2
	}
	if fs.NArg() > 0 {
		return bad("unexpected arguments %q (the directory goes in --root)", fs.Args())
	}
	for name, v := range map[string]int{"--max-streams": *maxStreams, "--initial-window": *initialWindow, "--session-window": *sessionWindow, "--frame-size": *frameSize, "--notsent-lowat": *lowat} {
		if v < 0 || v > 1<<31-1 {
			return bad("%s %d is out of range (0 to 2147483647)", name, v)
		}
	}
	if *frameSize != 0 && (*frameSize < 1 || *frameSize > 1<<24-1) {
		return bad("--frame-size %d: a SPDY frame carries 1 to 16777215 bytes", *frameSize)
	}
	pacingRate, err := servePacing(*pacing)
	if err != nil {
		return bad("--pacing %q: %v", *pacing, err)
	}
	if (*certFile == "") != (*keyFile == "") {
		return bad("--cert and --key go together")
	}
	minV, err := serveTLSVersion(*tlsMin)
	if err != nil {
		return bad("--tls-min: %v", err)
	}
	maxV, err := serveTLSVersion(*tlsMax)
	if err != nil {
		return bad("--tls-max: %v", err)
	}
	cfg = server.Config{
		Root:         *root,
		Manifest:     *manifest,
		PlainSPDY:    *plain,
		TLSMin:       minV,
		TLSMax:       maxV,
		Push:         *push,
		CC:           *cc,
		NotSentLowat: *lowat,
		PacingRate:   pacingRate,
		Hints:        *hints,
	}
	for _, p := range strings.Split(*protocols, ",") {
		if p = strings.TrimSpace(p); p != "" {
			cfg.Protocols = append(cfg.Protocols, p)
		}
	}
	for _, h := range strings.Split(*hosts, ",") {
		if h = strings.TrimSpace(h); h != "" {
			cfg.HostNames = append(cfg.HostNames, h)
		}
	}
	cfg.H3 = ex.h3.config(*maxStreams, *initialWindow, *sessionWindow)
	cfg.SPDY.MaxConcurrentStreams = uint32(*maxStreams)
	cfg.SPDY.InitialWindowSize = int32(*initialWindow)
	cfg.SPDY.SessionWindowSize = int32(*sessionWindow)
	cfg.SPDY.MaxFrameSize = *frameSize
	cfg.SPDY.SPDY2StreamWindows = spdy2Win.mode
	cfg.H2 = server.H2Config{
		MaxConcurrentStreams: uint32(*maxStreams),
		InitialWindowSize:    int32(*initialWindow),
		ConnWindowSize:       int32(*sessionWindow),
	}
	limits.Apply(&cfg) // after H2 and SPDY are filled in: it sets their limit fields
	if *certFile != "" {
		c, err := tls.LoadX509KeyPair(*certFile, *keyFile)
		if err != nil {
			return bad("loading --cert/--key: %v", err)
		}
		cfg.Certificate = &c
	}
	if !*quiet {
		cfg.Log = log.New(stderr, "serve: ", log.LstdFlags|log.Lmicroseconds)
	}
	return cfg, *listen, *cpuProfile, ex, -1
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

// startCPUProfile starts profiling into file ("" = no profile) and returns
// how to stop it.
func startCPUProfile(file string) (stop func(), err error) {
	if file == "" {
		return func() {}, nil
	}
	f, err := atomicfile.Create(file)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Abort()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Commit(); err != nil {
			fmt.Fprintf(os.Stderr, "spdylab serve: cpu profile: %v\n", err)
		}
	}, nil
}

// serveUntilSignal serves on l, prints the server's URL as the first line
// on stdout, and shuts down gracefully on SIGINT or SIGTERM.
func serveUntilSignal(srv *server.Server, l net.Listener, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(l) }()
	// Serve sets the URL synchronously before accepting; wait for it so the
	// first line is always the URL.
	for srv.URL() == "" {
		select {
		case err := <-errc:
			fmt.Fprintf(stderr, "spdylab serve: %v\n", err)
			return 1
		case <-time.After(time.Millisecond):
		}
	}
	fmt.Fprintln(stdout, srv.URL())
	select {
	case <-ctx.Done():
	case err := <-errc:
		if !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintf(stderr, "spdylab serve: %v\n", err)
			srv.Close()
			return 1
		}
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		fmt.Fprintf(stderr, "spdylab serve: shutdown: %v\n", err)
	}
	return 0
}

func serveTLSVersion(s string) (uint16, error) {
	if s == "" {
		return 0, fmt.Errorf("no TLS version given (want %s)", probe.OneOf(probe.TLSVersionNames()))
	}
	return probe.ParseTLSVersion(s)
}
