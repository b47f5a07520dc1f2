package sctp

import (
	"bytes"
	"net"
	"strings"
	"testing"
	"time"
)

func TestCongestionControlValidation(t *testing.T) {
	for _, name := range append([]string{""}, CongestionControls...) {
		if err := (Config{CongestionControl: name}).validate(); err != nil {
			t.Errorf("%q refused: %v", name, err)
		}
	}
	for _, name := range []string{"cubic", "RFC2581", " htcp", "reno"} {
		err := (Config{CongestionControl: name}).validate()
		if err == nil || !strings.Contains(err.Error(), "CongestionControl") {
			t.Errorf("%q: error %v, want one naming Config.CongestionControl", name, err)
		}
		pc, _ := net.ListenPacket("udp4", "127.0.0.1:0")
		if _, err := Listen(pc, Config{CongestionControl: name}); err == nil {
			t.Errorf("Listen accepted CongestionControl %q", name)
		}
	}
}

// Each module is applied to both ends' associations (the accepted one
// inherits its listener's) and carries a transfer larger than the windows.
func TestEachCongestionControlTransfers(t *testing.T) {
	payload := bytes.Repeat([]byte("0123456789abcdef"), 4096) // 64 KiB messages
	for _, name := range append([]string{""}, CongestionControls...) {
		cfg := Config{CongestionControl: name, RTOMin: 200 * time.Millisecond, SendBuffer: 128 << 10, ReceiveBuffer: 128 << 10}
		l := listenLoopback(t, cfg)
		c := dialLoopback(t, l, cfg)
		s := acceptOne(t, l)
		want := name
		if want == "" {
			want = CCRFC2581
		}
		for who, a := range map[string]*Assoc{"client": c, "server": s} {
			got, err := a.Applied()
			if err != nil {
				t.Fatal(err)
			}
			if got.CongestionControl != want {
				t.Errorf("%q: %s association runs %q", name, who, got.CongestionControl)
			}
		}
		const messages = 32 // 2 MiB
		errc := make(chan error, 1)
		go func() {
			for range messages {
				if err := s.SendMessage(1, 0, payload); err != nil {
					errc <- err
					return
				}
			}
			errc <- nil
		}()
		buf := make([]byte, 2*len(payload))
		total := 0
		for total < messages*len(payload) {
			n, _, _, err := c.RecvMessage(buf)
			if err != nil {
				t.Fatalf("%q: after %d bytes: %v", name, total, err)
			}
			total += n
		}
		if err := <-errc; err != nil {
			t.Fatalf("%q: send: %v", name, err)
		}
	}
}

func TestStackTuningReadsBackAndRestores(t *testing.T) {
	old := Tuning()
	t.Logf("usrsctp defaults: %+v", old)
	t.Cleanup(func() {
		if err := SetTuning(old); err != nil {
			t.Error(err)
		}
	})
	want := StackTuning{InitialCwnd: 10, CwndBasedMaxBurst: !old.CwndBasedMaxBurst}
	if err := SetTuning(want); err != nil {
		t.Fatal(err)
	}
	if got := Tuning(); got != want {
		t.Errorf("read back %+v, want %+v", got, want)
	}
	if err := SetTuning(StackTuning{InitialCwnd: -1}); err == nil {
		t.Error("negative InitialCwnd accepted")
	}
}
