package spdy

import "fmt"

// SPDY/2 names the request and response lines without a colon ("method",
// "url", "version", "status", "scheme") and carries the authority in the
// ordinary "host" header. The session works with SPDY/3's names throughout;
// the v2 header codec renames at the wire, so only the codec knows.
var v3ToV2Names = map[string]string{
	":method":  "method",
	":path":    "url",
	":version": "version",
	":status":  "status",
	":scheme":  "scheme",
	":host":    "host",
}

var v2ToV3Names = func() map[string]string {
	m := make(map[string]string, len(v3ToV2Names))
	for v3, v2 := range v3ToV2Names {
		m[v2] = v3
	}
	return m
}()

// toWireNamesV2 renames a block's SPDY/3 names to SPDY/2's. A name that
// would appear twice after renaming (":host" and "host", ":status" and a
// "status" header) or a colon name SPDY/2 has no equivalent for is an error.
// Empty values are left out, and a header with no other value with them:
// draft 2 forbids zero-length values (a receiver resets the stream).
func toWireNamesV2(h Header) (Header, error) {
	out := make(Header, len(h))
	for name, vals := range h {
		if vals = nonEmpty(vals); len(vals) == 0 {
			continue
		}
		wire := name
		if len(name) > 0 && name[0] == ':' {
			v2, ok := v3ToV2Names[name]
			if !ok {
				return nil, fmt.Errorf("spdy: header %q has no SPDY/2 equivalent", name)
			}
			wire = v2
		}
		if _, dup := out[wire]; dup {
			return nil, fmt.Errorf("spdy: header %q is given twice in SPDY/2 (as %q and as a request or status line field)", wire, name)
		}
		out[wire] = vals
	}
	return out, nil
}

// fromWireNameV2 renames one received SPDY/2 name to the SPDY/3 name the
// session expects. A colon name cannot come from a SPDY/2 peer: accepting it
// would let a plain header impersonate the request line.
func fromWireNameV2(name string) (string, error) {
	if v3, ok := v2ToV3Names[name]; ok {
		return v3, nil
	}
	if name[0] == ':' {
		return "", fmt.Errorf("header name %q: SPDY/2 names have no colon prefix", name)
	}
	return name, nil
}

// lenWidth is the size of a count or length field in a header block.
func (d *headerDecoder) lenWidth() int {
	if d.version == Version2 {
		return 2
	}
	return 4
}

// nonEmpty is vals without its empty strings (vals itself when it has none).
func nonEmpty(vals []string) []string {
	for i, v := range vals {
		if v == "" {
			out := append([]string(nil), vals[:i]...)
			for _, v := range vals[i+1:] {
				if v != "" {
					out = append(out, v)
				}
			}
			return out
		}
	}
	return vals
}
