package harness

import (
	"fmt"
	"time"

	"github.com/spdylab/spdylab/probe"
)

// A repeat view (probe.Condition.View "repeat"): before the measured load,
// a first view of the same page over the same protocol on the same bench
// (not stored, not counted; its failure fails the load), whose TLS session
// tickets the measured load starts with (the loader: one session cache
// for both loads, which quic-go also uses for 0-RTT; Chromium: one browser
// process, browser.Options.RepeatView). Between the two every connection
// is closed, from the servers' side too, so the measured load opens new
// ones, and nothing is cached (the loader has no HTTP cache; Chromium's is
// cleared). The measured load's counters start after all that.

// repeatSessionCacheSize holds a ticket per host of the largest pages with
// room to spare (the loader's own cache has the same size).
const repeatSessionCacheSize = 64

// closeWait bounds how long the bench waits for the connections of a
// first view to be gone.
const closeWait = 5 * time.Second

// firstView runs a repeat view's first view with load and closes every
// connection it left.
func (b *Bench) firstView(load func() error) error {
	if err := load(); err != nil {
		return fmt.Errorf("harness: view %s: the first view before the measured load failed: %w", probe.ViewRepeat, err)
	}
	b.closeConnections()
	return nil
}

// closeConnections closes every server's connections and waits until the
// servers hold none and the close had time to cross the link, so the next
// load finds no connection open and its counters see no closing packets.
// A browser may open a connection of its own as soon as it sees one
// closed (Chromium, now and then, to an h3 host it was using): one opened
// meanwhile is closed again.
func (b *Bench) closeConnections() {
	for range closeRounds {
		for _, s := range b.servers {
			s.CloseConnections()
		}
		deadline := time.Now().Add(closeWait)
		for time.Now().Before(deadline) && b.openConnections() > 0 {
			time.Sleep(10 * time.Millisecond)
		}
		// The last close packets (FIN, CONNECTION_CLOSE) reach the client
		// one way later: what the link adds, with a margin for the
		// emulator and a busy client.
		time.Sleep(lastPacketWait(b.cond.Link))
		if b.openConnections() == 0 {
			return
		}
	}
}

// lastPacketWait is how long the last close packets take to reach the
// client: the link's downlink delay, with a margin for the emulator and a
// busy client.
func lastPacketWait(l probe.Link) time.Duration {
	down, _ := l.OneWay()
	return down + 100*time.Millisecond
}

// closeRounds bounds how often closeConnections closes what a client
// reopened.
const closeRounds = 3

func (b *Bench) openConnections() int {
	n := 0
	for _, s := range b.servers {
		n += s.OpenConnections()
	}
	return n
}

// serverHandshakes are the TLS handshakes the servers completed since the
// last call, as a load's counts (the servers cannot tell a refused 0-RTT
// from none).
func (b *Bench) serverHandshakes() probe.TLSHandshakes {
	var t probe.TLSHandshakes
	for _, s := range b.servers {
		h := s.TakeHandshakes()
		t.Full += h.Full
		t.Resumed += h.Resumed
		t.EarlyData += h.EarlyData
		t.RoundTrips += h.RoundTrips
	}
	return t
}
