package loader

import (
	"context"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/miekg/dns"

	"github.com/spdylab/spdylab/probe"
)

// dnsServer answers A queries for the given names with 127.0.0.1 and counts
// the queries per name.
func dnsServer(t *testing.T, names []string) (*net.Resolver, func(string) int) {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	counts := map[string]int{}
	known := map[string]bool{}
	for _, n := range names {
		known[dns.Fqdn(n)] = true
	}
	srv := &dns.Server{PacketConn: pc, Handler: dns.HandlerFunc(func(w dns.ResponseWriter, q *dns.Msg) {
		m := new(dns.Msg)
		m.SetReply(q)
		for _, qu := range q.Question {
			mu.Lock()
			counts[strings.TrimSuffix(qu.Name, ".")]++
			mu.Unlock()
			if qu.Qtype == dns.TypeA && known[qu.Name] {
				m.Answer = append(m.Answer, &dns.A{Hdr: dns.RR_Header{Name: qu.Name, Rrtype: dns.TypeA, Class: dns.ClassINET, Ttl: 60}, A: net.IPv4(127, 0, 0, 1)})
			}
		}
		w.WriteMsg(m)
	})}
	go srv.ActivateAndServe()
	t.Cleanup(func() { srv.Shutdown() })
	addr := pc.LocalAddr().String()
	r := &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "udp", addr)
	}}
	return r, func(name string) int { mu.Lock(); defer mu.Unlock(); return counts[name] }
}

// TestDNSPhaseAndClientCC resolves the page's host names through a
// resolver (one lookup per host per load, shown as the dns phase of the
// request that opened the first connection) and sets the client's
// congestion control on every socket.
func TestDNSPhaseAndClientCC(t *testing.T) {
	st := newSite(t, "generic:n=20,mean=3k", 2)
	target, _ := goServers(t, st, []string{"http/1.1"}, nil)
	for host, base := range target.BaseURLs {
		_, port, _ := net.SplitHostPort(strings.TrimPrefix(base, "https://"))
		target.BaseURLs[host] = "https://" + host + ":" + port // by name: needs DNS
	}
	resolver, queries := dnsServer(t, st.m.Hosts)
	res, err := Load(context.Background(), target, Options{Proto: probe.ProtoHTTPS, Resolver: resolver, CC: "reno"})
	if err != nil {
		t.Fatal(err)
	}
	h := checkAgainstManifest(t, st, res)
	for _, host := range st.m.Hosts {
		// One lookup (one A question) per host and load, however many
		// connections the host gets.
		if n := queries(host); n != 1 {
			t.Errorf("%s: %d DNS questions, want 1", host, n)
		}
	}
	withDNS := 0
	for _, e := range h.Log.Entries {
		if e.Timings.DNS >= 0 {
			withDNS++
			if e.Timings.Connect < 0 {
				t.Errorf("%s has a dns phase but no connect phase", e.Request.URL)
			}
		}
	}
	if withDNS < len(st.m.Hosts) {
		t.Errorf("%d entries show a dns phase, want at least one per host (%d)", withDNS, len(st.m.Hosts))
	}
	for _, ti := range res.TCP {
		if ti.CongestionCC != "reno" {
			t.Errorf("connection %d uses %q, want reno", ti.ConnID, ti.CongestionCC)
		}
	}

	// Without a resolver there is no dns phase at all.
	target2, _ := goServers(t, st, []string{"http/1.1"}, nil)
	res, err = Load(context.Background(), target2, Options{Proto: probe.ProtoHTTPS})
	if err != nil {
		t.Fatal(err)
	}
	h = checkAgainstManifest(t, st, res)
	for _, e := range h.Log.Entries {
		if e.Timings.DNS != -1 {
			t.Errorf("%s: dns %v without a resolver, want -1", e.Request.URL, e.Timings.DNS)
		}
	}
}

func TestDNSFailureNamesHost(t *testing.T) {
	st := newSite(t, "generic:n=3,mean=2k", 1)
	resolver, _ := dnsServer(t, nil) // knows no names
	target := Target{Manifest: st.m, BaseURLs: map[string]string{st.m.Hosts[0]: "https://" + st.m.Hosts[0] + ":443"}}
	res, err := Load(context.Background(), target, Options{Proto: probe.ProtoHTTPS, Resolver: resolver})
	wantFailure(t, res, err, st.m.URL(0), "DNS lookup of "+st.m.Hosts[0])
}
