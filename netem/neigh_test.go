package netem

import (
	"context"
	"fmt"
	"io"
	"net"
	"testing"
	"time"

	"github.com/spdylab/spdylab/internal/testutil"
	"github.com/spdylab/spdylab/probe"
	"github.com/vishvananda/netlink"
)

// Traffic between the client and every kind of host (a server's own
// address, sites on two servers, the router's DNS) must not make the
// kernel create a single neighbour entry: the machine-wide table those
// would join overflows when many testbeds run, and a packet whose entry
// cannot be created is dropped outside the emulated link (neigh.go).
// Every IPv4 entry in the testbed's namespaces is therefore one of the
// permanent entries New pinned, and each pinned next hop is there.
func TestTrafficCreatesNoNeighbourEntries(t *testing.T) {
	testutil.RequireRoot(t)
	t.Parallel()
	names := []string{"www.example.org", "cdn.example.net", "img.example.net"}
	tb := newTestbed(t, Config{Shards: 2, DNS: true, Names: names, Link: probe.Link{RTT: 2 * time.Millisecond, Shared: true}})
	for _, h := range append([]*Host{tb.Servers()[0], tb.Servers()[1]}, tb.Sites()...) {
		if err := fetchOwnAddress(tb, h); err != nil {
			t.Fatalf("%s: %v", h.Name, err)
		}
	}
	want := map[string]int{ // permanent entries each namespace holds
		tb.client.ns.name:     1,                  // sl0
		tb.router.ns.name:     1 + 2 + len(names), // sl0, both servers, every site
		tb.servers[0].ns.name: 1,                  // gateway
		tb.servers[1].ns.name: 1,
	}
	for _, ns := range []*namespace{tb.client.ns, tb.router.ns, tb.servers[0].ns, tb.servers[1].ns} {
		entries, err := neighbours(ns)
		if err != nil {
			t.Fatal(err)
		}
		pinned := 0
		for _, n := range entries {
			if n.State != netlink.NUD_PERMANENT {
				t.Errorf("%s: the kernel made a neighbour entry %s on link %d in state %#x; every next hop should be pinned", ns.name, n.IP, n.LinkIndex, n.State)
				continue
			}
			pinned++
		}
		if pinned != want[ns.name] {
			t.Errorf("%s: %d permanent neighbour entries, want %d: %v", ns.name, pinned, want[ns.name], entries)
		}
	}
}

// fetchOwnAddress connects from the client to h by name (resolved over
// the link through the router's DNS) and reads back the address h
// accepted on.
func fetchOwnAddress(tb *Testbed, h *Host) error {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := tb.Client().Resolver().LookupNetIP(ctx, "ip4", h.Name); err != nil {
		return fmt.Errorf("DNS: %w", err)
	}
	l, err := h.Listen("tcp4", h.HostPort(0))
	if err != nil {
		return err
	}
	defer l.Close()
	go func() {
		if c, err := l.Accept(); err == nil {
			io.WriteString(c, c.LocalAddr().String())
			c.Close()
		}
	}()
	c, err := tb.Client().DialContext(ctx, "tcp4", net.JoinHostPort(h.Name, portOf(l)))
	if err != nil {
		return err
	}
	defer c.Close()
	got, err := io.ReadAll(c)
	if err != nil || string(got) != l.Addr().String() {
		return fmt.Errorf("read %q, %v; want %s", got, err, l.Addr())
	}
	return nil
}

// neighbours lists every IPv4 neighbour entry of ns, NOARP ones included.
func neighbours(ns *namespace) ([]netlink.Neigh, error) {
	h, err := netlink.NewHandleAt(ns.handle)
	if err != nil {
		return nil, err
	}
	defer h.Close()
	return h.NeighList(0, netlink.FAMILY_V4)
}
