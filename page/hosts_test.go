package page

import (
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spdylab/spdylab/probe"
)

// hostsHAR is a hand-made page: its document on www.shop.example, first
// parties static.shop.example (one path shared with www), third parties
// cdn.other.example (a stylesheet naming a first-party image) and
// ads.tracker.example (a script requesting a pixel).
const hostsHAR = "testdata/hosts.har"

func importHosts(t *testing.T) *Manifest {
	t.Helper()
	m, _, err := ImportHARFile(hostsHAR, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// refsInBodies checks that every reference's URL is in its parent's body
// at its offset: what a client parsing the served bytes finds.
func refsInBodies(t *testing.T, m *Manifest) {
	t.Helper()
	for i, r := range m.Resources {
		if r.Discovery.Kind != KindRef {
			continue
		}
		body, err := m.Content(r.Parent)
		if err != nil {
			t.Fatalf("content of %d: %v", r.Parent, err)
		}
		u, off := m.RefURL(i), r.Discovery.Offset
		if off+len(u) > len(body) || string(body[off:off+len(u)]) != u {
			t.Errorf("resource %d: parent %d does not hold %q at offset %d", i, r.Parent, u, off)
		}
	}
}

func TestApplyHostsRewritesRecordedPage(t *testing.T) {
	tests := []struct {
		name       string
		cond       probe.Condition
		hosts      []string
		urls       []string // URLs the rewritten page must have
		thirdParty []string
	}{
		{"recorded", probe.Condition{}, []string{"www.shop.example", "static.shop.example", "cdn.other.example", "ads.tracker.example"},
			[]string{"https://static.shop.example/logo.png", "https://cdn.other.example/lib.css"},
			[]string{"cdn.other.example", "ads.tracker.example"}},
		{"one", probe.Condition{Hosts: probe.HostsOne}, []string{"www.shop.example"},
			[]string{"https://www.shop.example/logo.png", "https://www.shop.example/_h/static.shop.example/logo.png",
				"https://www.shop.example/_h/cdn.other.example/lib.css", "https://www.shop.example/_h/ads.tracker.example/pixel.gif"},
			nil},
		{"first-party by registrable domain", probe.Condition{Hosts: probe.HostsFirstParty},
			[]string{"www.shop.example", "cdn.other.example", "ads.tracker.example"},
			[]string{"https://www.shop.example/_h/static.shop.example/bg.png", "https://cdn.other.example/lib.css",
				"https://ads.tracker.example/ad.js"},
			[]string{"cdn.other.example", "ads.tracker.example"}},
		{"first-party by the user's list", probe.Condition{Hosts: probe.HostsFirstParty, FirstParty: "other.example,shop.example"},
			[]string{"www.shop.example", "ads.tracker.example"},
			[]string{"https://www.shop.example/_h/cdn.other.example/lib.css", "https://ads.tracker.example/pixel.gif"},
			[]string{"ads.tracker.example"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := importHosts(t)
			before := m.Clone()
			out, err := ApplyHosts(m, tc.cond)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(out.Hosts, tc.hosts) {
				t.Errorf("hosts %v, want %v", out.Hosts, tc.hosts)
			}
			var urls []string
			for i := range out.Resources {
				urls = append(urls, out.URL(i))
			}
			for _, u := range tc.urls {
				if !slices.Contains(urls, u) {
					t.Errorf("no resource at %s; have %v", u, urls)
				}
			}
			if len(out.Resources) != len(before.Resources) {
				t.Errorf("%d resources, want %d", len(out.Resources), len(before.Resources))
			}
			refsInBodies(t, out)
			if m.Resources[3].Path != before.Resources[3].Path || m.Resources[3].Host != before.Resources[3].Host {
				t.Error("ApplyHosts changed the page it was given")
			}
			third, err := out.ThirdPartyHosts(tc.cond)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(third, tc.thirdParty) {
				t.Errorf("third-party hosts %v, want %v", third, tc.thirdParty)
			}
		})
	}
}

// A third party's stylesheet that names a moved first-party image holds a
// longer URL afterwards: it still fits, and the notes say what grew.
func TestApplyHostsFitsLongerReferences(t *testing.T) {
	out, err := ApplyHosts(importHosts(t), probe.Condition{Hosts: probe.HostsFirstParty})
	if err != nil {
		t.Fatal(err)
	}
	css := slices.IndexFunc(out.Resources, func(r Resource) bool { return r.Host == "cdn.other.example" })
	body, err := out.Content(css)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(body), "https://www.shop.example/_h/static.shop.example/bg.png") {
		t.Errorf("the third party's stylesheet does not name the moved image:\n%s", body)
	}
	if !strings.Contains(strings.Join(out.Notes, "\n"), "hosts first-party: 1 host(s) moved onto www.shop.example") {
		t.Errorf("notes do not say what moved: %q", out.Notes)
	}
}

func TestHostsRefusedOnStudyPages(t *testing.T) {
	m, err := Open("pageA", 2, 1, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, spec := range []string{"pageA", "generic:n=5"} {
		if _, err := ResolveHosts(spec, probe.Condition{Hosts: probe.HostsFirstParty}); err == nil || !strings.Contains(err.Error(), "shards of one site") {
			t.Errorf("ResolveHosts(%s, hosts first-party) = %v, want a refusal naming the shards", spec, err)
		}
		// deploy first-party falls back to every shard first-party, and
		// the condition says so.
		c, err := ResolveHosts(spec, probe.Condition{Deploy: probe.DeployFirstParty})
		if err != nil || c.FirstParty != "spdylab.test" {
			t.Errorf("ResolveHosts(%s, deploy first-party) = first_party %q, %v; want the lab's domain written in", spec, c.FirstParty, err)
		}
		if third, err := m.ThirdPartyHosts(c); err != nil || len(third) != 0 {
			t.Errorf("pageA with the fallback: third parties %v, %v; want none", third, err)
		}
	}
	if _, err := m.ThirdPartyHosts(probe.Condition{Deploy: probe.DeployFirstParty}); err == nil {
		t.Error("ThirdPartyHosts on pageA without a first_party list accepted")
	}
	if third, _ := m.ThirdPartyHosts(probe.Condition{Deploy: probe.DeployFirstParty, FirstParty: "s1.spdylab.test"}); !slices.Equal(third, []string{HostName(2)}) {
		t.Errorf("pageA with first_party s1 alone: third parties %v, want s2", third)
	}
	if _, err := ApplyHosts(m, probe.Condition{Hosts: probe.HostsFirstParty}); err == nil {
		t.Error("hosts first-party on pageA accepted")
	}
	one, err := ApplyHosts(m, probe.Condition{Hosts: probe.HostsOne})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(one.Hosts, []string{HostName(1)}) {
		t.Errorf("hosts one on pageA: hosts %v, want s1 alone", one.Hosts)
	}
	refsInBodies(t, one)
	if _, err := ResolveHosts("har:x.har", probe.Condition{Hosts: probe.HostsFirstParty}); err != nil {
		t.Errorf("a recording is refused before it is opened: %v", err)
	}
}

// hosts.har records connects (connect minus ssl) of 30 ms (www), 40
// (static), 100 (cdn) and 70 ms (ads).
func TestHostExtraRTT(t *testing.T) {
	m := importHosts(t)
	got, err := m.HostExtraRTT()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]time.Duration{"www.shop.example": 0, "static.shop.example": 10 * time.Millisecond,
		"cdn.other.example": 70 * time.Millisecond, "ads.tracker.example": 40 * time.Millisecond}
	if !maps.Equal(got, want) {
		t.Errorf("extra round trips %v, want %v", got, want)
	}
	// A host whose requests reused connections gets the median: of 40, 70
	// and 100 ms that is 70, 30 ms beyond the fastest (40).
	delete(m.HostConnectMs, "www.shop.example")
	if got, _ := m.HostExtraRTT(); got["www.shop.example"] != 30*time.Millisecond {
		t.Errorf("an unrecorded host got %v, want the median's 30ms", got["www.shop.example"])
	}
	merged, err := ApplyHosts(importHosts(t), probe.Condition{Hosts: probe.HostsFirstParty})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := merged.HostConnectMs["static.shop.example"]; ok {
		t.Error("a merged host keeps its own connect time")
	}
	gen, _ := Open("pageA", 1, 1, "")
	if _, err := gen.HostExtraRTT(); err == nil || !strings.Contains(err.Error(), "no recorded connect times") {
		t.Errorf("a generated page: %v, want a refusal", err)
	}
	if _, err := ResolveHosts("pageB", probe.Condition{HostRTT: probe.HostRTTRecorded}); err == nil {
		t.Error("host_rtt recorded on a study page passed the check")
	}
}
