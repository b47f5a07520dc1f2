package netem

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/spdylab/spdylab/internal/testutil"
	"github.com/spdylab/spdylab/probe"
)

func TestNamesAreValidated(t *testing.T) {
	many := make([]string, MaxNames(2)+1)
	for i := range many {
		many[i] = fmt.Sprintf("h%d.example", i)
	}
	for _, c := range []struct {
		names []string
		want  string
	}{
		{[]string{"a.example", "A.example"}, "given twice"},
		{[]string{"s1.spdylab.test"}, "testbed's own names"},
		{[]string{"10.1.2.3"}, "an address"},
		{[]string{"bad name"}, "not a DNS name"},
		{[]string{""}, "not a DNS name"},
		{many, "do not fit on 2 servers"},
	} {
		err := validateNames(c.names, 2)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("names %.40q: error %v, want one saying %q", c.names, err, c.want)
		}
		if _, err := New(context.Background(), Config{Shards: 2, Names: c.names}); err == nil {
			t.Errorf("New accepted names %.40q", c.names)
		}
	}
}

func TestLoopbackSitesHaveTheirOwnAddresses(t *testing.T) {
	names := []string{"www.example.org", "cdn.example.net", "ads.example.com"}
	tb, err := NewLoopback(2, names)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[netip.Addr]bool{}
	for i, h := range tb.Sites() {
		if h.Name != names[i] || !h.Addr.IsLoopback() || seen[h.Addr] {
			t.Errorf("site %d: %s at %s", i, h.Name, h.Addr)
		}
		seen[h.Addr] = true
		if a, ok := tb.Lookup(h.Name); !ok || a != h.Addr {
			t.Errorf("Lookup(%s) = %v %v", h.Name, a, ok)
		}
	}
	if on1, on2 := tb.SitesOn(tb.Servers()[0]), tb.SitesOn(tb.Servers()[1]); len(on1) != 2 || len(on2) != 1 {
		t.Errorf("sites per server: %d and %d, want 2 and 1 (round robin)", len(on1), len(on2))
	}
	if plain := Loopback(2); len(plain.Sites()) != 2 || plain.Sites()[0] != plain.Servers()[0] {
		t.Error("a testbed without names does not serve from its servers")
	}
}

// Every name of a replayed page answers at its own address behind the
// link, resolved over the testbed's DNS, and a server accepting on that
// address sees the connection there.
func TestSitesServeBehindTheLink(t *testing.T) {
	testutil.RequireRoot(t)
	t.Parallel()
	const n = 300
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("host%d.example.org", i)
	}
	tb := newTestbed(t, Config{Shards: 4, DNS: true, Names: names, Link: probe.Link{RTT: 4 * time.Millisecond, Shared: true}})
	if len(tb.Sites()) != n {
		t.Fatalf("%d sites, want %d", len(tb.Sites()), n)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, k := range []int{0, 1, 5, n - 1} {
		site := tb.Sites()[k]
		ips, err := tb.Client().Resolver().LookupNetIP(ctx, "ip4", site.Name)
		if err != nil || len(ips) != 1 || ips[0] != site.Addr {
			t.Fatalf("DNS for %s: %v %v, want %s", site.Name, ips, err, site.Addr)
		}
		l, err := site.Listen("tcp", site.HostPort(0))
		if err != nil {
			t.Fatalf("listen on %s: %v", site.Name, err)
		}
		go func() {
			c, err := l.Accept()
			if err == nil {
				io.WriteString(c, c.LocalAddr().String())
				c.Close()
			}
		}()
		c, err := tb.Client().DialContext(ctx, "tcp", net.JoinHostPort(site.Name, portOf(l)))
		if err != nil {
			t.Fatalf("dial %s: %v", site.Name, err)
		}
		got, _ := io.ReadAll(c)
		c.Close()
		l.Close()
		if string(got) != l.Addr().String() {
			t.Errorf("%s: server saw the connection at %q, want %s", site.Name, got, l.Addr())
		}
	}
	if tb.Counters().Up.PktsDelivered == 0 {
		t.Error("no packet crossed the link")
	}
}

func portOf(l net.Listener) string {
	_, p, _ := net.SplitHostPort(l.Addr().String())
	return p
}
