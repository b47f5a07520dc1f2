package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/spdylab/spdylab/spdy"
)

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

func runInproc(a attack, cfg spdy.Config, d time.Duration) outcome {
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
			for _, f := range a.frames(spdylabTargets, i) {
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
	o.served = pingAfter(ln.Addr().String())
	return o
}

// pingAfter reports whether a new session answers a PING.
func pingAfter(addr string) bool {
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

// mainInproc prints the in-process table: peak Go heap with each limit
// off and at its default.
func mainInproc(d time.Duration) {
	fmt.Printf("| attack | limit | peak heap, limit off (MiB) | peak heap, default (MiB) | session ended (off / default) | served after (off / default) |\n|---|---|---|---|---|---|\n")
	for _, a := range attacks(0) {
		if a.off == nil {
			continue
		}
		off := a.base
		a.off(&off)
		o1 := runInproc(a, off, d)
		o2 := runInproc(a, a.base, d)
		fmt.Printf("| %s | %s | %.1f | %.1f | %v / %v | %v / %v |\n", a.name, a.limit, o1.peakMiB, o2.peakMiB, o1.ended, o2.ended, o1.served, o2.served)
	}
}
