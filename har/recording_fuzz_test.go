package har

import (
	"encoding/json"
	"testing"
)

// FuzzRecording feeds arbitrary documents to the lenient reader of other
// tools' HARs: decoding may fail, but never panics, and every entry's
// initiator reads without panicking whatever form _initiator takes.
func FuzzRecording(f *testing.F) {
	f.Add([]byte(`{"log":{"pages":[{"id":"p1"}],"entries":[{"pageref":"p1","time":"12.5","request":{"url":"https://a.test/"},"response":{"status":"200","content":{"size":3,"mimeType":"text/html"}},"_initiator":"https://a.test/y.js","_initiator_line":""}]}}`))
	f.Add([]byte(`{"log":{"entries":[{"_initiator":{"type":"parser","url":"https://a.test/x.js","lineNumber":"4"}},{"_initiator":{"type":"script","stack":{"callFrames":[{"url":""},{"url":"https://a.test/z.js"}]}}},{"_initiator":null},{"_initiator":7}]}}`))
	f.Add([]byte(`{"log":{"entries":[{"time":1e400,"timings":{"wait":NaN}}]}}`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		var r Recording
		if json.Unmarshal(doc, &r) != nil || r.Log == nil {
			return
		}
		for i := range r.Log.Entries {
			r.Log.Entries[i].Initiator()
		}
	})
}

func TestNumberReadsNumbersAndNumericStrings(t *testing.T) {
	cases := map[string]Number{
		`12.5`: {V: 12.5, OK: true}, `"200"`: {V: 200, OK: true}, `" 7 "`: {V: 7, OK: true},
		`""`: {}, `null`: {}, `"x"`: {}, `true`: {}, `1e300`: {}, `-1`: {V: -1, OK: true},
	}
	for in, want := range cases {
		var n Number
		if err := json.Unmarshal([]byte(in), &n); err != nil || n != want {
			t.Errorf("%s read as %+v (%v), want %+v", in, n, err, want)
		}
	}
	if _, ok := (Number{V: -1, OK: true}).Positive(); ok {
		t.Error("-1 (not available) counted as a value")
	}
}
