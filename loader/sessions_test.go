package loader

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/spdylab/spdylab/har"
	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/server"
)

// connUse is, per host, which connection ids carried which resource types.
type connUse map[string]map[string][]string

func connectionUse(st *site, h har.Document) connUse {
	out := connUse{}
	for _, e := range h.Log.Entries {
		r := st.m.Resources[*e.ResourceID]
		if out[r.Host] == nil {
			out[r.Host] = map[string][]string{}
		}
		out[r.Host][e.Connection] = append(out[r.Host][e.Connection], r.Type)
	}
	return out
}

// Three sessions per host over the lab's server: exactly three TCP
// connections per host in the HAR, Result.Connections and TCP_INFO by round
// robin (fewer only where a policy leaves a session unused), with
// each request on the connection its policy names, for SPDY and h2 and
// with both browser profiles (chromium-modern races connections for a
// single session; with several it does not, and none is abandoned).
func TestThreeSessionsPerHost(t *testing.T) {
	st := newSite(t, "generic:n=40,mean=5k,depth=2", 2)
	target := labServer(t, st, server.PushNone)
	for _, proto := range []string{probe.ProtoSPDY31, probe.ProtoH2} {
		for _, profile := range []string{probe.ProfileChrome16, probe.ProfileChromiumModern} {
			for _, policy := range probe.SessionPolicies {
				if policy == probe.SessionDemand {
					continue // its sessions follow the responses' timing: TestDemandOpensSessionsForManyLargeResponses
				}
				name := fmt.Sprintf("%s/%s/%s", proto, profile, policy)
				o := Options{Proto: proto, TLSVersion: "1.3", Sessions: 3, SessionPolicy: policy}
				if err := ApplyProfile(&o, profile, ""); err != nil {
					t.Fatal(err)
				}
				res, err := Load(context.Background(), target, o)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				h := checkAgainstManifest(t, st, res)
				checkConnections(t, name, st, res, h, wantConns(st, policy))
				checkSpread(t, name, policy, connectionUse(st, h))
				if res.Condition.Sessions != 3 || res.Condition.SessionPolicyName() != policy {
					t.Errorf("%s: result's condition says sessions %d, policy %s", name, res.Condition.Sessions, res.Condition.SessionPolicyName())
				}
			}
		}
	}
}

// wantConns is how many of its three sessions each host opens: all three
// by round robin; under the other policies one for what stays on the
// first session, if the host has any, and up to two for the rest (a
// session opens only when a request goes to it).
func wantConns(st *site, policy string) map[string]int {
	first, rest := map[string]int{}, map[string]int{}
	for _, r := range st.m.Resources {
		if onFirstSession(policy, r.Type) {
			first[r.Host]++
		} else {
			rest[r.Host]++
		}
	}
	want := map[string]int{}
	for _, host := range st.m.Hosts {
		if policy == probe.SessionRoundRobin {
			want[host] = min(3, first[host]+rest[host])
			continue
		}
		want[host] = min(1, first[host]) + min(2, rest[host])
	}
	return want
}

func checkConnections(t *testing.T, name string, st *site, res probe.Result, h har.Document, want map[string]int) {
	t.Helper()
	total := 0
	for _, n := range want {
		total += n
	}
	if res.Connections != total || len(res.TCP) != total {
		t.Errorf("%s: %d connections counted, %d TCP_INFO records; want %d", name, res.Connections, len(res.TCP), total)
	}
	inHAR := connsPerHost(h)
	perHost := map[string]map[int]bool{}
	for _, ti := range res.TCP {
		if perHost[ti.Host] == nil {
			perHost[ti.Host] = map[int]bool{}
		}
		perHost[ti.Host][ti.ConnID] = true
	}
	for _, host := range st.m.Hosts {
		if inHAR[host] != want[host] || len(perHost[host]) != want[host] {
			t.Errorf("%s: %d connections to %s in the HAR, TCP_INFO of %d; want %d", name, inHAR[host], host, len(perHost[host]), want[host])
		}
	}
}

