package netem

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"
	"golang.org/x/sys/unix"

	"github.com/spdylab/spdylab/internal/atomicfile"
	"github.com/spdylab/spdylab/internal/tcpopt"
	"github.com/spdylab/spdylab/probe"
)

// Addresses inside every testbed. They exist only in the testbed's own
// namespaces, so all testbeds use the same plan without clashing, and
// nothing is routed in the caller's namespace.
var (
	clientAddr = netip.MustParseAddr("10.200.0.1") // client TUN
	routerAddr = netip.MustParseAddr("10.200.0.2") // router TUN; DNS server
)

// serverAddr is server i's address (10.200.i.2); its router-side veth is 10.200.i.1.
func serverAddr(i int) netip.Addr    { return netip.AddrFrom4([4]byte{10, 200, byte(i), 2}) }
func serverGateway(i int) netip.Addr { return netip.AddrFrom4([4]byte{10, 200, byte(i), 1}) }

// tunName is the TUN device in the client and router namespaces.
const tunName = "sl0"

// tunTxQueueLen is the kernel queue in front of each TUN device.
const tunTxQueueLen = 10000

// dnsPort is where the testbed's DNS server listens on the router.
const dnsPort = 53

// Applied records the TCP knobs as read back from the kernel after setup,
// for probes and for `spdylab link check`.
type Applied struct {
	// InitCwnd and InitRwnd as read back from each server's default route
	// (0 = kernel default), by host name.
	InitCwnd map[string]int `json:"initcwnd"`
	InitRwnd map[string]int `json:"initrwnd"`
	// ClientInitRwnd is the initrwnd on the client's default route.
	ClientInitRwnd int `json:"client_initrwnd"`
	// CC is the congestion control server sockets use; CCDefault is the
	// namespaces' default as read back. New adds CC to the global
	// tcp_allowed_congestion_control when it is missing (only the initial
	// namespace may default to an algorithm outside it), so they are equal
	// whenever that is permitted. They differ when it is not (no root in the
	// initial user namespace); sockets made with Host.Listen/Dial/DialContext
	// then get CC per socket, while programs started with Host.Command get
	// CCDefault.
	CC        string `json:"cc"`
	CCDefault string `json:"cc_default"`
	// SlowStartAfterIdle is net.ipv4.tcp_slow_start_after_idle in the servers.
	SlowStartAfterIdle bool `json:"slow_start_after_idle"`
	// NoMetricsSave is net.ipv4.tcp_no_metrics_save in every namespace.
	NoMetricsSave bool `json:"no_metrics_save"`
	// Recovery are the loss-recovery sysctls (recovery.go) read back in
	// the first server, by dotted name.
	Recovery map[string]string `json:"recovery,omitempty"`
}

// Applied returns the knobs as read back after setup (zero for Loopback).
func (tb *Testbed) Applied() Applied { return tb.applied }

// ErrNeedPrivilege is returned by New when the process may not create
// network namespaces.
var ErrNeedPrivilege = errors.New("netem: building a testbed needs root or CAP_NET_ADMIN and CAP_SYS_ADMIN " +
	"(network namespaces, TUN devices, mounts); run as root, or use --no-link for loopback without an emulated link")

