// Command dos measures the spdy server's memory under each denial-of-service
// class of issue 14, with the spdy package's limits at their defaults and
// with each turned off, over loopback TCP in one process. It prints a
// Markdown table: peak Go heap in use above the idle baseline during the
// attack, whether the server ended the attacking session, and whether a new
// session is served afterwards.
//
//	go run ./bench/dos [-duration 3s]
package main

import (
	"bytes"
	"compress/zlib"
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spdylab/spdylab/spdy"
)

type attack struct {
	name, limit string
	off         func(c *spdy.Config) // turns the class's limit off
	base        spdy.Config
	frames      func(i int) []spdy.Frame
	raw         func(i int) []byte // instead of frames
	noRead      bool               // the attacker never reads
}

func get(path string) spdy.Header {
	return spdy.Header{":method": {"GET"}, ":path": {path}, ":version": {"HTTP/1.1"}, ":host": {"x"}, ":scheme": {"http"}}
}

func attacks() []attack {
	value := strings.Repeat("v", 16<<10)
	var zb bytes.Buffer
	zw := zlib.NewWriter(&zb)
	zeros := make([]byte, 1<<20)
	bomb := func() []byte { zb.Reset(); zw.Write(zeros); zw.Flush(); return append([]byte(nil), zb.Bytes()...) }
	halfPing := []byte{0x80, 3, 0, 6, 0, 0, 0, 4, 0, 0}
	return []attack{
		{name: "HEADERS on one stream", limit: "MaxHeaderBytesPerStream",
			off: func(c *spdy.Config) { c.MaxHeaderBytesPerStream = 1 << 40; c.MaxEmptyFramesPerSecond = -1 },
			frames: func(i int) []spdy.Frame {
				if i == 0 {
					return []spdy.Frame{&spdy.SynStreamFrame{Stream: 1, Headers: get("/")}}
				}
				return []spdy.Frame{&spdy.HeadersFrame{Stream: 1, Headers: spdy.Header{fmt.Sprintf("x-%d", i): {value}}}}
			}},
		{name: "PING flood, echoes not read", limit: "MaxQueuedControlFrames", noRead: true,
			off: func(c *spdy.Config) { c.MaxQueuedControlFrames = 1 << 30 },
			frames: func(i int) []spdy.Frame { // 1000 per write, so the flood outruns the socket buffers
				fs := make([]spdy.Frame, 1000)
				for j := range fs {
					fs[j] = &spdy.PingFrame{ID: uint32(2*(i*1000+j)+1) & 0x7fffffff}
				}
				return fs
			}},
		{name: "rapid reset", limit: "MaxResetsPerSecond",
			off: func(c *spdy.Config) { c.MaxResetsPerSecond = -1 },
			frames: func(i int) []spdy.Frame {
				id := uint32(2*i + 1)
				return []spdy.Frame{&spdy.SynStreamFrame{Stream: id, Headers: get("/")}, &spdy.RstStreamFrame{Stream: id, Status: spdy.RstCancel}}
			}},
		{name: "SETTINGS flood", limit: "MaxSettingsPerSecond",
			off: func(c *spdy.Config) { c.MaxSettingsPerSecond = -1 },
			frames: func(i int) []spdy.Frame {
				return []spdy.Frame{&spdy.SettingsFrame{Entries: []spdy.Setting{{ID: spdy.SettingRoundTripTime, Value: uint32(i)}}}}
			}},
		{name: "empty DATA flood", limit: "MaxEmptyFramesPerSecond",
			off: func(c *spdy.Config) { c.MaxEmptyFramesPerSecond = -1 },
			frames: func(i int) []spdy.Frame {
				if i == 0 {
					return []spdy.Frame{&spdy.SynStreamFrame{Stream: 1, Headers: get("/")}}
				}
				return []spdy.Frame{&spdy.DataFrame{Stream: 1}}
			}},
		{name: "refused streams", limit: "MaxRefusedStreamsPerSecond", base: spdy.Config{MaxConcurrentStreams: 1},
			off: func(c *spdy.Config) { c.MaxRefusedStreamsPerSecond = -1 },
			frames: func(i int) []spdy.Frame {
				return []spdy.Frame{&spdy.SynStreamFrame{Stream: uint32(2*i + 1), Headers: get("/")}}
			}},
		{name: "compressed DATA bomb", limit: "MaxInflatedBuffer",
			off: func(c *spdy.Config) { c.MaxInflatedBuffer = 1 << 40 },
			frames: func(i int) []spdy.Frame {
				if i == 0 {
					return []spdy.Frame{&spdy.SynStreamFrame{Stream: 1, Headers: get("/upload")}}
				}
				return []spdy.Frame{&spdy.DataFrame{Stream: 1, Flags: spdy.FlagDataCompress, Data: bomb()}}
			}},
		{name: "half a frame, then silence", limit: "FrameReadTimeout (1 s here)", base: spdy.Config{FrameReadTimeout: time.Second},
			off: func(c *spdy.Config) { c.FrameReadTimeout = -1 },
			raw: func(i int) []byte {
				if i == 0 {
					return halfPing
				}
				time.Sleep(10 * time.Millisecond)
				return nil
			}},
	}
}

