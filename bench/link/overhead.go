package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/vishvananda/netns"

	"github.com/spdylab/spdylab/internal/stats"
	"github.com/spdylab/spdylab/probe"
)

// vethPair is the baseline: two namespaces joined by a plain veth, no
// emulator, no router.
type vethPair struct{ a, b string }

func newVethPair() (*vethPair, error) {
	var r [3]byte
	rand.Read(r[:])
	id := hex.EncodeToString(r[:])
	v := &vethPair{a: "sl-bench-" + id + "-a", b: "sl-bench-" + id + "-b"}
	va, vb := "sl-b"+id+"a", "sl-b"+id+"b"
	cmds := [][]string{
		{"netns", "add", v.a}, {"netns", "add", v.b},
		{"link", "add", va, "netns", v.a, "type", "veth", "peer", "name", vb, "netns", v.b},
		{"-n", v.a, "addr", "add", "10.201.0.1/24", "dev", va}, {"-n", v.b, "addr", "add", "10.201.0.2/24", "dev", vb},
		{"-n", v.a, "link", "set", va, "up"}, {"-n", v.b, "link", "set", vb, "up"},
		{"-n", v.a, "link", "set", "lo", "up"}, {"-n", v.b, "link", "set", "lo", "up"},
	}
	for _, c := range cmds {
		if out, err := exec.Command("ip", c...).CombinedOutput(); err != nil {
			v.close()
			return nil, fmt.Errorf("ip %s: %v: %s", strings.Join(c, " "), err, out)
		}
	}
	return v, nil
}

// close deletes both namespaces (and with them the veth).
func (v *vethPair) close() {
	exec.Command("ip", "netns", "del", v.a).Run()
	exec.Command("ip", "netns", "del", v.b).Run()
}

// in runs fn on a thread inside namespace name; sockets made there stay there.
func in(name string, fn func() error) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	orig, err := netns.Get()
	if err != nil {
		return err
	}
	defer orig.Close()
	ns, err := netns.GetFromName(name)
	if err != nil {
		return err
	}
	defer ns.Close()
	if err := netns.Set(ns); err != nil {
		return err
	}
	defer netns.Set(orig)
	return fn()
}

// fetcher times one HTTP GET on a fresh connection.
type fetcher func() (time.Duration, error)

func httpFetcher(ctx context.Context, dial func(ctx context.Context, network, addr string) (net.Conn, error), url string) fetcher {
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true, DialContext: dial}}
	return func() (time.Duration, error) {
		t0 := time.Now()
		req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
		resp, err := client.Do(req)
		if err != nil {
			return 0, err
		}
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return time.Since(t0), err
	}
}

func overheadScenario(b *bench) error {
	fmt.Println("## Overhead of the emulator: 0 ms unlimited testbed link vs a plain veth (10 KB HTTP GET, new connection each)")
	fmt.Println()
	body := make([]byte, 10_000)
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(body) })

	tb, err := b.open(probe.Link{}, probe.TCP{})
	if err != nil {
		return err
	}
	defer b.close(tb)
	ln, err := tb.Servers()[0].Listen("tcp4", ":8080")
	if err != nil {
		return err
	}
	srv1 := &http.Server{Handler: handler}
	go srv1.Serve(ln)
	defer srv1.Close()
	viaEmu := httpFetcher(b.ctx, tb.Client().DialContext, "http://"+tb.Servers()[0].HostPort(8080)+"/")

	v, err := newVethPair()
	if err != nil {
		return err
	}
	defer v.close()
	var ln2 net.Listener
	if err := in(v.b, func() (err error) { ln2, err = net.Listen("tcp4", "10.201.0.2:8080"); return }); err != nil {
		return err
	}
	srv2 := &http.Server{Handler: handler}
	go srv2.Serve(ln2)
	defer srv2.Close()
	dialA := func(ctx context.Context, network, addr string) (c net.Conn, err error) {
		err = in(v.a, func() error { c, err = (&net.Dialer{}).DialContext(ctx, network, addr); return err })
		return
	}
	viaVeth := httpFetcher(b.ctx, dialA, "http://10.201.0.2:8080/")

	rounds, per := 20, 50
	if b.quick {
		rounds = 4
	}
	var emu, veth []float64
	for r := 0; r < rounds; r++ {
		for _, side := range []struct {
			f   fetcher
			out *[]float64
		}{{viaEmu, &emu}, {viaVeth, &veth}} {
			for i := 0; i < per; i++ {
				d, err := side.f()
				if err != nil {
					return err
				}
				*side.out = append(*side.out, float64(d)/1e3)
			}
		}
	}
	sort.Float64s(emu)
	sort.Float64s(veth)
	fmt.Println("| path | fetches | median | p90 |")
	fmt.Println("|---|---|---|---|")
	fmt.Printf("| plain veth | %d | %.0f µs | %.0f µs |\n", len(veth), stats.QuantileSorted(veth, 0.5), stats.QuantileSorted(veth, 0.9))
	fmt.Printf("| testbed, 0 ms unlimited (TUN + emulator + router) | %d | %.0f µs | %.0f µs |\n", len(emu), stats.QuantileSorted(emu, 0.5), stats.QuantileSorted(emu, 0.9))
	fmt.Printf("\nmedian difference: %+.0f µs (%+.1f%%)\n\n", stats.QuantileSorted(emu, 0.5)-stats.QuantileSorted(veth, 0.5), 100*(stats.QuantileSorted(emu, 0.5)/stats.QuantileSorted(veth, 0.5)-1))
	return nil
}
