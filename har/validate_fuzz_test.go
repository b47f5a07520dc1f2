package har

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzValidate feeds arbitrary documents to the HAR validator that
// `spdylab har check` and `har show` use: it answers valid or an error
// naming a problem, never panics, and says the same twice.
func FuzzValidate(f *testing.F) {
	valid := Document{Log: Log{Version: Version, Creator: Creator{Name: "spdylab", Version: "1"}}}
	b, err := json.Marshal(valid)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte(`{"log":{"version":"1.2","creator":{"name":"x","version":"1"},"pages":[],"entries":[{"startedDateTime":"2026-01-01T00:00:00Z","time":1,"request":{"method":"GET","url":"https://a.test/","httpVersion":"h2","headers":[],"queryString":[],"cookies":[],"headersSize":-1,"bodySize":0},"response":{"status":200,"statusText":"","httpVersion":"h2","headers":[],"cookies":[],"content":{"size":1,"mimeType":"text/html"},"redirectURL":"","headersSize":-1,"bodySize":1,"_priority":"VeryHigh"},"cache":{},"timings":{"send":0,"wait":1,"receive":0}}]}}`))
	f.Add([]byte(`{"log":{"entries":[{"_priority":"VeryHigh"},{"_priority":3},{"_priority":2.5},{"_priority":null}]}}`))
	f.Add([]byte(`{"log":{}}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		err1 := Validate(doc)
		err2 := Validate(doc)
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("validator is not deterministic: %v vs %v", err1, err2)
		}
		if err1 != nil && strings.TrimSpace(err1.Error()) == "" {
			t.Fatal("an error with no text")
		}
		// What har show reads after the check (custom fields such as
		// _priority decode by hand): an error is fine, a panic is not.
		var h Document
		_ = json.Unmarshal(doc, &h)
	})
}
