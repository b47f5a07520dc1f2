package page

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spdylab/spdylab/har"
)

// This file reads the HAR file of an import into a har.Recording, within
// the sizes import takes, and says where a malformed one goes wrong.

// MaxHARBytes caps the size of a HAR file import reads into memory.
// Recordings of real pages are 0.5 to 50 MB; a file beyond this is refused
// by name rather than exhausting memory.
const MaxHARBytes = 512 << 20

// MaxHAREntries caps the entries of one HAR (a page with more requests
// than this is not a page load).
const MaxHAREntries = 200000

// ReadHARFile reads a HAR file, refusing one larger than MaxHARBytes.
func ReadHARFile(file string) ([]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > MaxHARBytes {
		return nil, fmt.Errorf("%s is %d MB; spdylab imports HAR files up to %d MB", file, st.Size()>>20, MaxHARBytes>>20)
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxHARBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxHARBytes {
		return nil, fmt.Errorf("%s is larger than %d MB; spdylab imports HAR files up to that size", file, MaxHARBytes>>20)
	}
	return b, nil
}

// ParseHAR decodes a HAR as import reads it, leniently (har.Recording:
// numbers written as strings, nulls, odd fields left unset; what HAR 1.2
// would refuse but a recorder wrote), within MaxHAREntries; syntax errors
// name the line and column. `spdylab har show` reads with it too.
func ParseHAR(b []byte) (*har.RecordedLog, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, errors.New("empty file: not a HAR")
	}
	var h har.Recording
	if err := json.Unmarshal(b, &h); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syn):
			l, c := lineCol(b, int(syn.Offset))
			if int(syn.Offset) >= len(b) {
				return nil, fmt.Errorf("malformed HAR: truncated at byte %d (line %d)", len(b), l)
			}
			return nil, fmt.Errorf("malformed HAR: JSON error at line %d column %d: %v", l, c, syn)
		case errors.As(err, &typ):
			l, c := lineCol(b, int(typ.Offset))
			return nil, fmt.Errorf("malformed HAR: line %d column %d: %s must be %s, not JSON %s", l, c, typ.Field, typ.Type, typ.Value)
		}
		return nil, fmt.Errorf("malformed HAR: %v", err)
	}
	if h.Log == nil {
		return nil, errors.New("not a HAR: no \"log\" object at the top level")
	}
	if len(h.Log.Entries) == 0 {
		return nil, errors.New("the HAR has no entries (log.entries is empty or missing)")
	}
	if len(h.Log.Entries) > MaxHAREntries {
		return nil, fmt.Errorf("the HAR has %d entries; spdylab imports at most %d", len(h.Log.Entries), MaxHAREntries)
	}
	return h.Log, nil
}