// handler never reads request bodies: the worst case for buffering.
var handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	<-r.Context().Done()
})

type outcome struct {
	peakMiB       float64
	ended, served bool
}

func heapInUse() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

func run(a attack, cfg spdy.Config, d time.Duration) outcome {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer ln.Close()
	srv := &spdy.Server{Config: cfg, Handler: handler, ShutdownGrace: time.Millisecond}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go srv.ServeConn(ctx, c)
		}
	}()
	runtime.GC()
	base := heapInUse()
	var peak atomic.Uint64
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
				if h := heapInUse(); h > peak.Load() {
					peak.Store(h)
				}
			}
		}
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		panic(err)
	}
	closed := make(chan struct{})
	go func() { // the server ending the session shows as EOF here
		if a.noRead {
			c.(*net.TCPConn).SetReadBuffer(4096)
			one := make([]byte, 1)
			for {
				c.SetReadDeadline(time.Now().Add(d + time.Second))
				if _, err := c.Read(one); err != nil {
					break
				}
				time.Sleep(time.Second) // read almost nothing
			}
		} else {
			io.Copy(io.Discard, c)
		}
		close(closed)
	}()
	var buf bytes.Buffer
	fr := spdy.NewFramer(&buf, nil, 0)
	deadline := time.Now().Add(d)
	ended := false
	for i := 0; time.Now().Before(deadline); i++ {
		buf.Reset()
		if a.raw != nil {
			buf.Write(a.raw(i))
		} else {
			for _, f := range a.frames(i) {
				fr.WriteFrame(f)
			}
			fr.Flush()
		}
		c.SetWriteDeadline(deadline)
		if _, err := c.Write(buf.Bytes()); err != nil {
			break
		}
		select {
		case <-closed:
			ended = true
		default:
		}
		if ended {
			break
		}
	}
	select {
	case <-closed:
		ended = true
	case <-time.After(500 * time.Millisecond):
	}
	c.Close()
	close(stop)
	o := outcome{ended: ended, peakMiB: float64(int64(peak.Load())-int64(base)) / (1 << 20)}
	o.served = servedAfter(ln.Addr().String())
	return o
}

func servedAfter(addr string) bool {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return false
	}
	cc, err := spdy.NewClientConn(c, &spdy.ClientConfig{})
	if err != nil {
		return false
	}
	defer cc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err = cc.Ping(ctx)
	return err == nil
}

func main() {
	d := flag.Duration("duration", 3*time.Second, "length of each attack")
	flag.Parse()
	fmt.Printf("| attack | limit | peak heap, limit off (MiB) | peak heap, default (MiB) | session ended (off / default) | served after (off / default) |\n|---|---|---|---|---|---|\n")
	for _, a := range attacks() {
		off := a.base
		a.off(&off)
		o1 := run(a, off, *d)
		o2 := run(a, a.base, *d)
		fmt.Printf("| %s | %s | %.1f | %.1f | %v / %v | %v / %v |\n", a.name, a.limit, o1.peakMiB, o2.peakMiB, o1.ended, o2.ended, o1.served, o2.served)
	}
	os.Stdout.Sync()
}