// validate checks cfg and names the offending field.
func (cfg *Config) validate() error {
	if cfg.Shards < 1 || cfg.Shards > MaxShards {
		return fmt.Errorf("netem: shards %d out of range 1..%d", cfg.Shards, MaxShards)
	}
	if err := validateNames(cfg.Names, cfg.Shards); err != nil {
		return err
	}
	if err := validateHostDelays(cfg.HostDelays, cfg.Names); err != nil {
		return err
	}
	if cfg.Name != "" && !idPattern.MatchString(cfg.Name) {
		return fmt.Errorf("netem: testbed name %q: want 1-9 characters of a-z and 0-9", cfg.Name)
	}
	l := cfg.Link
	if l.DownBps < 0 || l.UpBps < 0 {
		return fmt.Errorf("netem: negative link rate (down %d, up %d bit/s)", l.DownBps, l.UpBps)
	}
	if err := l.CheckDelays(); err != nil {
		return fmt.Errorf("netem: %w", err)
	}
	if l.LossDown < 0 || l.LossDown > 1 || l.LossUp < 0 || l.LossUp > 1 {
		return fmt.Errorf("netem: loss must be within 0..1 (down %g, up %g)", l.LossDown, l.LossUp)
	}
	if l.QueuePkts < 0 || l.QueueBytes < 0 {
		return fmt.Errorf("netem: negative queue limit (%d packets, %d bytes)", l.QueuePkts, l.QueueBytes)
	}
	for _, q := range []Queue{l.QueueDown, l.QueueUp} {
		if q.Pkts < 0 || q.Bytes < 0 {
			return fmt.Errorf("netem: negative queue limit (%d packets, %d bytes)", q.Pkts, q.Bytes)
		}
	}
	if cfg.TCP.IW < 0 || cfg.TCP.IW > 1000 {
		return fmt.Errorf("netem: initcwnd %d out of range 0..1000", cfg.TCP.IW)
	}
	if cfg.TCP.InitRwnd < 0 || cfg.TCP.InitRwnd > 65535 {
		return fmt.Errorf("netem: initrwnd %d out of range 0..65535", cfg.TCP.InitRwnd)
	}
	if err := CheckCongestionControl(cfg.TCP.CC); err != nil {
		return fmt.Errorf("netem: %w", err)
	}
	return nil
}

// CheckCongestionControl refuses a TCP congestion control this kernel
// does not offer: neither in tcp_available_congestion_control nor a
// module it can load on first use. "" (the kernel default) is fine. It is
// the one check, called by testbeds, the harness's Open and the study
// preflight, so a condition is refused before any load runs.
func CheckCongestionControl(cc string) error {
	if cc == "" || ccAvailable(cc) {
		return nil
	}
	return fmt.Errorf("congestion control %q is not available on this kernel (it offers %s; a module such as tcp_%s must be built for it)",
		cc, readSysctl("net/ipv4/tcp_available_congestion_control"), cc)
}

func ccAvailable(cc string) bool {
	avail := strings.Fields(readSysctl("net/ipv4/tcp_available_congestion_control"))
	if slices.Contains(avail, cc) {
		return true
	}
	// Not loaded yet: a module may exist for it (loaded on first use).
	rel := kernelRelease()
	for _, dir := range []string{"/lib/modules/" + rel + "/kernel/net/ipv4", "/usr/lib/modules/" + rel + "/kernel/net/ipv4"} {
		if m, _ := filepath.Glob(filepath.Join(dir, "tcp_"+cc+".ko*")); len(m) > 0 {
			return true
		}
	}
	return false
}

func kernelRelease() string {
	var u unix.Utsname
	if unix.Uname(&u) != nil {
		return ""
	}
	return unix.ByteSliceToString(u.Release[:])
}

// privileged reports whether we can build namespaces.
func privileged() bool {
	if os.Geteuid() == 0 {
		return true
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if unix.Capget(&hdr, &data[0]) != nil {
		return false
	}
	has := func(c uint) bool { return data[c/32].Effective&(1<<(c%32)) != 0 }
	return has(unix.CAP_NET_ADMIN) && has(unix.CAP_SYS_ADMIN)
}

// newID picks an unused testbed id: 6 characters of a-z0-9.
func newID() (string, error) {
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	for range 100 {
		var b [6]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", err
		}
		for i := range b {
			b[i] = alphabet[int(b[i])%len(alphabet)]
		}
		id := string(b[:])
		if _, err := os.Stat(filepath.Join(stateRoot, id)); err == nil {
			continue
		}
		if _, err := os.Stat(filepath.Join(netnsDir, Prefix+id+"-c")); err == nil {
			continue
		}
		return id, nil
	}
	return "", errors.New("netem: no free testbed id")
}

