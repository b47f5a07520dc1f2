package har

import (
	"encoding/json"
	"strings"
	"testing"
)

// `_priority` is a number in spdylab's HARs and a name in Chrome
// DevTools': both read, and both are written back as they came.
func TestPriorityReadsNumbersAndNames(t *testing.T) {
	cases := []struct{ in, shown string }{
		{`3`, "3"}, {`0`, "0"}, {`"VeryHigh"`, "VeryHigh"}, {`"Low"`, "Low"}, {`2.5`, "2.5"},
	}
	for _, c := range cases {
		var e Entry
		if err := json.Unmarshal([]byte(`{"_priority":`+c.in+`}`), &e); err != nil {
			t.Errorf("_priority %s: %v", c.in, err)
			continue
		}
		if e.Priority == nil || e.Priority.String() != c.shown {
			t.Errorf("_priority %s read as %v, want %s", c.in, e.Priority, c.shown)
			continue
		}
		back, _ := json.Marshal(e.Priority)
		if c.in != "2.5" && string(back) != c.in {
			t.Errorf("_priority %s written back as %s", c.in, back)
		}
	}
	var e Entry
	if err := json.Unmarshal([]byte(`{"_priority":null}`), &e); err != nil || e.Priority != nil {
		t.Errorf("_priority null: %v, %v; want no priority", err, e.Priority)
	}
	if err := json.Unmarshal([]byte(`{"_priority":{"x":1}}`), &e); err == nil {
		t.Error("_priority as an object was accepted")
	}
	if b, _ := json.Marshal(Entry{Priority: SPDYPriority(2)}); !strings.Contains(string(b), `"_priority":2`) {
		t.Errorf("spdylab's priority is not written as a number: %s", b)
	}
}
