package main

import (
	"fmt"
	"io"
	"net"
	"strings"
	"sync"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// getH2Tracer is a net.Conn that decodes the HTTP/2 frames flowing through
// it and prints one line per frame, for `spdylab get -v` over h2 (x/net's
// transport has no frame hook). Each direction has its own HPACK decoder so
// header fields can be shown.
type getH2Tracer struct {
	net.Conn
	in, out   *io.PipeWriter
	closeOnce sync.Once
}

var h2ClientPreface = []byte(http2.ClientPreface)

func newH2Tracer(c net.Conn, w io.Writer) net.Conn {
	var mu sync.Mutex
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	t := &getH2Tracer{Conn: c, in: inW, out: outW}
	go getH2Decode(inR, "<", false, w, &mu)
	go getH2Decode(outR, ">", true, w, &mu)
	return t
}

func getH2Decode(r *io.PipeReader, dir string, preface bool, w io.Writer, mu *sync.Mutex) {
	// Whatever happens, keep draining so the connection never blocks on us.
	defer io.Copy(io.Discard, r)
	if preface {
		buf := make([]byte, len(h2ClientPreface))
		if _, err := io.ReadFull(r, buf); err != nil {
			return
		}
	}
	fr := http2.NewFramer(nil, r)
	fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	fr.MaxHeaderListSize = 1 << 20
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			if err != io.EOF && err != io.ErrClosedPipe {
				mu.Lock()
				fmt.Fprintf(w, "%s (frame trace stopped: %v)\n", dir, err)
				mu.Unlock()
			}
			return
		}
		line := getH2FrameLine(f)
		mu.Lock()
		fmt.Fprintf(w, "%s %s\n", dir, line)
		mu.Unlock()
	}
}

func getH2FrameLine(f http2.Frame) string {
	h := f.Header()
	s := fmt.Sprintf("%s stream=%d len=%d", h.Type, h.StreamID, h.Length)
	if h.Flags != 0 {
		s += fmt.Sprintf(" flags=%#x", uint8(h.Flags))
	}
	switch f := f.(type) {
	case *http2.MetaHeadersFrame:
		var names []string
		for _, hf := range f.Fields {
			if strings.HasPrefix(hf.Name, ":") {
				names = append(names, hf.Name+"="+hf.Value)
			} else {
				names = append(names, hf.Name)
			}
		}
		s += " " + strings.Join(names, " ")
	case *http2.SettingsFrame:
		f.ForeachSetting(func(st http2.Setting) error { s += " " + st.String(); return nil })
	case *http2.WindowUpdateFrame:
		s += fmt.Sprintf(" increment=%d", f.Increment)
	case *http2.RSTStreamFrame:
		s += " " + f.ErrCode.String()
	case *http2.GoAwayFrame:
		s += fmt.Sprintf(" last=%d %s", f.LastStreamID, f.ErrCode)
	case *http2.PushPromiseFrame:
		s += fmt.Sprintf(" promised=%d", f.PromiseID)
	}
	return s
}

func (t *getH2Tracer) Read(p []byte) (int, error) {
	n, err := t.Conn.Read(p)
	if n > 0 {
		t.in.Write(p[:n])
	}
	return n, err
}

func (t *getH2Tracer) Write(p []byte) (int, error) {
	n, err := t.Conn.Write(p)
	if n > 0 {
		t.out.Write(p[:n])
	}
	return n, err
}

func (t *getH2Tracer) Close() error {
	t.closeOnce.Do(func() {
		t.in.Close()
		t.out.Close()
	})
	return t.Conn.Close()
}