// New builds a testbed. It needs root (ErrNeedPrivilege otherwise). On
// error everything created so far is removed again. The testbed is
// registered for cleanup on SIGINT/SIGTERM (see OnSignal, ClosePanicking).
func New(ctx context.Context, cfg Config) (_ *Testbed, err error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if !privileged() {
		return nil, ErrNeedPrivilege
	}
	logFile, err := openPacketLog(&cfg)
	if err != nil {
		return nil, err
	}
	dirs, err := buildDirs(&cfg)
	if err == nil {
		err = chooseName(&cfg)
	}
	if err != nil {
		if logFile != nil {
			logFile.Abort()
		}
		return nil, err
	}
	tb := &Testbed{cfg: cfg, id: cfg.Name, names: map[string]netip.Addr{}, stateDir: filepath.Join(stateRoot, cfg.Name), dirs: dirs}
	// A signal during construction makes the registry Close this testbed;
	// Close waits for buildMu, so it never races with the steps below and
	// everything made so far is in tb.stop when it runs.
	tb.buildMu.Lock()
	register(tb)
	defer func() {
		if err != nil {
			_ = tb.Close() // a panic instead leaves it to ClosePanicking via the registry
		}
	}()
	defer tb.buildMu.Unlock() // runs before the Close above
	if logFile != nil {
		// Closed last but one: the pipes flush their log buffers on Close.
		tb.stop = append(tb.stop, logFile.Commit)
	}
	if err := tb.claimState(); err != nil {
		return nil, err
	}
	nss, err := tb.createNamespaces()
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ccDefault, err := tb.applySysctls(nss)
	if err != nil {
		return nil, err
	}
	clientTun, routerTun, err := tb.wire()
	if err != nil {
		return nil, err
	}
	if err := tb.startLinkEmulator(clientTun, routerTun); err != nil {
		return nil, err
	}
	// Files for Host.Command children.
	for _, h := range append([]*Host{tb.client, tb.router}, tb.servers...) {
		if err := tb.writeEtc(h); err != nil {
			return nil, err
		}
	}
	if cfg.DNS {
		if err := tb.startDNSServer(); err != nil {
			return nil, err
		}
	}
	tb.applied, err = tb.readBack(ccDefault)
	if err != nil {
		return nil, err
	}
	return tb, nil
}

// openPacketLog creates Config.PacketLogPath when no PacketLog writer is
// given; the testbed commits it on Close (a device or FIFO is written
// directly, a file appears whole).
func openPacketLog(cfg *Config) (*atomicfile.File, error) {
	if cfg.PacketLog != nil || cfg.PacketLogPath == "" {
		return nil, nil
	}
	f, err := atomicfile.Create(cfg.PacketLogPath)
	if err != nil {
		return nil, fmt.Errorf("netem: packet log: %w", err)
	}
	// The child writes to the file itself (emuproc.packetLogFile).
	cfg.PacketLog = f.File
	return f, nil
}

// chooseName picks a fresh id when Config.Name is empty, else checks that
// no testbed of that name exists.
func chooseName(cfg *Config) error {
	if cfg.Name == "" {
		id, err := newID()
		if err != nil {
			return err
		}
		cfg.Name = id
		return nil
	}
	if _, err := os.Stat(filepath.Join(netnsDir, Prefix+cfg.Name+"-c")); err == nil {
		return fmt.Errorf("netem: a testbed named %q exists already (namespace %s%s-c)", cfg.Name, Prefix, cfg.Name)
	}
	return nil
}

// claimState writes the owner record (so Clean can tell a live testbed from
// an orphan) before any namespace exists.
func (tb *Testbed) claimState() error {
	if err := writeOwner(tb.stateDir); err != nil {
		return err
	}
	if err := ensureSharedNetnsDir(); err != nil {
		return err
	}
	tb.stop = append(tb.stop, func() error { return os.RemoveAll(tb.stateDir) })
	return nil
}

// createNamespaces makes the router, client and server namespaces (the
// router first so the veths can be made from it) and the hosts in them.
func (tb *Testbed) createNamespaces() ([]*namespace, error) {
	var nss []*namespace
	mk := func(role string) (*namespace, error) {
		ns, err := createNamespace(Prefix + tb.id + "-" + role)
		if err != nil {
			return nil, err
		}
		nss = append(nss, ns)
		return ns, nil
	}
	// Teardown of namespaces: kill what runs inside, then delete them.
	tb.stop = append(tb.stop, func() error {
		inodes := map[uint64]bool{}
		for _, ns := range nss {
			if ino, err := nsInode(ns.path()); err == nil {
				inodes[ino] = true
			}
		}
		killIn(inodes, 2*time.Second)
		var errs []error
		for _, ns := range nss {
			ns.handle.Close()
			errs = append(errs, deleteNamed(ns.name))
		}
		return errors.Join(errs...)
	})
	routerNS, err := mk("r")
	if err != nil {
		return nil, err
	}
	clientNS, err := mk("c")
	if err != nil {
		return nil, err
	}
	tb.router = &Host{Name: "router", Addr: routerAddr, tb: tb, ns: routerNS}
	tb.client = &Host{Name: "client", Addr: clientAddr, tb: tb, ns: clientNS}
	tb.names["client"] = clientAddr
	for i := 1; i <= tb.cfg.Shards; i++ {
		ns, err := mk("s" + strconv.Itoa(i))
		if err != nil {
			return nil, err
		}
		h := &Host{Name: ServerName(i), Addr: serverAddr(i), tb: tb, ns: ns, cc: tb.cfg.TCP.CC}
		tb.servers = append(tb.servers, h)
		tb.names[h.Name] = h.Addr
	}
	tb.makeSites(func(k int) (int, netip.Addr) { return siteAddr(k, tb.cfg.Shards) })
	return nss, nil
}

