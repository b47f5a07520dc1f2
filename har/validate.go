package har

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
)

// Validate checks that data is a HAR 1.2 document that HAR viewers (Chrome
// DevTools, the HAR spec's own viewer) can open: every required field present
// with the right type, dates in ISO 8601, timings that are numbers >= 0 or -1
// where the spec allows it, ssl not larger than connect, and each entry's
// time equal to the sum of its phases. The error names the first offending
// entry by index and URL; all problems found are joined.
func Validate(data []byte) error {
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("har: not JSON: %w", err)
	}
	v := &validator{}
	log, ok := v.object(doc, "log", "")
	if !ok {
		return v.err()
	}
	if ver, ok := v.str(log, "version", "log"); ok && ver != "1.2" && ver != "1.1" {
		v.add("log.version is %q, want \"1.2\"", ver)
	}
	if c, ok := v.object(log, "creator", "log"); ok {
		v.str(c, "name", "log.creator")
		v.str(c, "version", "log.creator")
	}
	pageIDs := map[string]bool{}
	if raw, present := log["pages"]; present {
		pages, ok := raw.([]any)
		if !ok {
			v.add("log.pages is not an array")
		}
		for i, p := range pages {
			where := fmt.Sprintf("log.pages[%d]", i)
			po, ok := p.(map[string]any)
			if !ok {
				v.add("%s is not an object", where)
				continue
			}
			v.date(po, "startedDateTime", where)
			if id, ok := v.str(po, "id", where); ok {
				pageIDs[id] = true
			}
			v.str(po, "title", where)
			if pt, ok := v.object(po, "pageTimings", where); ok {
				for _, k := range []string{"onContentLoad", "onLoad"} {
					if x, present := pt[k]; present {
						if f, ok := x.(float64); !ok || (f < 0 && f != -1) {
							v.add("%s.pageTimings.%s is %v, want a number >= 0 or -1", where, k, x)
						}
					}
				}
				for _, k := range []string{"_firstContentfulPaint", "_largestContentfulPaint", "_speedIndex"} {
					if x, present := pt[k]; present {
						if f, ok := x.(float64); !ok || f < 0 {
							v.add("%s.pageTimings.%s is %v, want a number >= 0 (ms; absent when not measured)", where, k, x)
						}
					}
				}
				if x, present := pt["_largestContentfulPaintUrl"]; present {
					if _, ok := x.(string); !ok {
						v.add("%s.pageTimings._largestContentfulPaintUrl is %v, want a string", where, x)
					}
				}
			}
		}
	}
	entries, ok := log["entries"].([]any)
	if !ok {
		v.add("log.entries is missing or not an array")
		return v.err()
	}
	for i, e := range entries {
		eo, ok := e.(map[string]any)
		if !ok {
			v.add("log.entries[%d] is not an object", i)
			continue
		}
		where := fmt.Sprintf("log.entries[%d]", i)
		if req, ok := eo["request"].(map[string]any); ok {
			if u, ok := req["url"].(string); ok {
				where = fmt.Sprintf("log.entries[%d] (%s)", i, u)
			}
		}
		v.entry(eo, where, pageIDs)
	}
	return v.err()
}

type validator struct{ problems []string }

func (v *validator) add(format string, args ...any) {
	v.problems = append(v.problems, fmt.Sprintf(format, args...))
}

func (v *validator) err() error {
	if len(v.problems) == 0 {
		return nil
	}
	const show = 20
	p := v.problems
	more := ""
	if len(p) > show {
		more = fmt.Sprintf("\n(and %d more problems)", len(p)-show)
		p = p[:show]
	}
	return errors.New("har: " + strings.Join(p, "\nhar: ") + more)
}

func join(where, key string) string {
	if where == "" {
		return key
	}
	return where + "." + key
}

// field reads m[key] as a T, reporting a missing key or a value of the
// wrong JSON type (described as kind, e.g. "a string").
func field[T any](v *validator, m map[string]any, key, where, kind string) (T, bool) {
	x, ok := m[key].(T)
	if !ok {
		if _, present := m[key]; present {
			v.add("%s is not %s", join(where, key), kind)
		} else {
			v.add("%s is missing", join(where, key))
		}
	}
	return x, ok
}

func (v *validator) object(m map[string]any, key, where string) (map[string]any, bool) {
	return field[map[string]any](v, m, key, where, "an object")
}

func (v *validator) str(m map[string]any, key, where string) (string, bool) {
	return field[string](v, m, key, where, "a string")
}

func (v *validator) num(m map[string]any, key, where string, allowMinus1 bool) (float64, bool) {
	f, ok := field[float64](v, m, key, where, "a number")
	if !ok {
		return 0, false
	}
	if f < 0 && !(allowMinus1 && f == -1) {
		v.add("%s is %v, want >= 0%s", join(where, key), f, map[bool]string{true: " or -1", false: ""}[allowMinus1])
		return f, false
	}
	return f, true
}

