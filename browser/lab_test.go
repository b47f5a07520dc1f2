package browser

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net"
	"sort"
	"testing"

	"github.com/spdylab/spdylab/internal/certs"
	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/server"
)

// requireChromium skips when no Chromium is installed (CI installs it with
// scripts/deps.sh).
func requireChromium(t testing.TB) string {
	t.Helper()
	bin, err := FindBinary("")
	if err != nil {
		t.Skipf("%v", err)
	}
	return bin
}

// labSite is a generated study page written to disk with one certificate
// for all its hosts.
type labSite struct {
	m    *page.Manifest
	dir  string
	cert tls.Certificate   // issued by ca for every host
	ca   *x509.Certificate // what clients trust
}

func newLabSite(t testing.TB, name string, hosts int) *labSite {
	t.Helper()
	m, err := page.Generate(name, hosts, 1, page.ShardEqual)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := m.WriteSite(dir); err != nil {
		t.Fatal(err)
	}
	ca, err := certs.NewCA("spdylab browser test CA")
	if err != nil {
		t.Fatal(err)
	}
	cert, err := ca.Issue(m.Hosts...)
	if err != nil {
		t.Fatal(err)
	}
	return &labSite{m: m, dir: dir, cert: cert, ca: ca.Cert}
}

// serveLoopback runs spdylab's server for each host of the site on its own
// loopback address (127.0.0.i, an ephemeral port) and returns the page URL
// and the resolver map that sends every host name to its server.
func (s *labSite) serveLoopback(t testing.TB, tlsMax uint16) (string, map[string]string) {
	t.Helper()
	base := map[string]string{}
	for i, h := range s.m.Hosts {
		srv, err := server.New(server.Config{Root: s.dir, Certificate: &s.cert, HostNames: s.m.Hosts, TLSMax: tlsMax})
		if err != nil {
			t.Fatal(err)
		}
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.%d:0", i+1))
		if err != nil {
			t.Fatal(err)
		}
		go srv.Serve(ln)
		t.Cleanup(func() { srv.Close() })
		base[h] = "https://" + ln.Addr().String()
	}
	pageURL, resolve, err := PageTarget(s.m, base)
	if err != nil {
		t.Fatal(err)
	}
	return pageURL, resolve
}

// harURLs decodes a browser HAR's entries.
type testHAR struct {
	Log struct {
		Pages []struct {
			PageTimings struct {
				OnLoad float64 `json:"onLoad"`
			} `json:"pageTimings"`
		} `json:"pages"`
		Entries []struct {
			Request struct {
				URL         string `json:"url"`
				HTTPVersion string `json:"httpVersion"`
				HeadersSize int64  `json:"headersSize"`
			} `json:"request"`
			Response struct {
				Status int `json:"status"`
			} `json:"response"`
			ResourceID     *int            `json:"_resourceId"`
			Initiator      json.RawMessage `json:"_initiator"`
			Priority       *int            `json:"_priority"`
			ChromePriority string          `json:"_chromePriority"`
			Connection     string          `json:"connection"`
			Error          string          `json:"_error"`
			Timings        struct {
				DNS float64 `json:"dns"`
			} `json:"timings"`
		} `json:"entries"`
	} `json:"log"`
}

func decodeHAR(t testing.TB, b []byte) testHAR {
	t.Helper()
	var h testHAR
	if err := json.Unmarshal(b, &h); err != nil {
		t.Fatalf("HAR: %v", err)
	}
	return h
}

// resourceIDs are the manifest ids the HAR's completed entries name.
func (h testHAR) resourceIDs() []int {
	var ids []int
	for _, e := range h.Log.Entries {
		if e.ResourceID != nil && e.Error == "" {
			ids = append(ids, *e.ResourceID)
		}
	}
	sort.Ints(ids)
	return ids
}

func manifestIDs(m *page.Manifest) []int {
	var ids []int
	for _, r := range m.Resources {
		ids = append(ids, r.ID)
	}
	return ids
}
