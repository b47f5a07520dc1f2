package har

import (
	"encoding/json"
	"testing"
)

// FuzzRecording feeds arbitrary documents to the lenient reader of other
// tools' HARs: decoding may fail, but never panics, and every entry's
// initiator and priority read without panicking whatever form they take.
func FuzzRecording(f *testing.F) {
	f.Add([]byte(`{"log":{"pages":[{"id":"p1"}],"entries":[{"pageref":"p1","time":"12.5","request":{"url":"https://a.test/"},"response":{"status":"200","content":{"size":3,"mimeType":"text/html"}},"_initiator":"https://a.test/y.js","_initiator_line":""}]}}`))
	f.Add([]byte(`{"log":{"entries":[{"_initiator":{"type":"parser","url":"https://a.test/x.js","lineNumber":"4"}},{"_initiator":{"type":"script","stack":{"callFrames":[{"url":""},{"url":"https://a.test/z.js"}]}}},{"_initiator":null},{"_initiator":7}]}}`))
	f.Add([]byte(`{"log":{"entries":[{"time":1e400,"timings":{"wait":NaN}}]}}`))
	f.Add([]byte(`{"log":{"entries":[{"connection":1234,"_priority":"High","_pushed":true,"_error":null},{"connection":{},"_priority":[1],"_error":"x"}]}}`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		var r Recording
		if json.Unmarshal(doc, &r) != nil || r.Log == nil {
			return
		}
		for i := range r.Log.Entries {
			r.Log.Entries[i].Initiator()
			r.Log.Entries[i].Priority()
		}
	})
}

// Text keeps what a recorder wrote as a string, a number or a bool, and
// leaves anything else empty rather than failing the file.
func TestTextReadsStringsAndNumbers(t *testing.T) {
	for in, want := range map[string]Text{`"1201"`: "1201", `1201`: "1201", `true`: "true", `null`: "", `{}`: "", `[1]`: ""} {
		var x Text
		if err := json.Unmarshal([]byte(in), &x); err != nil || x != want {
			t.Errorf("%s read as %q (%v), want %q", in, x, err, want)
		}
	}
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