func (v *validator) array(m map[string]any, key, where string) ([]any, bool) {
	return field[[]any](v, m, key, where, "an array")
}

func (v *validator) date(m map[string]any, key, where string) {
	s, ok := v.str(m, key, where)
	if !ok {
		return
	}
	if _, err := time.Parse(time.RFC3339Nano, s); err != nil {
		v.add("%s is %q, not an ISO 8601 date with time zone", join(where, key), s)
	}
}

func (v *validator) nameValues(m map[string]any, key, where string) {
	a, ok := v.array(m, key, where)
	if !ok {
		return
	}
	for i, x := range a {
		o, ok := x.(map[string]any)
		w := fmt.Sprintf("%s[%d]", join(where, key), i)
		if !ok {
			v.add("%s is not an object", w)
			continue
		}
		v.str(o, "name", w)
		v.str(o, "value", w)
	}
}

// entryFieldKinds are the optional entry fields HAR 1.2 types (strings)
// and spdylab's own underscore fields, with the JSON kind each must have,
// so that a HAR `har check` accepts is one `har show` and the report read.
var entryFieldKinds = map[string]string{
	"serverIPAddress": "a string", "connection": "a string", "comment": "a string",
	"_pushed": "a boolean", "_unlisted": "a boolean", "_error": "a string",
	"_retries": "an integer", "_resourceId": "an integer",
}

// optionalTypes reports optional entry fields of the wrong JSON kind.
func (v *validator) optionalTypes(e map[string]any, where string) {
	for key, kind := range entryFieldKinds {
		x, present := e[key]
		if !present || x == nil {
			continue
		}
		ok := false
		switch kind {
		case "a string":
			_, ok = x.(string)
		case "a boolean":
			_, ok = x.(bool)
		case "an integer":
			f, isNum := x.(float64)
			ok = isNum && f == float64(int64(f))
		}
		if !ok {
			v.add("%s.%s is not %s", where, key, kind)
		}
	}
}

func (v *validator) entry(e map[string]any, where string, pageIDs map[string]bool) {
	if ref, present := e["pageref"]; present {
		s, ok := ref.(string)
		if !ok {
			v.add("%s.pageref is not a string", where)
		} else if len(pageIDs) > 0 && !pageIDs[s] {
			v.add("%s.pageref %q names no page", where, s)
		}
	}
	if prio, present := e["_priority"]; present {
		switch prio.(type) {
		case string, float64, nil:
		default:
			v.add("%s._priority is not a number or a string", where)
		}
	}
	v.optionalTypes(e, where)
	v.date(e, "startedDateTime", where)
	total, totalOK := v.num(e, "time", where, false)
	if req, ok := v.object(e, "request", where); ok {
		w := where + ".request"
		v.str(req, "method", w)
		v.str(req, "url", w)
		v.str(req, "httpVersion", w)
		v.array(req, "cookies", w)
		v.nameValues(req, "headers", w)
		v.nameValues(req, "queryString", w)
		v.num(req, "headersSize", w, true)
		v.num(req, "bodySize", w, true)
	}
	if resp, ok := v.object(e, "response", where); ok {
		w := where + ".response"
		v.num(resp, "status", w, false)
		v.str(resp, "statusText", w)
		v.str(resp, "httpVersion", w)
		v.array(resp, "cookies", w)
		v.nameValues(resp, "headers", w)
		if c, ok := v.object(resp, "content", w); ok {
			v.num(c, "size", w+".content", false)
			v.str(c, "mimeType", w+".content")
		}
		v.str(resp, "redirectURL", w)
		v.num(resp, "headersSize", w, true)
		v.num(resp, "bodySize", w, true)
	}
	v.object(e, "cache", where)
	t, ok := v.object(e, "timings", where)
	if !ok {
		return
	}
	w := where + ".timings"
	sum := 0.0
	allOK := true
	for _, k := range []string{"send", "wait", "receive"} {
		f, ok := v.num(t, k, w, false)
		allOK = allOK && ok
		sum += f
	}
	optional := map[string]float64{}
	for _, k := range []string{"blocked", "dns", "connect", "ssl"} {
		if _, present := t[k]; !present {
			optional[k] = -1
			continue
		}
		f, ok := v.num(t, k, w, true)
		allOK = allOK && ok
		optional[k] = f
		if k != "ssl" && f > 0 {
			sum += f
		}
	}
	if optional["ssl"] > 0 && optional["ssl"] > optional["connect"]+0.001 {
		v.add("%s.ssl (%v) exceeds connect (%v); connect must include ssl", w, optional["ssl"], optional["connect"])
	}
	// Timings are rounded to a microsecond each, so allow a little slack.
	if allOK && totalOK && math.Abs(sum-total) > 0.01 {
		v.add("%s.time is %v but its timings add up to %v", where, total, sum)
	}
}
