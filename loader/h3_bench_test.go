package loader

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/spdylab/spdylab/probe"
	"github.com/spdylab/spdylab/server"
)

// BenchmarkLoadPageBLabServer is BenchmarkLoadPageB against spdylab's own
// server for every multiplexed protocol, h3 included (one server, TLS on
// TCP and QUIC on UDP at the same port, as the harness runs it), so the
// protocols' cpu-ms/load compare like with like.
func BenchmarkLoadPageBLabServer(b *testing.B) {
	st := newSite(b, "pageB", 1)
	srv, err := server.New(server.Config{Root: st.dir, HostNames: st.m.Hosts})
	if err != nil {
		b.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	pc, err := net.ListenPacket("udp", ln.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	go srv.Serve(ln)
	go srv.ServeH3(pc)
	defer srv.Close()
	target := Target{Manifest: st.m, BaseURLs: map[string]string{st.m.Hosts[0]: "https://" + ln.Addr().String()}}
	for _, proto := range []string{probe.ProtoSPDY31, probe.ProtoH2, probe.ProtoH3} {
		b.Run(proto, func(b *testing.B) {
			cpu0, wall0 := cpuTime(), time.Now()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := Load(context.Background(), target, Options{Proto: proto, TLSVersion: "1.3"}); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(time.Millisecond)/float64(b.N), "cpu-ms/load")
			b.ReportMetric(float64(b.N)/time.Since(wall0).Seconds(), "loads/s")
		})
	}
}