// applySysctls sets every namespace's sysctls and the TCP knobs; it
// returns the congestion control the namespaces default to.
func (tb *Testbed) applySysctls(nss []*namespace) (string, error) {
	// IPv6 off before any device exists, so no router solicitations or
	// DAD probes ever cross (and get counted on) the link.
	for _, ns := range nss {
		if err := ns.do(func() error { return baseSysctls(ns.name) }); err != nil {
			return "", err
		}
	}
	if err := tb.router.ns.do(func() error { return writeSysctl("net/ipv4/ip_forward", "1") }); err != nil {
		return "", err
	}
	return tb.applyTCPSysctls(append([]*Host{tb.client}, tb.servers...))
}

// wire opens the TUN devices at each end of the emulated link and the veths
// from the router to every server.
func (tb *Testbed) wire() (clientTun, routerTun *os.File, err error) {
	clientNS, routerNS := tb.client.ns, tb.router.ns
	if err := clientNS.do(func() (err error) { clientTun, err = OpenTUN(tunName); return }); err != nil {
		return nil, nil, err
	}
	tb.stop = append(tb.stop, func() error { return ignoreClosed(clientTun.Close()) })
	if err := routerNS.do(func() (err error) { routerTun, err = OpenTUN(tunName); return }); err != nil {
		return nil, nil, err
	}
	tb.stop = append(tb.stop, func() error { return ignoreClosed(routerTun.Close()) })
	if err := configureTUN(clientNS, clientAddr, routerAddr, tb.cfg.TCP.InitRwnd); err != nil {
		return nil, nil, err
	}
	if err := configureTUN(routerNS, routerAddr, clientAddr, 0); err != nil {
		return nil, nil, err
	}
	for i, s := range tb.servers {
		if err := connectServer(routerNS, s.ns, i+1, tb.cfg.TCP); err != nil {
			return nil, nil, err
		}
	}
	if err := tb.addSiteAddrs(); err != nil {
		return nil, nil, err
	}
	if err := tb.pinNeighbours(); err != nil {
		return nil, nil, err
	}
	return clientTun, routerTun, nil
}

// startLinkEmulator runs the emulator between the two TUN devices: a child
// process (emuproc.go) unless Config.InProcessEmulator.
func (tb *Testbed) startLinkEmulator(clientTun, routerTun *os.File) error {
	// tb.emu is an interface: assign only a started emulator, never a
	// typed nil (Emulated and Counters test tb.emu != nil).
	if tb.cfg.InProcessEmulator {
		emu, err := startEmulator(tb.cfg, tb.dirs, clientTun, routerTun)
		if err != nil {
			return err
		}
		tb.emu = emu
	} else {
		emu, err := startEmulatorProcess(tb.cfg, tb.dirs, clientTun, routerTun, tb.router.ns, tb.stateDir)
		if err != nil {
			return err
		}
		tb.emu = emu
	}
	tb.stop = append(tb.stop, tb.emu.close)
	return nil
}

