package netem

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"runtime"
	"strconv"
	"syscall"

	"github.com/vishvananda/netns"
)

// namespace is one named network namespace of a testbed, bind-mounted at
// /run/netns/<name> like `ip netns add` does, so `ip netns exec` works on it
// for debugging and `spdylab clean` can find it after a crash.
type namespace struct {
	name   string
	handle netns.NsHandle // open fd; keeps the namespace alive until closed
}

func (ns *namespace) path() string { return netnsDir + "/" + ns.name }

// do runs fn on an OS thread switched into ns. fn runs on a fresh goroutine
// locked to its thread, so the caller's thread never changes namespace; the
// thread goes back to the Go scheduler only after it is switched back, and
// if switching back fails the goroutine exits still locked, which makes the
// runtime destroy the thread. A panic in fn is re-raised in the caller.
func (ns *namespace) do(fn func() error) error {
	type outcome struct {
		err   error
		panic any
	}
	done := make(chan outcome, 1)
	go func() {
		runtime.LockOSThread()
		orig, err := netns.Get()
		if err != nil {
			runtime.UnlockOSThread()
			done <- outcome{err: fmt.Errorf("netem: reading the current network namespace: %w", err)}
			return
		}
		defer orig.Close()
		if err := netns.Set(ns.handle); err != nil {
			runtime.UnlockOSThread()
			done <- outcome{err: fmt.Errorf("netem: entering namespace %s: %w", ns.name, err)}
			return
		}
		var out outcome
		func() {
			defer func() {
				if r := recover(); r != nil {
					out.panic = r
				}
			}()
			out.err = fn()
		}()
		if err := netns.Set(orig); err != nil {
			if out.err == nil && out.panic == nil {
				out.err = fmt.Errorf("netem: leaving namespace %s: %w", ns.name, err)
			}
			done <- out
			return // still locked: the thread dies with this goroutine
		}
		runtime.UnlockOSThread()
		done <- out
	}()
	out := <-done
	if out.panic != nil {
		panic(out.panic)
	}
	return out.err
}

// Do runs fn on a locked OS thread inside h's network namespace: sockets fn
// creates belong to h and keep belonging to it afterwards. Goroutines that
// fn starts do not inherit the namespace. For Loopback hosts fn simply runs.
func (h *Host) Do(fn func() error) error {
	if h.ns == nil {
		return fn()
	}
	return h.ns.do(fn)
}

// Namespace is the name of h's network namespace ("sl-<id>-c", ...), or ""
// for a Loopback host.
func (h *Host) Namespace() string {
	if h.ns == nil {
		return ""
	}
	return h.ns.name
}

// DialContext connects from h; the socket is created inside h's namespace.
// A testbed host name in addr is resolved from memory without packets (use
// Resolver for a DNS phase that crosses the link); other names go to
// Resolver.
func (h *Host) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	return h.dial(ctx, &net.Dialer{}, network, addr)
}

// Dialer is DialContext with caller-chosen dialer options (Control hooks for
// socket options, LocalAddr, KeepAlive, ...). The dialer's Resolver is ignored.
func (h *Host) Dialer(d *net.Dialer) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		return h.dial(ctx, d, network, addr)
	}
}

func (h *Host) dial(ctx context.Context, d *net.Dialer, network, addr string) (net.Conn, error) {
	host, port := splitHostPort(addr)
	target := addr
	if host != "" {
		if _, err := netip.ParseAddr(host); err != nil {
			// Resolve first, outside the namespace switch: the dial below then
			// gets a literal address and never spawns goroutines of its own.
			ip, err := h.resolve(ctx, host)
			if err != nil {
				return nil, err
			}
			target = net.JoinHostPort(ip.String(), port)
		}
	}
	dd := *d
	dd.Control = ccControl(h.cc, d.Control)
	dd.ControlContext = nil
	if d.ControlContext != nil {
		cc := d.ControlContext
		dd.Control = ccControl(h.cc, func(network, address string, c syscall.RawConn) error { return cc(ctx, network, address, c) })
	}
	var c net.Conn
	err := h.Do(func() error {
		var err error
		c, err = dd.DialContext(ctx, network, target)
		return err
	})
	return c, err
}

func (h *Host) resolve(ctx context.Context, host string) (netip.Addr, error) {
	// Testbed names resolve from memory even with DNS on: the DNS phase is
	// the Resolver's job (the loader resolves once per host, as a browser's
	// host cache does), so a dial never adds a hidden lookup.
	if a, ok := h.tb.Lookup(host); ok {
		return a, nil
	}
	if host == "localhost" {
		return netip.AddrFrom4([4]byte{127, 0, 0, 1}), nil
	}
	ips, err := h.Resolver().LookupNetIP(ctx, "ip4", host)
	if err != nil {
		return netip.Addr{}, err
	}
	if len(ips) == 0 {
		return netip.Addr{}, fmt.Errorf("netem: %s has no IPv4 address", host)
	}
	return ips[0], nil
}

// Listen listens inside h's namespace (the listener and every connection it
// accepts stay there).
func (h *Host) Listen(network, addr string) (net.Listener, error) {
	return h.ListenConfig(&net.ListenConfig{}, network, addr)
}

// ListenConfig is Listen with caller-chosen options (e.g. a Control hook
// setting the congestion control on the listening socket).
func (h *Host) ListenConfig(lc *net.ListenConfig, network, addr string) (net.Listener, error) {
	lc2 := *lc
	lc2.Control = ccControl(h.cc, lc.Control)
	var l net.Listener
	err := h.Do(func() error {
		var err error
		l, err = lc2.Listen(context.Background(), network, addr)
		return err
	})
	return l, err
}

// ListenPacket opens a UDP (or other datagram) socket inside h's namespace.
func (h *Host) ListenPacket(network, addr string) (net.PacketConn, error) {
	var pc net.PacketConn
	err := h.Do(func() error {
		var err error
		pc, err = net.ListenPacket(network, addr)
		return err
	})
	return pc, err
}

// HostPort is h's address joined with port, ready for Dial and Listen.
func (h *Host) HostPort(port int) string {
	return net.JoinHostPort(h.Addr.String(), strconv.Itoa(port))
}
