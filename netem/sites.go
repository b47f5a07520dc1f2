package netem

import (
	"fmt"
	"net"
	"net/netip"
	"strings"

	"github.com/vishvananda/netlink"
)

// Sites are the host names a testbed serves pages under. By default they
// are the servers' own names (s1..sN.spdylab.test, one per namespace). A
// replayed recording brings its own names (Config.Names), often hundreds:
// they are spread round-robin over the server namespaces, each at an
// address of its own, so that every name has its own DNS record, its own
// connections and its own certificate (the server's business), while the
// names of one namespace share its TCP knobs and its veth to the router.
//
// Addresses: server i owns 10.200.i.0/24 (.1 the router's veth, .2 the
// server's own name); name k lives on server (k mod Shards)+1 at
// 10.200.i.(3 + k/Shards). Loopback testbeds put name k at
// 127.1.(k/250).(k%250+1).

// MaxNamesPerServer is how many Config.Names one server namespace holds
// (10.200.i.3 .. 10.200.i.252).
const MaxNamesPerServer = 250

// MaxNames is the largest Config.Names a testbed of shards servers takes.
func MaxNames(shards int) int { return shards * MaxNamesPerServer }

// Sites are the hosts that serve pages, in Config.Names order, or the
// servers themselves when the testbed was built without names.
func (tb *Testbed) Sites() []*Host {
	if len(tb.sites) == 0 {
		return tb.servers
	}
	return tb.sites
}

// SitesOn are the sites living in server s's namespace (s itself when the
// testbed has no Config.Names).
func (tb *Testbed) SitesOn(s *Host) []*Host {
	if len(tb.sites) == 0 {
		return []*Host{s}
	}
	var out []*Host
	for _, h := range tb.sites {
		if h.home == s {
			out = append(out, h)
		}
	}
	return out
}

// validateNames checks Config.Names: distinct DNS names, none an address
// or a name the testbed already uses, and no more than the servers hold.
func validateNames(names []string, shards int) error {
	if len(names) > MaxNames(shards) {
		return fmt.Errorf("netem: %d host names do not fit on %d servers (at most %d each)", len(names), shards, MaxNamesPerServer)
	}
	seen := map[string]bool{"client": true, "router": true}
	for i := 1; i <= shards; i++ {
		seen[ServerName(i)] = true
	}
	for _, n := range names {
		c := canonicalName(n)
		switch {
		case n == "" || len(n) > 253 || strings.ContainsAny(n, " \t/:@") || strings.Contains(n, ".."):
			return fmt.Errorf("netem: host name %q is not a DNS name", n)
		case net.ParseIP(n) != nil:
			return fmt.Errorf("netem: host name %q is an address, not a name", n)
		case seen[c]:
			return fmt.Errorf("netem: host name %q is given twice or is one of the testbed's own names", n)
		}
		seen[c] = true
	}
	return nil
}

// siteAddr is the address of name k on an emulated testbed.
func siteAddr(k, shards int) (server int, addr netip.Addr) {
	server = k%shards + 1
	return server, netip.AddrFrom4([4]byte{10, 200, byte(server), byte(3 + k/shards)})
}

// loopbackSiteAddr is the address of name k on a Loopback testbed.
func loopbackSiteAddr(k int) netip.Addr {
	return netip.AddrFrom4([4]byte{127, 1, byte(k / 250), byte(k%250 + 1)})
}

// makeSites creates the Host of every Config.Names entry (namespaces and
// servers exist already; addresses are added by addSiteAddrs).
func (tb *Testbed) makeSites(addrOf func(k int) (server int, addr netip.Addr)) {
	for k, n := range tb.cfg.Names {
		i, a := addrOf(k)
		s := tb.servers[i-1]
		h := &Host{Name: canonicalName(n), Addr: a, tb: tb, ns: s.ns, cc: s.cc, home: s}
		tb.sites = append(tb.sites, h)
		tb.names[h.Name] = a
	}
}

// addSiteAddrs puts each site's address on eth0 of its server namespace.
func (tb *Testbed) addSiteAddrs() error {
	for _, s := range tb.servers {
		sites := tb.SitesOn(s)
		if len(tb.sites) == 0 || len(sites) == 0 {
			continue
		}
		h, err := s.ns.netlinkHandle()
		if err != nil {
			return err
		}
		err = addAddrs(h, sites)
		h.Close()
		if err != nil {
			return fmt.Errorf("netem: site addresses in %s: %w", s.ns.name, err)
		}
	}
	return nil
}

func addAddrs(h *netlink.Handle, sites []*Host) error {
	eth, err := h.LinkByName("eth0")
	if err != nil {
		return err
	}
	for _, site := range sites {
		a := &netlink.Addr{IPNet: &net.IPNet{IP: site.Addr.AsSlice(), Mask: net.CIDRMask(32, 32)}}
		if err := h.AddrAdd(eth, a); err != nil {
			return fmt.Errorf("%s (%s): %w", site.Addr, site.Name, err)
		}
	}
	return nil
}
