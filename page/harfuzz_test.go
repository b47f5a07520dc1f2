package page

import (
	"os"
	"testing"

	"github.com/spdylab/spdylab/probe"
)

// FuzzHARImport: any input either fails with an error or yields a valid
// manifest whose every body is written at exactly its size. Run longer with
// go test ./page -run '^$' -fuzz FuzzHARImport -fuzztime 30s -fuzzminimizetime 1s
// (minimizing an input grown from the 30 KB seed takes long otherwise)
func FuzzHARImport(f *testing.F) {
	for _, file := range []string{syntheticHAR, onloadHAR, redirectsHAR} {
		if b, err := os.ReadFile(file); err == nil {
			f.Add(b)
		}
	}
	root := entryJSON("https://a.test/", "00.000", "text/html", 500, "")
	f.Add(harWith(`{"id":"p1"}`, root))
	f.Add(harWith(`{"id":"p1"}`, root, entryJSON("https://a.test/x.js", "00.100", "application/javascript", 300, `"_initiator":"https://a.test/y.js","_initiator_type":"script"`),
		entryJSON("https://a.test/y.js", "00.200", "text/css", 300, `"_initiator":{"type":"parser","url":"https://a.test/x.js","lineNumber":"4"}`)))
	f.Add(harWith(``, entryJSON("http://a.test/", "00.000", "text/html", 0, `"_initiator":"x"`)))
	f.Add([]byte(`{"log":{"entries":[{"request":{"url":"https://a.test/?a=(b)&c='d'"},"response":{"status":301,"redirectURL":"/"}}]}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, _, err := ImportHAR(b, ImportOptions{})
		if err != nil {
			return
		}
		if err := m.Validate(); err != nil {
			t.Fatalf("import produced an invalid manifest: %v", err)
		}
		checkMethods(t, b, m)
		if m.TotalBytes() > 1<<24 {
			return
		}
		for id, r := range m.Resources {
			c, err := m.Content(id)
			if err != nil || len(c) != r.Size {
				t.Fatalf("resource %d: %d bytes (%v), want %d", id, len(c), err, r.Size)
			}
		}
	})
}

// checkMethods: every page methodology gives a valid page or an error, and
// the page reader UntilFor uses agrees with import on the onload.
func checkMethods(t *testing.T, b []byte, m *Manifest) {
	m.Source = "har:fuzz" // a recording, as ImportHARFile names it
	if has, err := harPageHasOnload(b, ""); err == nil && has != (m.OnLoadMs > 0) && m.OnLoadMs > 0 {
		t.Fatalf("onload_ms %v, but the page reader finds no onload", m.OnLoadMs)
	}
	for _, c := range []probe.Condition{
		{Until: probe.UntilOnload}, {Redirects: probe.RedirectsDrop}, {Compute: "x2.5"},
		{Deps: probe.DepsFlat}, {Until: probe.UntilOnload, Redirects: probe.RedirectsDrop, Compute: probe.ComputeNone, Deps: probe.DepsFlat},
	} {
		out, _, err := m.ApplyMethod(c)
		if err != nil {
			continue
		}
		if err := out.Validate(); err != nil {
			t.Fatalf("%+v: invalid page: %v", c, err)
		}
	}
}
