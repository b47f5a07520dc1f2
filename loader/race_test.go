package loader

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/spdylab/spdylab/internal/ctxtime"
	"github.com/spdylab/spdylab/probe"
)

// slowDial makes every connection take setup long enough that all the
// requests the scanner finds at once reach a host while its first
// connection is still being set up. The TCP connection is made first, so
// the server counts every attempt however soon the race ends; fail's
// attempts are refused after the delay.
func slowDial(fail string) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		if addr == fail {
			if err := ctxtime.Sleep(ctx, 100*time.Millisecond); err != nil {
				return nil, err
			}
			return nil, errors.New("refused by the test")
		}
		var d net.Dialer
		conn, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		if err := ctxtime.Sleep(ctx, 100*time.Millisecond); err != nil {
			conn.Close()
			return nil, err
		}
		return conn, nil
	}
}

// TestRaceConnects: with RaceConnects the requests that reach a host while
// its HTTP/2 connection is being set up open connections of their own (at
// most MaxConnsPerHost); one carries every request and the result counts
// only it. Without the option each host gets exactly one connection.
func TestRaceConnects(t *testing.T) {
	st := newSite(t, "generic:n=30,mean=2k,depth=1", 2)
	target, stats := goServers(t, st, []string{"h2"}, nil)
	second := st.m.Hosts[1]
	for _, race := range []bool{false, true} {
		for _, hs := range stats {
			hs.mu.Lock()
			hs.conns = 0
			hs.mu.Unlock()
		}
		o := Options{Proto: probe.ProtoH2, TLSVersion: "1.3", RaceConnects: race, Dial: slowDial(""), MaxConnsPerHost: 4}
		res, err := Load(context.Background(), target, o)
		if err != nil {
			t.Fatalf("race %v: %v", race, err)
		}
		h := checkAgainstManifest(t, st, res)
		if n := connsPerHost(h); n[st.m.Hosts[0]] != 1 || n[second] != 1 {
			t.Errorf("race %v: connections carrying requests per host %v, want one each", race, n)
		}
		if res.Connections != 2 {
			t.Errorf("race %v: result counts %d connections, want the 2 that carried requests", race, res.Connections)
		}
		stats[second].mu.Lock()
		opened := stats[second].conns
		stats[second].mu.Unlock()
		switch {
		case !race && opened != 1:
			t.Errorf("no race: %s saw %d connections, want 1", second, opened)
		case race && (opened < 2 || opened > o.MaxConnsPerHost):
			t.Errorf("race: %s saw %d connections, want 2-%d (one per request waiting for the session)", second, opened, o.MaxConnsPerHost)
		}
	}
}

// TestRaceConnectsAllFail: when every racing connection fails the load
// fails with the first attempt's error, naming the host, and does not hang.
func TestRaceConnectsAllFail(t *testing.T) {
	st := newSite(t, "generic:n=30,mean=2k,depth=1", 2)
	target, _ := goServers(t, st, []string{"h2"}, nil)
	second := st.m.Hosts[1]
	addr := strings.TrimPrefix(target.BaseURLs[second], "https://")
	o := Options{Proto: probe.ProtoH2, TLSVersion: "1.3", RaceConnects: true, Dial: slowDial(addr), Timeout: 20 * time.Second}
	res, err := Load(context.Background(), target, o)
	if err == nil && !res.Failed {
		t.Fatal("the load succeeded without the second host")
	}
	msg := res.Error
	if err != nil {
		msg = err.Error()
	}
	if !strings.Contains(msg, "refused by the test") || !strings.Contains(msg, second) {
		t.Errorf("error %q does not name %s and the dial's failure", msg, second)
	}
}

// The chromium-modern profile races connections; chrome16 (the seed
// studies' browser model) keeps one per host.
func TestProfileRaceConnects(t *testing.T) {
	for name, want := range map[string]bool{probe.ProfileChrome16: false, probe.ProfileChromiumModern: true} {
		o := Options{RaceConnects: !want}
		if err := ApplyProfile(&o, name, ""); err != nil {
			t.Fatal(err)
		}
		if o.RaceConnects != want {
			t.Errorf("%s: RaceConnects %v, want %v", name, o.RaceConnects, want)
		}
		if pad := o.HelloPadding; (pad == ChromiumHelloPadding) != want || (pad != 0) != want {
			t.Errorf("%s: HelloPadding %d", name, pad)
		}
	}
}

// A connection whose session setup fails after its handshake is closed and
// named in the error; if it had lost its host's race it is counted out.
func TestSessionFailedOnALosingConnection(t *testing.T) {
	for _, tc := range []struct {
		name      string
		cause     error
		abandoned bool
	}{
		{"lost the race", errLostRace, true},
		{"load cancelled", context.Canceled, false},
		{"still running", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			if tc.cause != nil {
				cancel(tc.cause)
			}
			raw, peer := net.Pipe()
			defer peer.Close()
			c := &connection{host: "s1.example", raw: raw}
			setupErr := errors.New("preface refused")
			err := c.sessionFailed(ctx, setupErr)
			if !errors.Is(err, setupErr) || !strings.Contains(err.Error(), "s1.example") {
				t.Errorf("error %v: want the setup error, naming the host", err)
			}
			if got := c.abandoned.Load(); got != tc.abandoned {
				t.Errorf("abandoned = %v, want %v", got, tc.abandoned)
			}
			if _, err := raw.Write([]byte{1}); !errors.Is(err, io.ErrClosedPipe) {
				t.Errorf("connection still open after a failed setup: write gave %v", err)
			}
		})
	}
}
