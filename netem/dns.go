package netem

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/netip"
	"sync"

	"github.com/miekg/dns"
)

// dnsTTL is the TTL of every answer. The loader resolves each host once per
// cold load with a fresh resolver, so the value only matters to tools run
// under `spdylab shell`.
const dnsTTL = 60

// answer builds the reply to one query from the testbed's host table: A
// records for known names, an empty NOERROR for other types of known names
// (AAAA: the testbed is IPv4 only) and NXDOMAIN for unknown names.
func answer(names map[string]netip.Addr, req *dns.Msg) *dns.Msg {
	resp := new(dns.Msg)
	resp.SetReply(req)
	resp.Authoritative = true
	resp.RecursionAvailable = true
	if len(req.Question) != 1 {
		resp.Rcode = dns.RcodeFormatError
		return resp
	}
	q := req.Question[0]
	addr, ok := names[canonicalName(q.Name)]
	if !ok {
		resp.Rcode = dns.RcodeNameError
		return resp
	}
	if q.Qclass == dns.ClassINET && (q.Qtype == dns.TypeA || q.Qtype == dns.TypeANY) {
		resp.Answer = append(resp.Answer, &dns.A{
			Hdr: dns.RR_Header{Name: q.Name, Rrtype: dns.TypeA, Class: dns.ClassINET, Ttl: dnsTTL},
			A:   addr.AsSlice(),
		})
	}
	return resp
}

// dnsServer serves the testbed's names over UDP and TCP.
type dnsServer struct {
	udp, tcp *dns.Server
	pc       net.PacketConn
	l        net.Listener
	wg       sync.WaitGroup
}

// startDNS serves names on pc (UDP) and l (TCP), both already bound inside
// the router namespace. It returns once both servers run: Shutdown of a
// server that has not started yet is refused, and the server would then
// start afterwards and never stop.
func startDNS(names map[string]netip.Addr, pc net.PacketConn, l net.Listener) *dnsServer {
	h := dns.HandlerFunc(func(w dns.ResponseWriter, req *dns.Msg) {
		_ = w.WriteMsg(answer(names, req))
	})
	var started sync.WaitGroup
	var udpOnce, tcpOnce sync.Once
	udpStarted := func() { udpOnce.Do(started.Done) }
	tcpStarted := func() { tcpOnce.Do(started.Done) }
	started.Add(2)
	s := &dnsServer{
		udp: &dns.Server{PacketConn: pc, Handler: h, NotifyStartedFunc: udpStarted},
		tcp: &dns.Server{Listener: l, Handler: h, NotifyStartedFunc: tcpStarted},
		pc:  pc,
		l:   l,
	}
	for _, run := range []struct {
		srv     *dns.Server
		started func()
	}{{s.udp, udpStarted}, {s.tcp, tcpStarted}} {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			_ = run.srv.ActivateAndServe()
			run.started() // it may have failed before starting: never leave startDNS waiting
		}()
	}
	started.Wait()
	return s
}

func (s *dnsServer) close() error {
	_ = s.udp.Shutdown()
	_ = s.tcp.Shutdown()
	// Closing the sockets ends the serve loops even if Shutdown was refused.
	s.pc.Close()
	s.l.Close()
	s.wg.Wait()
	return nil
}

// usesDNS reports whether h's lookups travel as packets to the testbed's DNS
// server.
func (h *Host) usesDNS() bool {
	return h.tb.cfg.DNS && h.tb.emu != nil && h.tb.dnsAddr.IsValid()
}

// Resolver resolves the testbed's host names from h. With DNS on (the
// client of an emulated testbed with Config.DNS) every lookup is a real DNS
// exchange with the server in the router namespace, crossing the emulated
// link; otherwise lookups are answered from memory and send no packets.
// Each call returns a new resolver; the Go resolver keeps no cache, so every
// lookup costs its round trips.
func (h *Host) Resolver() *net.Resolver {
	if h.usesDNS() {
		server := h.tb.dnsAddr.String()
		return &net.Resolver{
			PreferGo: true,
			Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
				return h.DialContext(ctx, network, server)
			},
		}
	}
	names := h.tb.names
	return &net.Resolver{
		PreferGo: true,
		Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return memoryDNS(names), nil
		},
	}
}

// memoryDNS is a connection to an in-process DNS server. net.Pipe is not a
// PacketConn, so the Go resolver speaks DNS-over-TCP framing (a two-byte
// length before each message) on it.
func memoryDNS(names map[string]netip.Addr) net.Conn {
	client, server := net.Pipe()
	go func() {
		defer server.Close()
		for {
			var n [2]byte
			if _, err := io.ReadFull(server, n[:]); err != nil {
				return
			}
			buf := make([]byte, binary.BigEndian.Uint16(n[:]))
			if _, err := io.ReadFull(server, buf); err != nil {
				return
			}
			req := new(dns.Msg)
			var resp *dns.Msg
			if err := req.Unpack(buf); err != nil {
				resp = new(dns.Msg)
				resp.Rcode = dns.RcodeFormatError
			} else {
				resp = answer(names, req)
			}
			out, err := resp.Pack()
			if err != nil {
				return
			}
			framed := binary.BigEndian.AppendUint16(nil, uint16(len(out)))
			if _, err := server.Write(append(framed, out...)); err != nil {
				return
			}
		}
	}()
	return client
}

// hostsFile renders an /etc/hosts for commands run in a host's namespace.
// With DNS on, the testbed names are left out so that tools resolve them
// over the link like a browser would.
func hostsFile(names map[string]netip.Addr, withNames bool) []byte {
	b := []byte("127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n")
	if withNames {
		for _, n := range sortedNames(names) {
			b = fmt.Appendf(b, "%s\t%s\n", names[n], n)
		}
	}
	return b
}
