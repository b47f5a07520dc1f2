package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"
	"time"

	"github.com/spdylab/spdylab/internal/atomicfile"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/server"
)

func init() {
	register(command{
		name:     "serve",
		summary:  "serve a directory over spdy/3.1, spdy/3, spdy/2, h2 and http/1.1 (TLS+ALPN), or one of them over plain TCP",
		synopsis: "spdylab serve [--root DIR] [--listen HOST:PORT] [flags]",
		examples: []string{
			"spdylab serve --root site --listen 127.0.0.1:8443    # then: spdylab get -k https://127.0.0.1:8443/",
			"spdylab serve --root site --plain spdy/3 --listen 127.0.0.1:8080",
			"spdylab serve --root site --plain https --listen 127.0.0.1:8080    # HTTP/1.1, and h2c for a client that opens with h2's preface",
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
	if err := ex.h3.start(srv, l.Addr(), cfg.Plain != ""); err != nil {
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
