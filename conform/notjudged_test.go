package conform

import (
	"context"
	"net"
	"strings"
	"testing"

	"github.com/spdylab/spdylab/spdy"
)

// creditingServer is a SPDY/3.1 peer that gives back every DATA frame's
// bytes to the session and the stream as soon as it reads them, and echoes
// PINGs: its session window can never be overrun.
func creditingServer(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				fr := spdy.NewFramer(c, c, 1<<20)
				for {
					f, err := fr.ReadFrame()
					if err != nil {
						return
					}
					switch f := f.(type) {
					case *spdy.DataFrame:
						if n := uint32(len(f.Data)); n > 0 {
							fr.WriteFrame(&spdy.WindowUpdateFrame{Stream: 0, Delta: n})
							fr.WriteFrame(&spdy.WindowUpdateFrame{Stream: f.Stream, Delta: n})
						}
					case *spdy.PingFrame:
						fr.WriteFrame(f)
					}
					if fr.Flush() != nil {
						return
					}
				}
			}()
		}
	}()
	return "http://" + l.Addr().String() + "/"
}

// A server that credits its session window as fast as DATA comes leaves
// data-beyond-session-window nothing to judge: the case is skipped with the
// reason, neither passed nor failed.
func TestSessionWindowCaseNotJudgedAgainstAnInstantCreditor(t *testing.T) {
	rs, err := Run(context.Background(), Options{URL: creditingServer(t), Version: spdy.ProtoSPDY31, Only: []string{"data-beyond-session-window"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 1 {
		t.Fatalf("%d results", len(rs))
	}
	r := rs[0]
	if r.Pass || !r.Skipped || !strings.Contains(r.Skip, "not judged: the server credited its session window as fast as DATA came") || Failed(rs) != 0 {
		t.Errorf("%+v: want skipped as not judged, not failed", r)
	}
}
