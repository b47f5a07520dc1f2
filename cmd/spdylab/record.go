package main

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spdylab/spdylab/browser"
	"github.com/spdylab/spdylab/internal/atomicfile"
)

func init() {
	register(command{
		name:     "record",
		summary:  "record a page load with headless Chromium into a HAR 1.2 file with initiators",
		synopsis: "spdylab record [flags] URL -o FILE.har",
		examples: []string{
			"spdylab record https://example.com/ -o example.har",
			"spdylab record --proto h2 --trust cert.pem --resolve s1.spdylab.test=127.0.0.1:8443 https://s1.spdylab.test/ -o lab.har",
		},
		run: func(args []string, stdout, stderr io.Writer) int {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return runRecord(ctx, args, stdout, stderr)
		},
	})
}

const recordAbout = `Loads URL once with headless Chromium (fresh profile, cache off, network
prediction off) and writes the load as HAR 1.2, each entry with Chromium's
_initiator (parser with line/column, script with its stack, or other),
_priority, connection id and protocol: the input of 'spdylab page import'.
The load ends when the network has been quiet for --settle after onload.

A page served in the lab: start 'spdylab serve --cert C.pem --key K.pem'
and pass the same certificate (or its CA) with --trust C.pem; inside
'spdylab shell' the testbed resolves the names, on loopback map them with
--resolve NAME=127.0.0.1[:PORT]. A public site needs no flags.`

func runRecord(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("record", flag.ContinueOnError)
	fs.SetOutput(stderr)
	setHelp(fs, recordAbout)
	out := fs.String("o", "", "HAR file to write (required)")
	proto := fs.String("proto", "", "https (HTTP/1.1 only), h2, h3, or empty for Chromium's own choice over TCP")
	timeout := duration(fs, "timeout", browser.DefaultTimeout, "s", "give up on the load after this long")
	settle := duration(fs, "settle", browser.DefaultSettle, "ms", "quiet time after onload that ends the recording")
	chromium := fs.String("chromium", "", "Chromium binary (default: $SPDYLAB_CHROMIUM or the installed one)")
	ua := fs.String("user-agent", "", "user agent (default: Chromium's)")
	var resolve, trust stringList
	fs.Var(&resolve, "resolve", "NAME=ADDR[:PORT]: connect to ADDR for host NAME (repeatable; then other names do not resolve)")
	fs.Var(&trust, "trust", "PEM file of a CA or server certificate to trust (repeatable)")
	// Flags may come after the URL too (spdylab record URL -o FILE).
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	var url string
	switch len(pos) {
	case 0:
	case 1:
		url = pos[0]
	default:
		fmt.Fprintf(stderr, "spdylab record: unexpected arguments %q\n", pos[1:])
		return 2
	}
	if url == "" || *out == "" {
		fs.Usage()
		return 2
	}
	o := browser.Options{URL: url, Proto: *proto, Timeout: *timeout, Settle: *settle, Binary: *chromium,
		Profile: browser.Profile{UserAgent: *ua}}
	if o.Resolve, err = parseResolve(resolve); err != nil {
		fmt.Fprintf(stderr, "spdylab record: %v\n", err)
		return 2
	}
	if o.TrustCerts, err = readCertFiles(trust); err != nil {
		fmt.Fprintf(stderr, "spdylab record: %v\n", err)
		return 2
	}
	start := time.Now()
	rec, loadErr := browser.Record(ctx, o)
	if loadErr != nil {
		fmt.Fprintf(stderr, "spdylab record: %v\n", loadErr)
		return 1 // nothing written: a failed recording is not a page
	}
	if err := atomicfile.Write(*out, rec.HAR); err != nil {
		fmt.Fprintf(stderr, "spdylab record: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "%s: %d requests (%d with initiators), %d connections, onload %.0f ms, PLT %.0f ms; recorded in %.1f s\n",
		*out, rec.Requests, rec.WithInitiator, rec.Result.Connections, rec.OnLoadMs, rec.Result.PLTms, time.Since(start).Seconds())
	return 0
}

// parseResolve reads NAME=ADDR flags.
func parseResolve(flags []string) (map[string]string, error) {
	if len(flags) == 0 {
		return nil, nil
	}
	m := map[string]string{}
	for _, f := range flags {
		name, addr, ok := strings.Cut(f, "=")
		if !ok || name == "" || addr == "" {
			return nil, fmt.Errorf("--resolve %q: want NAME=ADDR", f)
		}
		m[name] = addr
	}
	return m, nil
}

// readCertFiles reads every certificate in the PEM files.
func readCertFiles(files []string) ([]*x509.Certificate, error) {
	var out []*x509.Certificate
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("--trust: %w", err)
		}
		n := 0
		for {
			var blk *pem.Block
			blk, b = pem.Decode(b)
			if blk == nil {
				break
			}
			if blk.Type != "CERTIFICATE" {
				continue
			}
			c, err := x509.ParseCertificate(blk.Bytes)
			if err != nil {
				return nil, fmt.Errorf("--trust %s: %w", f, err)
			}
			out = append(out, c)
			n++
		}
		if n == 0 {
			return nil, fmt.Errorf("--trust %s: no PEM certificate in it", f)
		}
	}
	return out, nil
}
