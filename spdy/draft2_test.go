package spdy

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"reflect"
	"testing"
)

// Rules of draft 2 that SPDY/3 changed; the conform suite checks them on the
// wire (conform/cases_v2.go), these pin them in the package.

// "Protocol versioning": a control frame of another version other than
// SYN_STREAM must be ignored (a SPDY/3 framer ends the session instead).
func TestOtherVersionIgnoredV2(t *testing.T) {
	for _, wire := range []string{"8003 0006 00 000004 00000001", "8003 0007 00 000008 00000000 00000001", "8001 0003 00 000008 00000001 00000001"} {
		f, err := NewFramerVersion(Version2, nil, bytes.NewReader(unhex(t, wire)), 0).ReadFrame()
		u, ok := f.(*UnknownFrame)
		if err != nil || !ok || u.Version == Version2 || u.Version == 0 {
			t.Fatalf("%s: %#v, %v; want an ignored UnknownFrame of its version", wire, f, err)
		}
	}
	if _, err := NewFramer(nil, bytes.NewReader(unhex(t, "8002 0006 00 000004 00000001")), 0).ReadFrame(); !errors.As(err, new(*SessionError)) {
		t.Fatalf("SPDY/3 framer, v2 PING: %v, want a session error", err)
	}
	c, s := tcpPipe(t)
	p := &rawPeer{t: t, conn: c, fr: NewFramerVersion(Version2, c, c, 0), done: make(chan error, 1)}
	srv := &Server{Config: Config{Version: ProtoSPDY2}, Handler: http.NotFoundHandler()}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { p.done <- srv.ServeConn(ctx, s) }()
	t.Cleanup(func() { c.Close(); cancel(); <-p.done })
	p.sendRaw(unhex(t, "8003 0006 00 000004 00000001")) // a version-3 PING: not echoed
	p.send(&PingFrame{ID: 3})
	for {
		f := p.next()
		if pf, ok := f.(*PingFrame); ok {
			if pf.ID != 3 {
				t.Fatalf("echoed %v of another version", pf)
			}
			break
		}
		if _, ok := f.(*GoAwayFrame); ok {
			t.Fatalf("session went away: %v", f)
		}
	}
	p.expectAlive(5)
}

// "Name/Value header block format": a zero-length value gets RST_STREAM
// PROTOCOL_ERROR; our encoder never sends one (empty values are left out).
func TestZeroLengthValueV2(t *testing.T) {
	c := newV2BlockCompressor(t)
	dec := newHeaderDecoderVersion(Version2, 0)
	_, _, err := dec.decode(c.block(unhex(t, "0002 0001 61 0000 0001 62 0001 63")), 3)
	var se *StreamError
	if !errors.As(err, &se) || se.Stream != 3 || se.Status != RstProtocolError {
		t.Fatalf("empty value: %v, want stream 3 PROTOCOL_ERROR", err)
	}
	if h, _, err := dec.decode(c.block(unhex(t, "0001 0001 61 0001 62")), 5); err != nil || h.Get("a") != "b" {
		t.Fatalf("next block: %v %v", h, err)
	}
	enc := newHeaderEncoderVersion(Version2)
	wire, _, err := enc.encode(nil, Header{":status": {"200"}, "x-empty": {""}, "x-parts": {"", "a", ""}})
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := newHeaderDecoderVersion(Version2, 0).decode(wire, 1)
	if want := (Header{":status": {"200"}, "x-parts": {"a"}}); err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("encoded %v, %v; want %v", got, err, want)
	}
	// SPDY/3 allows the empty value (2.6.10).
	wire, _, _ = newHeaderEncoder().encode(nil, Header{"x-empty": {""}})
	if got, _, err := newHeaderDecoder(0).decode(wire, 1); err != nil || !reflect.DeepEqual(got, Header{"x-empty": {""}}) {
		t.Fatalf("SPDY/3 empty value: %v, %v", got, err)
	}

	p := newRawClientV2(t, http.NotFoundHandler())
	h := getHeaders("/")
	h["x-empty"] = []string{""}
	p.sendRaw(rawSynStreamV2(t, 1, h))
	p.expectRst(1, RstProtocolError)
	p.expectAlive(1)
}

// "Stream close": data on a stream already torn down must be ignored (SPDY/3
// 2.3.7: PROTOCOL_ERROR); a stream that never existed still gets
// INVALID_STREAM ("Data frames").
func TestDataOnClosedStreamIgnoredV2(t *testing.T) {
	quick := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("done")) })
	p := newRawClientV2(t, quick)
	p.send(&SynStreamFrame{Stream: 1, Flags: FlagFin, Headers: getHeaders("/")})
	for { // the server's FIN: closed both ways
		if d, ok := p.next().(*DataFrame); ok && d.Flags&FlagFin != 0 {
			break
		}
	}
	p.send(&SynStreamFrame{Stream: 3, Headers: getHeaders("/")}, &RstStreamFrame{Stream: 3, Status: RstCancel})
	p.send(&DataFrame{Stream: 1, Data: []byte("x")}, &DataFrame{Stream: 3, Data: []byte("y")})
	// A PING echo may overtake control frames queued before it (2.6.5), but
	// not a second PING sent after the first echo came back.
	for _, id := range []uint32{1, 3} {
		p.send(&PingFrame{ID: id})
	wait:
		for {
			switch f := p.next().(type) {
			case *PingFrame:
				break wait
			case *RstStreamFrame, *GoAwayFrame:
				t.Fatalf("answered DATA on a torn-down stream with %v", f)
			}
		}
	}
	p.send(&DataFrame{Stream: 9, Data: []byte("z")})
	p.expectRst(9, RstInvalidStream)
}

// newRawClientV2 runs a spdy/2 Server; the test is a hand-driven v2 client.
func newRawClientV2(t *testing.T, h http.Handler) *rawPeer {
	p := newRawClient(t, Config{Version: ProtoSPDY2}, h)
	p.fr = NewFramerVersion(Version2, p.conn, p.conn, 0)
	return p
}

// rawSynStreamV2 is a v2 SYN_STREAM whose block the encoder would not write
// (it leaves empty values out): compressed here in a fresh v2 context, so it
// must be the session's first header block.
func rawSynStreamV2(t *testing.T, id uint32, h Header) []byte {
	raw := []byte{byte(len(h) >> 8), byte(len(h))}
	for name, vals := range h {
		if v2, ok := v3ToV2Names[name]; ok {
			name = v2
		}
		v := vals[0]
		raw = append(raw, byte(len(name)>>8), byte(len(name)))
		raw = append(raw, name...)
		raw = append(raw, byte(len(v)>>8), byte(len(v)))
		raw = append(raw, v...)
	}
	block := newV2BlockCompressor(t).block(raw)
	n := 10 + len(block)
	out := append(unhex(t, "8002 0001 01"), byte(n>>16), byte(n>>8), byte(n))
	out = append(out, byte(id>>24), byte(id>>16), byte(id>>8), byte(id), 0, 0, 0, 0, 0x40, 0)
	return append(out, block...)
}