// startDNSServer answers the testbed's host names on the router, over UDP
// and TCP, so that lookups cross the emulated link.
func (tb *Testbed) startDNSServer() error {
	addr := net.JoinHostPort(routerAddr.String(), strconv.Itoa(dnsPort))
	pc, err := tb.router.ListenPacket("udp4", addr)
	if err != nil {
		return fmt.Errorf("netem: DNS server: %w", err)
	}
	l, err := tb.router.Listen("tcp4", addr)
	if err != nil {
		pc.Close()
		return fmt.Errorf("netem: DNS server: %w", err)
	}
	srv := startDNS(tb.names, pc, l)
	tb.stop = append(tb.stop, srv.close)
	tb.dnsAddr = netip.AddrPortFrom(routerAddr, dnsPort)
	return nil
}

// createNamespace makes a named namespace (bind-mounted under /run/netns)
// from a throw-away locked thread, so no Go thread is left inside it.
func createNamespace(name string) (*namespace, error) {
	type result struct {
		h   netns.NsHandle
		err error
	}
	done := make(chan result, 1)
	go func() {
		runtime.LockOSThread()
		orig, err := netns.Get()
		if err != nil {
			runtime.UnlockOSThread()
			done <- result{err: err}
			return
		}
		defer orig.Close()
		h, err := newNamed(name) // unshares this thread into the new namespace
		if serr := netns.Set(orig); serr != nil {
			done <- result{h: h, err: errors.Join(err, serr)}
			return // stays locked: the thread is destroyed
		}
		runtime.UnlockOSThread()
		done <- result{h: h, err: err}
	}()
	r := <-done
	if r.err != nil {
		if r.h.IsOpen() {
			r.h.Close()
		}
		_ = deleteNamed(name)
		return nil, fmt.Errorf("netem: creating namespace %s: %w", name, r.err)
	}
	ns := &namespace{name: name, handle: r.h}
	// Loopback up: servers and tools may listen on 127.0.0.1.
	nh, err := netlink.NewHandleAt(r.h)
	if err != nil {
		r.h.Close()
		_ = deleteNamed(name)
		return nil, fmt.Errorf("netem: netlink in %s: %w", name, err)
	}
	defer nh.Close()
	lo, err := nh.LinkByName("lo")
	if err == nil {
		err = nh.LinkSetUp(lo)
	}
	if err != nil {
		r.h.Close()
		_ = deleteNamed(name)
		return nil, fmt.Errorf("netem: bringing up lo in %s: %w", name, err)
	}
	return ns, nil
}

// newNamed is netns.NewNamed for our netnsDir (which differs inside an
// unprivileged user namespace): it moves the calling thread into a new
// network namespace and bind-mounts that namespace at netnsDir/name.
func newNamed(name string) (netns.NsHandle, error) {
	path := filepath.Join(netnsDir, name)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_RDONLY, 0o444)
	if err != nil {
		return netns.None(), err
	}
	f.Close()
	if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
		os.Remove(path)
		return netns.None(), err
	}
	self := fmt.Sprintf("/proc/%d/task/%d/ns/net", os.Getpid(), unix.Gettid())
	if err := unix.Mount(self, path, "none", unix.MS_BIND, ""); err != nil {
		os.Remove(path)
		return netns.None(), err
	}
	return netns.GetFromPath(self)
}

// baseSysctls runs inside a fresh namespace.
func baseSysctls(name string) error {
	// IPv6 may be compiled out; then there is nothing to silence.
	_ = writeSysctl("net/ipv6/conf/all/disable_ipv6", "1")
	_ = writeSysctl("net/ipv6/conf/default/disable_ipv6", "1")
	// Without this, the kernel caches ssthresh and RTT per destination when a
	// connection closes and the next "cold" load starts from them.
	if err := writeSysctl("net/ipv4/tcp_no_metrics_save", "1"); err != nil {
		return fmt.Errorf("netem: %s: %w", name, err)
	}
	return nil
}

// allowedCCMu serialises this process's read-modify-write of the global
// tcp_allowed_congestion_control.
var allowedCCMu sync.Mutex

