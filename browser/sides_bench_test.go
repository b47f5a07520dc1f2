package browser

import (
	"context"
	"crypto/x509"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/spdylab/spdylab/probe"
)

// benchRuns is the loads per side a benchmark makes: the positive number
// in the environment variable env, or def.
func benchRuns(env string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(env)); err == nil && n > 0 {
		return n
	}
	return def
}

// sidesBench compares Chromium loads that differ in one option, where the
// noise of a shared machine reaches the comparison least: pageA on two
// hosts over loopback (h2, TLS 1.3), the sides loaded in turn.
type sidesBench struct {
	site    *labSite
	pageURL string
	resolve map[string]string
	cpu     float64 // Chromium's CPU seconds in the last load
}

func newSidesBench(b *testing.B) *sidesBench {
	requireChromium(b)
	sb := &sidesBench{site: newLabSite(b, "pageA", 2)}
	sb.pageURL, sb.resolve = sb.site.serveLoopback(b, 0)
	cpuHook = func(s float64) { sb.cpu = s }
	b.Cleanup(func() { cpuHook = nil })
	return sb
}

// sideLoads are each side's wall seconds, Chromium CPU seconds and PLT
// (ms) per load, in the order loaded.
type sideLoads struct {
	wall, cpu, plt [][]float64
}

// load makes runs rounds of one load per side, the order rotated every
// round so that no side always follows the same one. set readies a side's
// load (its options, any hook it needs); check looks at its result.
func (sb *sidesBench) load(b *testing.B, runs, sides int, set func(side int, o *Options), check func(side, run int, res probe.Result)) sideLoads {
	l := sideLoads{wall: make([][]float64, sides), cpu: make([][]float64, sides), plt: make([][]float64, sides)}
	for run := 0; run < runs; run++ {
		for k := range sides {
			side := (run + k) % sides
			o := Options{URL: sb.pageURL, Proto: probe.ProtoH2, TLSVersion: "1.3", Resolve: sb.resolve,
				TrustCerts: []*x509.Certificate{sb.site.ca}, Manifest: sb.site.m}
			set(side, &o)
			start := time.Now()
			res, err := Load(context.Background(), o)
			wall := time.Since(start).Seconds()
			if err != nil {
				b.Fatal(err)
			}
			check(side, run, res)
			l.wall[side] = append(l.wall[side], wall)
			l.cpu[side] = append(l.cpu[side], sb.cpu)
			l.plt[side] = append(l.plt[side], res.PLTms)
		}
	}
	return l
}

func maxOf(xs []float64) float64 {
	m := 0.0
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}
