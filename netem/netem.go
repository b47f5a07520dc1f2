// Package netem builds spdylab's testbeds: a client and up to eight server
// hosts, each in its own Linux network namespace, joined by one emulated
// bottleneck (or one per server) that the user-space emulator in netem/link
// drives.
//
// Wiring of a testbed named sl-ID (every name below lives inside the
// testbed's own namespaces, so several testbeds coexist with identical
// addresses and nothing is added to the caller's namespace):
//
//	sl-ID-c (client)       emulator process (netem/link pipes)         sl-ID-r (router)            sl-ID-sN (server N)
//	tun "sl0" 10.200.0.1  <-- read/write fd  <-> up/down pipes <-> fd --> tun "sl0" 10.200.0.2
//	                                                                     veth "s1" 10.200.1.1/24 <-> veth "eth0" 10.200.1.2/24
//	                                                                     veth "s2" 10.200.2.1/24 <-> veth "eth0" 10.200.2.2/24 ...
//
// Packets the client sends leave through its TUN device; the emulator reads
// them, passes them through the uplink pipe and writes them to the router's
// TUN device, from where the router forwards them to a server. The way back
// is symmetric. The emulator is a child process of its own (emuproc.go;
// Config.InProcessEmulator runs it in this process instead). A TUN device opened without IFF_VNET_HDR has no offloads, so
// the kernel segments every GSO packet before handing it to the emulator and
// a 50-packet queue counts MTU-sized packets.
//
// The router namespace also runs the testbed's DNS server (Config.DNS), so a
// client lookup crosses the emulated link and costs real round trips.
package netem

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"sort"
	"sync"
	"time"

	"github.com/spdylab/spdylab/netem/link"
	"github.com/spdylab/spdylab/probe"
)

// Domain is the DNS suffix of every server host name: s1.spdylab.test, ...
const Domain = "spdylab.test"

// MaxShards is the largest number of server hosts a testbed has.
const MaxShards = probe.MaxShards

// Config describes a testbed.
type Config struct {
	// Name is the testbed id used in namespace names (sl-<Name>-c, ...). At
	// most 9 characters of [a-z0-9]; a unique one is chosen when empty.
	Name string
	// Shards is the number of server hosts, 1..8.
	Shards int
	// Link is the bottleneck. Link.Shared selects one bottleneck crossed by
	// every server (the studies' setup); otherwise each server has its own.
	Link probe.Link
	// TCP knobs applied to every server host (IW, CC, SlowStartAfterIdle)
	// and, for InitRwnd (a receive window), to the client as well.
	TCP probe.TCP
	// DNS runs a DNS server in the router namespace answering the host
	// names; the client's Resolver then sends its queries over the link.
	DNS bool
	// PacketLog receives the emulator's per-packet log (one line per packet,
	// from every pipe); nil disables it.
	PacketLog io.Writer
	// PacketLogPath, when PacketLog is nil, is a file New creates for the
	// per-packet log and Close closes.
	PacketLogPath string
	// Names are host names served beside the servers' own, each at an
	// address of its own (a replayed recording's hosts; see sites.go).
	// At most MaxNames(Shards).
	Names []string
	// HostDelays adds an extra round trip toward some of Names, on the
	// server side of the link (hostdelay.go); the link's RTT stays the
	// access link's. At most MaxHostDelay each.
	HostDelays map[string]time.Duration
	// InProcessEmulator runs the link emulator's threads in this process
	// instead of a child process of its own (the default). In-process, the
	// emulator competes for this process's GOMAXPROCS scheduler slots with
	// whatever else runs here (page loader, servers, GC), which shows as
	// milliseconds of RTT error under load; it is kept for comparisons.
	InProcessEmulator bool
}

// Queue is a droptail limit; both zero means unlimited.
type Queue = probe.Queue

// ServerName is the host name of server i (1-based).
func ServerName(i int) string { return fmt.Sprintf("s%d.%s", i, Domain) }

// Testbed is a client and its server hosts. A Testbed from New owns
// namespaces and emulator goroutines until Close; one from Loopback owns
// nothing.
type Testbed struct {
	cfg     Config
	id      string
	client  *Host
	servers []*Host
	sites   []*Host               // one per Config.Names entry (sites.go)
	names   map[string]netip.Addr // host name -> address, for resolvers and hosts files

	// Set only for emulated testbeds.
	emu      linkEmulator
	dnsAddr  netip.AddrPort // where the DNS server listens (router), valid when cfg.DNS
	stateDir string
	applied  Applied
	router   *Host
	dirs     dirConfigs // the emulator's settings (with traces loaded), for checks
	buildMu  sync.Mutex // held by New while it builds
	closeMu  sync.Mutex
	stop     []func() error // teardown steps, run in reverse order of creation

	closeOnce sync.Once
	closeErr  error
}

// Host is one machine of a testbed.
type Host struct {
	// Name is "client" or "sN.spdylab.test".
	Name string
	// Addr is the host's address as seen by the other hosts.
	Addr netip.Addr

	tb   *Testbed
	ns   *namespace // nil for loopback hosts: they live in the caller's namespace
	cc   string     // congestion control to set per TCP socket ("" = namespace default is right)
	home *Host      // for a site of Config.Names: the server whose namespace it lives in
}

// Client is the client host.
func (tb *Testbed) Client() *Host { return tb.client }

// Servers are the server hosts s1..sK in order.
func (tb *Testbed) Servers() []*Host { return tb.servers }