// allowCC adds cc to net.ipv4.tcp_allowed_congestion_control (global; only
// the initial namespace may change it) unless it is there already, so that
// the testbed's namespaces may make it their default and programs started
// with Host.Command use it too. Entries are only ever added: what others
// rely on stays, and the list stays widened after Close, as `sysctl -w`
// would leave it. An algorithm built as a module is loaded first (the
// kernel refuses unknown names in the list).
func allowCC(cc string) error {
	allowedCCMu.Lock()
	defer allowedCCMu.Unlock()
	const key = "net/ipv4/tcp_allowed_congestion_control"
	allowed := strings.Fields(readSysctl(key))
	if slices.Contains(allowed, cc) {
		return nil
	}
	if !slices.Contains(strings.Fields(readSysctl("net/ipv4/tcp_available_congestion_control")), cc) {
		// TCP_CONGESTION with CAP_NET_ADMIN autoloads tcp_<cc>.ko.
		if fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0); err == nil {
			_ = tcpopt.SetCongestionFD(uintptr(fd), cc)
			unix.Close(fd)
		}
	}
	return writeSysctl(key, strings.Join(append(allowed, cc), " "))
}

// applyTCPSysctls sets congestion control, slow start after idle and loss
// recovery in the client and server namespaces and returns the default cc they ended up with.
func (tb *Testbed) applyTCPSysctls(hosts []*Host) (ccDefault string, err error) {
	if cc := tb.cfg.TCP.CC; cc != "" {
		// Without root in the initial user namespace (RunInUserNamespace)
		// this fails; the namespaces then keep their default and sockets
		// made through Host get cc one by one (Applied.CCDefault says so).
		_ = allowCC(cc)
	}
	ssai := "0"
	if tb.cfg.TCP.SlowStartAfterIdle {
		ssai = "1"
	}
	for _, h := range hosts {
		err := h.Do(func() error {
			if err := writeSysctl("net/ipv4/tcp_slow_start_after_idle", ssai); err != nil {
				return err
			}
			if err := applyRecovery(tb.cfg.TCP.Recovery); err != nil {
				return err
			}
			if cc := tb.cfg.TCP.CC; cc != "" {
				// EPERM for algorithms outside tcp_allowed_congestion_control
				// in a non-initial namespace (allowCC could not widen it);
				// then sockets get it one by one.
				if err := writeSysctl("net/ipv4/tcp_congestion_control", cc); err != nil && !errors.Is(err, syscall.EPERM) {
					return err
				}
			}
			ccDefault = readSysctl("net/ipv4/tcp_congestion_control")
			return nil
		})
		if err != nil {
			return "", fmt.Errorf("netem: TCP settings in %s: %w", h.Namespace(), err)
		}
	}
	if ccDefault == tb.cfg.TCP.CC {
		for _, h := range hosts {
			h.cc = "" // the namespace default already is the wanted one
		}
	} else {
		for _, h := range hosts {
			h.cc = tb.cfg.TCP.CC
		}
	}
	return ccDefault, nil
}

func writeSysctl(key, value string) error {
	path := "/proc/sys/" + key
	if err := os.WriteFile(path, []byte(value), 0o644); err != nil {
		return fmt.Errorf("setting %s=%s: %w", strings.ReplaceAll(key, "/", "."), value, err)
	}
	return nil
}

func readSysctl(key string) string {
	b, err := os.ReadFile("/proc/sys/" + key)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// OpenTUN creates a TUN device in the calling thread's namespace. Without
// IFF_VNET_HDR the device has no offloads, so it only ever sees MTU-sized
// packets. The fd is non-blocking so reads park in Go's poller and Close
// unblocks them.
func OpenTUN(name string) (*os.File, error) {
	fd, err := unix.Open("/dev/net/tun", unix.O_RDWR|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, unix.EACCES) || errors.Is(err, unix.EPERM) {
			return nil, fmt.Errorf("netem: opening /dev/net/tun: %w (run as root, or make /dev/net/tun accessible "+
				"to this user, mode 0666 as most distributions ship it)", err)
		}
		return nil, fmt.Errorf("netem: opening /dev/net/tun: %w", err)
	}
	ifr, err := unix.NewIfreq(name)
	if err != nil {
		unix.Close(fd)
		return nil, err
	}
	ifr.SetUint16(unix.IFF_TUN | unix.IFF_NO_PI)
	if err := unix.IoctlIfreq(fd, unix.TUNSETIFF, ifr); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("netem: creating TUN device %s: %w", name, err)
	}
	return os.NewFile(uintptr(fd), "tun:"+name), nil
}

func hostPrefix(a netip.Addr) *net.IPNet {
	return &net.IPNet{IP: a.AsSlice(), Mask: net.CIDRMask(32, 32)}
}

