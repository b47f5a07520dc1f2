package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spdylab/spdylab/page"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/study/spec"
	"github.com/spdylab/spdylab/study/store"
)

func TestTLSStatsCell(t *testing.T) {
	s := summarizeTLS([]probe.TLSHandshakes{
		{Full: 2, Resumed: 4, RoundTrips: 8},
		{Full: 2, Resumed: 3, RoundTrips: 7},
		{Full: 2, Resumed: 5, RoundTrips: 9},
	})
	if got, want := s.String(), "8 (2 full, 4 resumed)"; got != want {
		t.Errorf("cell %q, want %q", got, want)
	}
	s = summarizeTLS([]probe.TLSHandshakes{{Full: 1, Resumed: 1, EarlyData: 1, RoundTrips: 1}, {Full: 1, Resumed: 2, EarlyData: 2, RoundTrips: 1}})
	if got, want := s.String(), "1 (1 full, 1.5 resumed, 1.5 0-RTT)"; got != want {
		t.Errorf("cell %q, want %q", got, want)
	}
	for _, empty := range []TLSStats{summarizeTLS(nil), summarizeTLS([]probe.TLSHandshakes{{}})} {
		if empty.String() != "–" {
			t.Errorf("no handshakes: %q", empty.String())
		}
	}
}

const tlsStudy = `
name = "mini-tls"
runs = 3
[factors]
page = "pageA"
tls = "1.3"
protocol = ["https", "h3"]
tls_resume = [false, true]
early_data = [false, true]
[[exclude]]
protocol = "https"
early_data = true
[[exclude]]
tls_resume = false
early_data = true
`

// handshakesFor are a load's handshakes in the fake study: https opens 6
// connections (5 resumed with tls_resume), h3 1 per host and replaces one
// (resumed, in 0-RTT with early_data).
func handshakesFor(c probe.Condition) probe.TLSHandshakes {
	switch {
	case c.Proto == probe.ProtoHTTPS && c.TLSResume:
		return probe.TLSHandshakes{Full: 1, Resumed: 5, RoundTrips: 6}
	case c.Proto == probe.ProtoHTTPS:
		return probe.TLSHandshakes{Full: 6, RoundTrips: 6}
	case c.EarlyData:
		return probe.TLSHandshakes{Full: 1, Resumed: 1, EarlyData: 1, RoundTrips: 1}
	case c.TLSResume:
		return probe.TLSHandshakes{Full: 1, Resumed: 1, RoundTrips: 2}
	}
	return probe.TLSHandshakes{Full: 2, RoundTrips: 2}
}

// The per-condition table, CSV and JSON show each condition's TLS round
// trips and handshake kinds per load.
func TestReportShowsTLSRoundTrips(t *testing.T) {
	dir := t.TempDir()
	s, st, sess := openTestStore(t, dir, tlsStudy)
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, c := range s.Conditions {
		m, _ := page.Generate(c.Page, c.Shards, s.Seed, c.ShardMode)
		st.PutManifest(spec.ManifestKey(c.Condition), m)
		for run := 0; run < s.Runs; run++ {
			r := probe.Result{Condition: c.Condition, Run: run, Started: t0, PLTms: 500, ToWms: 400, Resources: len(m.Resources), TLS: handshakesFor(c.Condition), HAR: fakeHAR(t0)}
			if _, err := st.Put(store.Probe{CondHash: c.Hash, Run: run, SessionID: sess, Result: r, Check: probe.LinkCheck{OK: true}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	st.Close()
	a, err := Build(dir)
	if err != nil {
		t.Fatal(err)
	}
	tbl := conditionsTable(a)
	col := -1
	for i, h := range tbl.Head {
		if h == "TLS RTs" {
			col = i
		}
	}
	if col < 0 {
		t.Fatalf("no TLS column in %v", tbl.Head)
	}
	got := map[string]string{}
	for i, c := range a.Conds {
		got[c.Proto+" resume="+c.Values["tls_resume"]+" early="+c.Values["early_data"]] = tbl.Rows[i][col].Text
	}
	want := map[string]string{
		"https resume=false early=false": "6 (6 full, 0 resumed)",
		"https resume=true early=false":  "6 (1 full, 5 resumed)",
		"h3 resume=false early=false":    "2 (2 full, 0 resumed)",
		"h3 resume=true early=false":     "2 (1 full, 1 resumed)",
		"h3 resume=true early=true":      "1 (1 full, 1 resumed, 1 0-RTT)",
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: TLS cell %q, want %q", k, got[k], w)
		}
	}
	f, _ := os.Open(filepath.Join(dir, CSVFile))
	recs, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil || !strings.Contains(strings.Join(recs[0], ","), "tls_round_trips_median,tls_full_median,tls_resumed_median,tls_early_data_median") {
		t.Errorf("conditions.csv header %v (%v)", recs[0], err)
	}
	var rows []conditionRow
	js, _ := os.ReadFile(filepath.Join(dir, JSONFile))
	if err := json.Unmarshal(js, &rows); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.TLS == nil || r.TLS.Full == 0 {
			t.Errorf("conditions.json row %s: tls_handshakes %+v", r.Label, r.TLS)
		}
	}
	html, _ := os.ReadFile(filepath.Join(dir, HTMLFile))
	if !bytes.Contains(html, []byte("1 (1 full, 1 resumed, 1 0-RTT)")) {
		t.Error("report.html lacks the 0-RTT condition's TLS cell")
	}
}

// `spdylab load`'s summary prints the same statistics.
func TestLoadSummaryTLS(t *testing.T) {
	rs := []probe.Result{
		{PLTms: 100, TLS: probe.TLSHandshakes{Full: 1, Resumed: 5, RoundTrips: 6}},
		{PLTms: 110, TLS: probe.TLSHandshakes{Full: 2, Resumed: 4, RoundTrips: 6}},
		{PLTms: 120, TLS: probe.TLSHandshakes{Full: 1, Resumed: 5, RoundTrips: 6}},
		{Failed: true, Error: "x"},
	}
	s := SummarizeLoads("pageA", probe.ProtoHTTPS, probe.Condition{TLSResume: true}, rs)
	if want := (TLSStats{RoundTrips: 6, Full: 1, Resumed: 5}); s.TLS != want {
		t.Errorf("summary TLS %+v, want %+v", s.TLS, want)
	}
	var out bytes.Buffer
	s.Print(&out)
	if !strings.Contains(out.String(), "TLS round trips 6 (1 full, 5 resumed) per load") {
		t.Errorf("summary lacks the TLS line:\n%s", out.String())
	}
	b, _ := json.Marshal(s)
	if !strings.Contains(string(b), `"tls_handshakes":{"round_trips_median":6,"full_median":1,"resumed_median":5,"early_data_median":0}`) {
		t.Errorf("--json: %s", b)
	}
}