// ID is the testbed's id: namespaces are named sl-<ID>-c, sl-<ID>-r, sl-<ID>-sN.
// Loopback testbeds have the id "loopback".
func (tb *Testbed) ID() string { return tb.id }

// Config is the configuration the testbed was built with (Name filled in).
func (tb *Testbed) Config() Config { return tb.cfg }

// Emulated reports whether traffic crosses an emulated link (false for Loopback).
func (tb *Testbed) Emulated() bool { return tb.emu != nil }

// LinkDirs are the emulator's settings of each direction (traces loaded,
// the RTT split into one-way delays); zero for Loopback.
func (tb *Testbed) LinkDirs() (down, up link.DirConfig) { return tb.dirs.down, tb.dirs.up }

// AtClose registers f to run when the testbed closes, before every
// teardown step registered earlier (a service started on its hosts).
func (tb *Testbed) AtClose(f func() error) {
	tb.closeMu.Lock()
	tb.stop = append(tb.stop, f)
	tb.closeMu.Unlock()
}

// Lookup maps a testbed host name ("s2.spdylab.test", "client") to its
// address without any packets.
func (tb *Testbed) Lookup(name string) (netip.Addr, bool) {
	a, ok := tb.names[canonicalName(name)]
	return a, ok
}

// Hosts maps every host name to its address.
func (tb *Testbed) Hosts() map[string]netip.Addr {
	m := make(map[string]netip.Addr, len(tb.names))
	for k, v := range tb.names {
		m[k] = v
	}
	return m
}

// Loopback is the --no-link testbed: the client is 127.0.0.1 and server i
// is 127.0.0.(i+1), all in the caller's network namespace, with no emulated
// link, no TCP knobs and no DNS traffic (Resolver answers from memory).
// shards outside 1..8 is clamped.
func Loopback(shards int) *Testbed {
	tb, _ := NewLoopback(shards, nil) // no names: nothing to refuse
	return tb
}

// NewLoopback is Loopback serving names as well, each at its own loopback
// address (sites.go).
func NewLoopback(shards int, names []string) (*Testbed, error) {
	shards = min(max(shards, 1), MaxShards)
	if err := validateNames(names, shards); err != nil {
		return nil, err
	}
	tb := &Testbed{
		cfg:   Config{Name: "loopback", Shards: shards, Names: names},
		id:    "loopback",
		names: map[string]netip.Addr{},
	}
	tb.client = &Host{Name: "client", Addr: netip.AddrFrom4([4]byte{127, 0, 0, 1}), tb: tb}
	tb.names["client"] = tb.client.Addr
	for i := 1; i <= shards; i++ {
		h := &Host{Name: ServerName(i), Addr: netip.AddrFrom4([4]byte{127, 0, 0, byte(i + 1)}), tb: tb}
		tb.servers = append(tb.servers, h)
		tb.names[h.Name] = h.Addr
	}
	tb.makeSites(func(k int) (int, netip.Addr) { return k%shards + 1, loopbackSiteAddr(k) })
	return tb, nil
}

// Counters are the emulator's counters since the last ResetCounters, summed
// over every pipe of a direction (per-shard links: the queueing-delay
// percentiles are the largest of any pipe). Zero for Loopback.
func (tb *Testbed) Counters() probe.LinkCounters {
	if tb.emu == nil {
		return probe.LinkCounters{}
	}
	return tb.emu.counters()
}

// EmulatorDied is closed when the link emulator's process exits, after
// which no packet crosses the link; EmulatorErr then tells why, or nil when
// the testbed's Close stopped it. Both are nil for an emulator in this
// process or a loopback testbed.
func (tb *Testbed) EmulatorDied() <-chan struct{} {
	if p, ok := tb.emu.(*emuProc); ok {
		return p.died()
	}
	return nil
}

// EmulatorErr is why the link emulator's process is gone before Close
// (killed, crashed), or nil while it runs.
func (tb *Testbed) EmulatorErr() error {
	if p, ok := tb.emu.(*emuProc); ok {
		return p.deathErr()
	}
	return nil
}

// ResetCounters zeroes the emulator's counters.
func (tb *Testbed) ResetCounters() {
	if tb.emu != nil {
		tb.emu.resetCounters()
	}
}

// Close tears the testbed down: emulator goroutines stop, every process
// still running in the testbed's namespaces is killed, the namespaces (and
// the devices in them) are deleted and the state directory is removed.
// Close is idempotent and safe to call concurrently.
func (tb *Testbed) Close() error {
	tb.closeOnce.Do(func() {
		tb.buildMu.Lock()
		defer tb.buildMu.Unlock()
		tb.closeMu.Lock()
		stop := tb.stop
		tb.stop = nil
		tb.closeMu.Unlock()
		unregister(tb)
		var errs []error
		for i := len(stop) - 1; i >= 0; i-- {
			if err := stop[i](); err != nil {
				errs = append(errs, err)
			}
		}
		tb.closeErr = errors.Join(errs...)
	})
	return tb.closeErr
}

// canonicalName lower-cases a host name and drops a trailing dot.
func canonicalName(name string) string {
	b := []byte(name)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	if len(b) > 0 && b[len(b)-1] == '.' {
		b = b[:len(b)-1]
	}
	return string(b)
}

// splitHostPort is net.SplitHostPort that also accepts a bare host.
func splitHostPort(addr string) (host, port string) {
	h, p, err := net.SplitHostPort(addr)
	if err != nil {
		return addr, ""
	}
	return h, p
}

func sortedNames(names map[string]netip.Addr) []string {
	out := make([]string, 0, len(names))
	for n := range names {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