// configureTUN gives the TUN in ns the point-to-point address local->peer.
// The client routes everything through it (initrwnd on that route).
func configureTUN(ns *namespace, local, peer netip.Addr, initRwnd int) error {
	nh, err := ns.netlinkHandle()
	if err != nil {
		return err
	}
	defer nh.Close()
	tun, err := nh.LinkByName(tunName)
	if err != nil {
		return fmt.Errorf("netem: %s in %s: %w", tunName, ns.name, err)
	}
	if err := nh.AddrAdd(tun, &netlink.Addr{IPNet: hostPrefix(local), Peer: hostPrefix(peer)}); err != nil {
		return fmt.Errorf("netem: address on %s in %s: %w", tunName, ns.name, err)
	}
	// The emulated queue is the bottleneck's only queue: a TUN's own
	// transmit queue (500 packets by default) must never be the one that
	// overflows when the emulator's reader is briefly descheduled.
	if err := nh.LinkSetTxQLen(tun, tunTxQueueLen); err != nil {
		return fmt.Errorf("netem: txqueuelen of %s in %s: %w", tunName, ns.name, err)
	}
	if err := nh.LinkSetUp(tun); err != nil {
		return fmt.Errorf("netem: %s up in %s: %w", tunName, ns.name, err)
	}
	if local == clientAddr {
		_, all, _ := net.ParseCIDR("0.0.0.0/0")
		r := &netlink.Route{LinkIndex: tun.Attrs().Index, Dst: all, Scope: netlink.SCOPE_UNIVERSE,
			Src: local.AsSlice(), InitRwnd: initRwnd}
		if err := nh.RouteAdd(r); err != nil {
			return fmt.Errorf("netem: default route in %s: %w", ns.name, err)
		}
	}
	return nil
}

// netlinkHandle opens a netlink handle in ns; the caller closes it.
func (ns *namespace) netlinkHandle() (*netlink.Handle, error) {
	h, err := netlink.NewHandleAt(ns.handle)
	if err != nil {
		return nil, fmt.Errorf("netem: netlink in %s: %w", ns.name, err)
	}
	return h, nil
}

// netlinkHandles opens netlink handles in a and in b; the caller closes
// both.
func netlinkHandles(a, b *namespace) (*netlink.Handle, *netlink.Handle, error) {
	ah, err := a.netlinkHandle()
	if err != nil {
		return nil, nil, err
	}
	bh, err := b.netlinkHandle()
	if err != nil {
		ah.Close()
		return nil, nil, err
	}
	return ah, bh, nil
}

// routerVethName names the router's end of the veth to server i.
func routerVethName(i int) string { return "s" + strconv.Itoa(i) }

// connectServer links server i to the router with a veth pair made in the
// router namespace whose server end is created directly in the server's
// namespace, and installs the server's default route with the TCP knobs.
func connectServer(router, server *namespace, i int, knobs probe.TCP) error {
	rh, sh, err := netlinkHandles(router, server)
	if err != nil {
		return err
	}
	defer rh.Close()
	defer sh.Close()
	routerSide := routerVethName(i)
	veth := &netlink.Veth{
		LinkAttrs:     netlink.LinkAttrs{Name: routerSide, MTU: 1500},
		PeerName:      "eth0",
		PeerNamespace: netlink.NsFd(int(server.handle)),
	}
	if err := rh.LinkAdd(veth); err != nil {
		return fmt.Errorf("netem: veth %s/%s: %w", router.name, routerSide, err)
	}
	rl, err := rh.LinkByName(routerSide)
	if err != nil {
		return err
	}
	sl, err := sh.LinkByName("eth0")
	if err != nil {
		return fmt.Errorf("netem: eth0 in %s: %w", server.name, err)
	}
	gw, addr := serverGateway(i), serverAddr(i)
	if err := rh.AddrAdd(rl, &netlink.Addr{IPNet: &net.IPNet{IP: gw.AsSlice(), Mask: net.CIDRMask(24, 32)}}); err != nil {
		return fmt.Errorf("netem: address on %s/%s: %w", router.name, routerSide, err)
	}
	if err := sh.AddrAdd(sl, &netlink.Addr{IPNet: &net.IPNet{IP: addr.AsSlice(), Mask: net.CIDRMask(24, 32)}}); err != nil {
		return fmt.Errorf("netem: address on %s/eth0: %w", server.name, err)
	}
	if err := rh.LinkSetUp(rl); err != nil {
		return err
	}
	if err := sh.LinkSetUp(sl); err != nil {
		return err
	}
	_, all, _ := net.ParseCIDR("0.0.0.0/0")
	r := &netlink.Route{LinkIndex: sl.Attrs().Index, Dst: all, Gw: gw.AsSlice(),
		InitCwnd: knobs.IW, InitRwnd: knobs.InitRwnd}
	if err := sh.RouteAdd(r); err != nil {
		return fmt.Errorf("netem: default route in %s (initcwnd %d, initrwnd %d): %w", server.name, knobs.IW, knobs.InitRwnd, err)
	}
	return nil
}

