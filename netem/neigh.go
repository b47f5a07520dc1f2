package netem

import (
	"fmt"
	"net"
	"net/netip"

	"github.com/vishvananda/netlink"
)

// The kernel keeps one IPv4 neighbour (ARP) table for the whole machine:
// every network namespace's entries count against the same limits
// (net.ipv4.neigh.default.gc_thresh3, 1024 by default, settable only in the
// initial namespace). Testbeds of replayed recordings put hundreds of site
// addresses behind the router's veths, and parallel studies run many
// testbeds, so the table fills. Then the kernel evicts entries still in
// use (forced GC drops NOARP entries, such as a TUN device's, at once, and
// others not updated in the last 5 s) and cannot create them again ("neighbour
// table overflow" in dmesg, table_fulls in /proc/net/stat/arp_cache): the
// packet that needed one is dropped before or after the emulated link,
// outside its counters, and TCP backs off retransmission after
// retransmission until the table has room. BENCHMARKS.md "tiny-queue
// stalls" has the evidence.
//
// Permanent entries are exempt: they are never collected, do not count
// against the limits and can be added when the table is full. Every next
// hop in a testbed is known when it is wired, so each gets one, and no
// packet of a testbed ever needs a neighbour the kernel has to create.

// pinNeighbours adds a permanent neighbour entry for every next hop of the
// testbed: the TUN device at each end of the link (point-to-point, so the
// kernel keys its one entry by 0.0.0.0), the router's veth toward each
// server's addresses (its own and its sites') and each server's gateway.
func (tb *Testbed) pinNeighbours() error {
	for _, ns := range []*namespace{tb.client.ns, tb.router.ns} {
		if err := pinTUN(ns); err != nil {
			return err
		}
	}
	for i, s := range tb.servers {
		if err := pinVeth(tb.router.ns, s.ns, i+1, tb.serverAddrs(s, i+1)); err != nil {
			return err
		}
	}
	return nil
}

// serverAddrs are the addresses the router reaches on server i's veth.
func (tb *Testbed) serverAddrs(s *Host, i int) []netip.Addr {
	addrs := []netip.Addr{serverAddr(i)}
	if len(tb.sites) == 0 {
		return addrs
	}
	for _, site := range tb.SitesOn(s) {
		addrs = append(addrs, site.Addr)
	}
	return addrs
}

func pinTUN(ns *namespace) error {
	h, err := ns.netlinkHandle()
	if err != nil {
		return err
	}
	defer h.Close()
	tun, err := h.LinkByName(tunName)
	if err != nil {
		return fmt.Errorf("netem: %s in %s: %w", tunName, ns.name, err)
	}
	return setPermanent(h, ns, tun, net.IPv4zero.To4(), nil)
}

// pinVeth pins both ends of the veth between the router and server i:
// the server's addresses on the router's side, the gateway on the
// server's side.
func pinVeth(router, server *namespace, i int, serverAddrs []netip.Addr) error {
	rh, sh, err := netlinkHandles(router, server)
	if err != nil {
		return err
	}
	defer rh.Close()
	defer sh.Close()
	rl, err := rh.LinkByName(routerVethName(i))
	if err != nil {
		return fmt.Errorf("netem: %s in %s: %w", routerVethName(i), router.name, err)
	}
	sl, err := sh.LinkByName("eth0")
	if err != nil {
		return fmt.Errorf("netem: eth0 in %s: %w", server.name, err)
	}
	for _, a := range serverAddrs {
		if err := setPermanent(rh, router, rl, a.AsSlice(), sl.Attrs().HardwareAddr); err != nil {
			return err
		}
	}
	return setPermanent(sh, server, sl, serverGateway(i).AsSlice(), rl.Attrs().HardwareAddr)
}

// setPermanent adds or replaces the entry ip -> mac on link (mac nil for a
// device without link-layer addresses).
func setPermanent(h *netlink.Handle, ns *namespace, link netlink.Link, ip net.IP, mac net.HardwareAddr) error {
	n := &netlink.Neigh{LinkIndex: link.Attrs().Index, Family: netlink.FAMILY_V4,
		State: netlink.NUD_PERMANENT, IP: ip, HardwareAddr: mac}
	if err := h.NeighSet(n); err != nil {
		return fmt.Errorf("netem: permanent neighbour %s on %s in %s: %w", ip, link.Attrs().Name, ns.name, err)
	}
	return nil
}
