package spdy_test

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/spdylab/spdylab/netem"
	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/sctp"
	"github.com/spdylab/spdylab/spdy"
)

// TestSPDYOverSCTPThroughALossyLink runs concurrent streams through a real
// emulated link with random loss and shows the point of SCTP: messages of
// some streams are delivered while an earlier message of another stream is
// still missing (counted as overtaken), which one TCP byte stream never does.
func TestSPDYOverSCTPThroughALossyLink(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: builds network namespaces and TUN devices (CI runs as root)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	tb, err := netem.New(ctx, netem.Config{Shards: 1, Link: probe.Link{
		DownBps: 20e6, UpBps: 20e6, RTT: 20 * time.Millisecond, LossDown: 0.05, LossUp: 0.02, QueuePkts: 100, Shared: true, Seed: 7}})
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Close()
	cfg := sctp.Config{RTOMin: 200 * time.Millisecond, SendBuffer: 64 << 10, ReceiveBuffer: 64 << 10,
		MaxBurst: sctp.MaxBurstUnlimited, SACKEveryPacket: true, OutboundStreams: 10, InboundStreams: 10}
	s1 := tb.Servers()[0]
	spc, err := s1.ListenPacket("udp4", s1.HostPort(443))
	if err != nil {
		t.Fatal(err)
	}
	l, err := sctp.Listen(spc, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	body := make([]byte, 100000)
	for i := range body {
		body[i] = byte(i * 13)
	}
	srv := &spdy.Server{Config: spdy.Config{MaxFrameSize: 4096}, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.Write(body)
	})}
	served := make(chan *sctp.Assoc, 1)
	go func() {
		a, err := l.Accept()
		if err != nil {
			close(served)
			return
		}
		served <- a
		srv.ServeSCTP(ctx, a, spdy.SCTPOptions{ControlStream: true})
	}()
	cpc, err := tb.Client().ListenPacket("udp4", ":0")
	if err != nil {
		t.Fatal(err)
	}
	raddr, err := net.ResolveUDPAddr("udp4", s1.HostPort(443))
	if err != nil {
		t.Fatal(err)
	}
	assoc, err := sctp.Dial(ctx, cpc, raddr, cfg)
	if err != nil {
		t.Fatal(err)
	}
	cc, err := spdy.NewClientConnSCTP(assoc, nil, spdy.SCTPOptions{ControlStream: true})
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	const streams = 20
	want := sha256.Sum256(body)
	errs := make(chan error, streams)
	for i := range streams {
		go func() {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("http://s1.spdylab.test/%d", i), nil)
			resp, err := cc.RoundTrip(req)
			if err != nil {
				errs <- err
				return
			}
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			if err == nil && sha256.Sum256(b) != want {
				err = fmt.Errorf("stream %d: body of %d bytes differs", i, len(b))
			}
			errs <- err
		}()
	}
	for range streams {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	server := <-served
	if server == nil {
		t.Fatal("no association accepted")
	}
	cli, srvc := assoc.Counters(), server.Counters()
	t.Logf("client %+v", cli)
	t.Logf("server %+v", srvc)
	if srvc.Retransmissions == 0 {
		t.Fatal("no retransmission through a 5% lossy link: the loss did not happen")
	}
	if srvc.FastRetransmissions+srvc.TimeoutRetransmissions != srvc.Retransmissions {
		t.Errorf("fast %d + timeout %d != %d retransmissions", srvc.FastRetransmissions, srvc.TimeoutRetransmissions, srvc.Retransmissions)
	}
	if cli.MessagesOvertaken == 0 {
		t.Error("no message was delivered ahead of a lost one on another stream: loss on one stream stalled the others")
	}
	if cli.SACKsSent == 0 || srvc.SACKsReceived == 0 {
		t.Error("no SACKs counted")
	}
}
