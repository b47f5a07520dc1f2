package netem

import (
	"net/netip"
	"sync"
	"testing"
	"time"
)

// ipv4To is a minimal IPv4 header toward dst carrying one payload byte.
func ipv4To(dst netip.Addr, b byte) []byte {
	pkt := make([]byte, 21)
	pkt[0] = 0x45
	a := dst.As4()
	copy(pkt[16:20], a[:])
	pkt[20] = b
	return pkt
}

func TestHostDelaysHoldOnlyTheirHosts(t *testing.T) {
	far := netip.MustParseAddr("10.200.1.3")
	near := netip.MustParseAddr("10.200.1.4")
	const d = 30 * time.Millisecond
	var mu sync.Mutex
	type arrival struct {
		b  byte
		at time.Time
	}
	var got []arrival
	arrived := make(chan struct{}, 10)
	write := func(pkt []byte) error {
		mu.Lock()
		got = append(got, arrival{pkt[20], time.Now()})
		mu.Unlock()
		arrived <- struct{}{}
		return nil
	}
	h := newHostDelays(map[netip.Addr]time.Duration{far: d}, write)
	start := time.Now()
	for i, dst := range []netip.Addr{far, far, near} {
		pkt := ipv4To(dst, byte(i))
		if err := h.deliver(pkt, write); err != nil {
			t.Fatal(err)
		}
		pkt[20] = 99 // the line keeps its own copy
	}
	for range 3 {
		<-arrived
	}
	if err := h.close(); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if got[0].b != 2 {
		t.Errorf("the undelayed host's packet came %v, want first", got)
	}
	if got[1].b != 0 || got[2].b != 1 {
		t.Errorf("the delayed host's packets came out of order: %v", got)
	}
	for _, a := range got[1:] {
		if a.at.Sub(start) < d {
			t.Errorf("packet %d left after %v, before its delay %v", a.b, a.at.Sub(start), d)
		}
	}
}

func TestHostDelaysValidated(t *testing.T) {
	names := []string{"www.example.org"}
	if err := validateHostDelays(map[string]time.Duration{"cdn.example.net": time.Millisecond}, names); err == nil {
		t.Error("a delay for a name the testbed lacks was accepted")
	}
	if err := validateHostDelays(map[string]time.Duration{"www.example.org": -time.Millisecond}, names); err == nil {
		t.Error("a negative delay was accepted")
	}
	cfg := Config{Shards: 2, Names: []string{"a.test", "b.test", "c.test"}, HostDelays: map[string]time.Duration{"c.test": 5 * time.Millisecond}}
	addrs := hostDelayAddrs(&cfg)
	if _, want := siteAddr(2, 2); len(addrs) != 1 || addrs[want] != 5*time.Millisecond {
		t.Errorf("delays by address %v, want c.test's address %v alone", addrs, want)
	}
}