// checkSpread checks each host's connections against the policy: round
// robin within one request of even; priority and large-apart one
// connection for what stays on the first session and none of the others
// on it.
func checkSpread(t *testing.T, name, policy string, use connUse) {
	t.Helper()
	for host, conns := range use {
		lo, hi := 1<<30, 0
		firsts := 0
		for _, types := range conns {
			lo, hi = min(lo, len(types)), max(hi, len(types))
			first := onFirstSession(policy, types[0])
			for _, typ := range types {
				if onFirstSession(policy, typ) != first {
					t.Errorf("%s: %s's connection carries %v: the policy keeps %s apart", name, host, types, typ)
					break
				}
			}
			if first {
				firsts++
			}
		}
		switch {
		case policy == probe.SessionRoundRobin && hi-lo > 1:
			t.Errorf("%s: %s's connections carry %d to %d requests, want within one", name, host, lo, hi)
		case policy != probe.SessionRoundRobin && firsts > 1:
			t.Errorf("%s: %d of %s's connections carry what the policy keeps on the first session", name, firsts, host)
		}
	}
}

// onFirstSession is whether the policy keeps a type on a host's first
// session (chrome priorities; the generated pages have no fonts).
func onFirstSession(policy, typ string) bool {
	switch policy {
	case probe.SessionPriority:
		return priorityOf(typ) < priorityOf(page.TypeOther)
	case probe.SessionLargeApart:
		return !expectedLarge(typ, "")
	}
	return false // round robin: every connection carries every kind
}

// Under the demand policy a host opens sessions beyond its first only when
// it is asked for more large responses at once than its sessions carry:
// page C's ten 300 KB images on one host fill the ceiling of three, with
// every connection carrying images; a page with two images keeps one
// session. The load's result says which.
func TestDemandOpensSessionsForManyLargeResponses(t *testing.T) {
	for _, c := range []struct {
		page        string
		conns       int
		grew, extra int
	}{
		{"pageC", 3, 1, 2},
		{"generic:n=3,mean=8k,dist=fixed", 1, 0, 0},
	} {
		st := newSite(t, c.page, 1)
		target := labServer(t, st, server.PushNone)
		for _, proto := range []string{probe.ProtoSPDY31, probe.ProtoH2} {
			name := proto + " " + c.page
			res, err := Load(context.Background(), target, Options{Proto: proto, Sessions: 3, SessionPolicy: probe.SessionDemand})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			h := checkAgainstManifest(t, st, res)
			if res.Connections != c.conns {
				t.Errorf("%s: %d connections, want %d", name, res.Connections, c.conns)
			}
			for conn, types := range connectionUse(st, h)[st.m.Hosts[0]] {
				if !slices.Contains(types, page.TypeImage) {
					t.Errorf("%s: connection %s carries %v, no image: a session opened for nothing", name, conn, types)
				}
			}
			want := probe.DemandSum{Hosts: 1, Grew: c.grew, Extra: c.extra}
			if res.SessionDemand == nil || *res.SessionDemand != want {
				t.Errorf("%s: session demand %+v, want %+v", name, res.SessionDemand, want)
			}
		}
	}
}

// With tls_resume, a host's later sessions resume its first handshake as
// HTTPS's later connections do: a session opens when its first request
// goes out, which on one host is after the document arrived with the
// ticket.
func TestLaterSessionsResume(t *testing.T) {
	st := newSite(t, "generic:n=20,mean=4k", 1)
	target := labServer(t, st, server.PushNone)
	for _, ver := range []string{"1.2", "1.3"} {
		o := Options{Proto: probe.ProtoSPDY31, TLSVersion: ver, TLSResume: true, Sessions: 3, Timeout: 30 * time.Second}
		res, err := Load(context.Background(), target, o)
		if err != nil {
			t.Fatal(err)
		}
		if tl := res.TLS; res.Connections != 3 || tl.Full != 1 || tl.Resumed != 2 {
			t.Errorf("TLS %s: %d connections, handshakes %+v; want the first full and the two later sessions resumed", ver, res.Connections, tl)
		}
	}
}

// Pushes are claimed from whichever of the host's sessions carried them.
func TestPushWithSeveralSessions(t *testing.T) {
	st := newSite(t, "generic:n=30,mean=5k,depth=2", 1)
	target := labServer(t, st, server.PushManifest)
	for _, policy := range probe.SessionPolicies {
		res, err := Load(context.Background(), target, Options{Proto: probe.ProtoSPDY31, Sessions: 3, SessionPolicy: policy})
		if err != nil {
			t.Fatalf("%s: %v", policy, err)
		}
		checkAgainstManifest(t, st, res)
		if res.Pushed == 0 {
			t.Errorf("%s: the server pushes by manifest, but no push was used", policy)
		}
	}
}
