package har

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// Priority is an entry's `_priority`. HAR 1.2 leaves underscore fields
// to each tool, and they disagree: spdylab (and tools in WebPageTest's
// line) write a number, Chrome DevTools writes Chromium's request priority
// by name ("VeryHigh" .. "VeryLow"). A reader of other tools' HARs has to
// take both, and shows what was written.
type Priority struct {
	Level int    // the priority written as an integer (spdylab: SPDY's 0..7)
	Name  string // the priority written as text, or a non-integer number's digits; "" = Level holds it
}

// SPDYPriority is the `_priority` spdylab writes: the SPDY priority p.
func SPDYPriority(p int) *Priority { return &Priority{Level: p} }

// String is the priority as the file wrote it.
func (p Priority) String() string {
	if p.Name != "" {
		return p.Name
	}
	return strconv.Itoa(p.Level)
}

// MarshalJSON writes a number unless the priority was read as text.
func (p Priority) MarshalJSON() ([]byte, error) {
	if p.Name != "" {
		return json.Marshal(p.Name)
	}
	return json.Marshal(p.Level)
}

// UnmarshalJSON takes a string or a number; anything else is an error
// (Validate reports it too).
func (p *Priority) UnmarshalJSON(b []byte) error {
	var x any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&x); err != nil {
		return err
	}
	switch v := x.(type) {
	case nil: // null: as good as absent
	case string:
		*p = Priority{Name: v}
	case json.Number:
		if n, err := strconv.Atoi(v.String()); err == nil {
			*p = Priority{Level: n}
		} else {
			*p = Priority{Name: v.String()} // 2.5 or 1e3: shown as written
		}
	default:
		return fmt.Errorf("_priority is %s, want a number or a name", b)
	}
	return nil
}
