package critpath

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/spdylab/spdylab/har"
	"github.com/spdylab/spdylab/page"
)

// BenchmarkAnalyze is one load of a generated 102-resource page (pageA's
// shape) over six connections, HAR decoding included: the cost the
// harness adds to every load.
func BenchmarkAnalyze(b *testing.B) {
	m, err := page.Generate("pageA", 1, 1, "")
	if err != nil {
		b.Fatal(err)
	}
	var entries []har.Entry
	for i := range m.Resources {
		start := float64(i) * 3
		e := entry(i, fmt.Sprint(1+i%6), start, har.Timings{Blocked: 2, DNS: -1, Connect: -1, SSL: -1, Send: 0.1, Wait: 40, Receive: 5}, int64(m.Resources[i].Size))
		entries = append(entries, e)
	}
	js, err := json.Marshal(doc(entries...))
	if err != nil {
		b.Fatal(err)
	}
	r := linkResult(float64(len(entries))*3 + 48)
	r.HAR = js
	for b.Loop() {
		if bd := Analyze(Input{Result: r, Manifest: m}); bd.None != "" {
			b.Fatal(bd.None)
		}
	}
}