// defaultRoute reads back the default route of ns.
func defaultRoute(ns *namespace) (netlink.Route, error) {
	nh, err := netlink.NewHandleAt(ns.handle)
	if err != nil {
		return netlink.Route{}, err
	}
	defer nh.Close()
	routes, err := nh.RouteList(nil, netlink.FAMILY_V4)
	if err != nil {
		return netlink.Route{}, err
	}
	for _, r := range routes {
		if r.Dst == nil || r.Dst.IP.IsUnspecified() {
			if ones, _ := maskOnes(r.Dst); ones == 0 {
				return r, nil
			}
		}
	}
	return netlink.Route{}, fmt.Errorf("netem: no default route in %s", ns.name)
}

func maskOnes(n *net.IPNet) (int, int) {
	if n == nil {
		return 0, 32
	}
	return n.Mask.Size()
}

// readBack collects the applied knobs from the kernel.
func (tb *Testbed) readBack(ccDefault string) (Applied, error) {
	a := Applied{InitCwnd: map[string]int{}, InitRwnd: map[string]int{}, CC: tb.cfg.TCP.CC, CCDefault: ccDefault}
	if a.CC == "" {
		a.CC = ccDefault
	}
	for _, s := range tb.servers {
		r, err := defaultRoute(s.ns)
		if err != nil {
			return a, err
		}
		a.InitCwnd[s.Name] = r.InitCwnd
		a.InitRwnd[s.Name] = r.InitRwnd
	}
	r, err := defaultRoute(tb.client.ns)
	if err != nil {
		return a, err
	}
	a.ClientInitRwnd = r.InitRwnd
	err = tb.servers[0].Do(func() error {
		a.SlowStartAfterIdle = readSysctl("net/ipv4/tcp_slow_start_after_idle") == "1"
		a.NoMetricsSave = readSysctl("net/ipv4/tcp_no_metrics_save") == "1"
		a.Recovery = readRecovery()
		return nil
	})
	return a, err
}

// writeEtc writes the hosts and resolv.conf that Host.Command children of h see.
func (tb *Testbed) writeEtc(h *Host) error {
	dir := filepath.Join(tb.stateDir, "etc-"+h.role())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	viaDNS := tb.cfg.DNS && h == tb.client
	if err := atomicfile.Write(filepath.Join(dir, "hosts"), hostsFile(tb.names, !viaDNS)); err != nil {
		return err
	}
	// Without DNS, point the resolver at a closed local port so lookups of
	// other names fail at once instead of timing out against an address
	// that is unreachable from inside the testbed.
	ns := "127.0.0.1"
	if tb.cfg.DNS {
		ns = routerAddr.String()
	}
	return atomicfile.Write(filepath.Join(dir, "resolv.conf"), []byte("nameserver "+ns+"\noptions timeout:2 attempts:2\n"))
}

// ccControl sets the congestion control on TCP sockets made by a host whose
// namespace could not default to it.
func ccControl(cc string, next func(network, address string, c syscall.RawConn) error) func(network, address string, c syscall.RawConn) error {
	if cc == "" {
		return next
	}
	return func(network, address string, c syscall.RawConn) error {
		if strings.HasPrefix(network, "tcp") {
			var serr error
			if err := c.Control(func(fd uintptr) { serr = tcpopt.SetCongestionFD(fd, cc) }); err != nil {
				return err
			}
			if serr != nil {
				return serr
			}
		}
		if next != nil {
			return next(network, address, c)
		}
		return nil
	}
}
