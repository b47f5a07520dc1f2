package conform

import (
	"context"
	"net"
	"testing"

	"github.com/spdylab/spdylab/server"
	"github.com/spdylab/spdylab/spdy"
)

// startServe runs what `spdylab serve` runs, on loopback.
func startServe(t *testing.T, cfg server.Config) string {
	t.Helper()
	s, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve(l)
	t.Cleanup(func() { s.Close() })
	scheme := "https://"
	if cfg.Plain != "" {
		scheme = "http://"
	}
	return scheme + l.Addr().String() + "/"
}

// Every case passes against spdylab's own server, over TLS and plain TCP,
// in every version; the cases a version's draft lacks are skipped with a
// reason, the others run.
func TestSpdylabServePassesEveryCase(t *testing.T) {
	for _, v := range spdy.VersionNames() {
		for _, plain := range []bool{false, true} {
			name := v + "/tls"
			cfg := server.Config{}
			if plain {
				name, cfg.Plain = v+"/plain", v
			}
			t.Run(name, func(t *testing.T) {
				url := startServe(t, cfg)
				rs, err := Run(context.Background(), Options{URL: url, Version: v, Insecure: true, Path: "/_spdylab/info"})
				if err != nil {
					t.Fatal(err)
				}
				if len(rs) != len(Cases()) {
					t.Fatalf("%d results for %d cases", len(rs), len(Cases()))
				}
				for _, r := range rs {
					if r.Skipped {
						if r.Skip == "" || r.Pass {
							t.Errorf("%s skipped without a reason or passed: %+v", r.ID, r)
						}
						continue
					}
					if !r.Pass {
						t.Errorf("%s (%s) %s: expected %s; received %s; %s; fresh %s", r.ID, r.Section, r.Title, r.Expected, r.Received, r.Error, r.Fresh)
					}
				}
				if Failed(rs) != 0 || Skipped(rs) == 0 || Skipped(rs) == len(rs) {
					t.Errorf("%d failed, %d skipped of %d", Failed(rs), Skipped(rs), len(rs))
				}
			})
		}
	}
}

// The suite can fail: a server that answers nothing fails every case.
func TestSilentServerFailsEveryCase(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() { // read and say nothing, then close
				buf := make([]byte, 4096)
				for {
					if _, err := c.Read(buf); err != nil {
						c.Close()
						return
					}
				}
			}()
		}
	}()
	rs, err := Run(context.Background(), Options{URL: "http://" + l.Addr().String() + "/", Timeout: 200e6})
	if err != nil {
		t.Fatal(err)
	}
	if Failed(rs) != len(rs) {
		for _, r := range rs {
			if r.Pass {
				t.Errorf("%s passed against a silent server: %s", r.ID, r.Received)
			}
		}
	}
}

func TestBadOptions(t *testing.T) {
	for _, o := range []Options{{URL: "ftp://x:1/"}, {URL: "nohost"}, {URL: "http://x:1/", Version: "spdy/4"}} {
		if _, err := Run(context.Background(), o); err == nil {
			t.Errorf("Run(%+v) accepted bad options", o)
		}
	}
}

// Every case either cites a section of a version's draft or says why it
// does not apply to it; ids are unique.
func TestEveryCaseCitesOrSkips(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range Cases() {
		if seen[c.ID] {
			t.Errorf("case id %s twice", c.ID)
		}
		seen[c.ID] = true
		for _, v := range spdy.VersionNames() {
			section, title, expected, skip := c.For(v)
			if (section == "") == (skip == "") || title == "" || expected == "" {
				t.Errorf("%s under %s: section %q, skip %q, title %q, expected %q", c.ID, v, section, skip, title, expected)
			}
		}
	}
}
