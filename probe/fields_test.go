package probe

import (
	"encoding/json"
	"flag"
	"strings"
	"testing"
)

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int{"65536": 65536, "64KiB": 65536, "64 kb": 65536, "1MiB": 1 << 20, "2m": 2 << 20, "100b": 100} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "-1", "1.5kb", "kb", "99999999999999mb"} {
		if _, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q) accepted", bad)
		}
	}
}

// FuzzParseSize: any study-file text gives a size or an error, never a
// panic, and a canonical spelling parses back to the same size.
func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"65536", "64KiB", "64 kb", "1MiB", "2m", "", "kb", "-1", "99999999999999mb"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseSize(s)
		if err != nil {
			return
		}
		if n < 0 {
			t.Fatalf("ParseSize(%q) = %d", s, n)
		}
		if back, err := ParseSize(FormatSize(n)); err != nil || back != n {
			t.Fatalf("%q -> %d -> %q -> %d, %v", s, n, FormatSize(n), back, err)
		}
	})
}

// The table is consistent: every field validates, its default is in its
// canonical spelling, and names (and so flags) are unique.
func TestFieldsTable(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range Fields {
		if seen[f.Name] {
			t.Errorf("field %s twice", f.Name)
		}
		seen[f.Name] = true
		if f.Canon == nil || f.Help == "" || (f.Kind != KindString && f.Kind != KindInt && f.Kind != KindBool) {
			t.Errorf("field %s: no Canon, help or kind", f.Name)
		}
		if f.Default == "" {
			continue
		}
		if c, err := f.Canon(f.Default); err != nil || c != f.Default {
			t.Errorf("field %s: default %q is not canonical (%q, %v)", f.Name, f.Default, c, err)
		}
	}
}

// New fields at their defaults add nothing to a condition's JSON, so
// stored condition hashes keep their meaning.
func TestDefaultConditionJSONUnchanged(t *testing.T) {
	c, err := NewCondition(map[string]string{"page": "pageA", "protocol": ProtoHTTPS})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(c)
	want := `{"page":"pageA","shards":1,"shard_mode":"equal","proto":"https","tls":"1.2","push":"none","dns":false,"link":{"down_bps":0,"up_bps":0,"rtt_ns":0,"loss_down":0,"loss_up":0,"queue_pkts":100,"shared":true,"seed":0},"tcp":{"slow_start_after_idle":false}}`
	if string(b) != want {
		t.Errorf("default condition\n got %s\nwant %s", b, want)
	}
}

// Queues have one spelling: equal directions are the queue alone, and a
// per-direction queue is never the zero "same as queue".
func TestQueuesCanonical(t *testing.T) {
	for _, tc := range []struct {
		queue, down, up string
		want            Link
	}{
		{"50pkt", "", "", Link{QueuePkts: 50}},
		{"50pkt", "50pkt", "", Link{QueuePkts: 50}},
		{"50pkt", "", "64kb", Link{QueuePkts: 50, QueueUp: Queue{Bytes: 64000}}},
		{"50pkt", "unlimited", "", Link{QueueUp: Queue{Pkts: 50}}},
		{"unlimited", "20pkt", "", Link{QueueDown: Queue{Pkts: 20}}},
		{"unlimited", "", "20pkt", Link{QueueUp: Queue{Pkts: 20}}},
		{"10pkt", "20pkt", "30pkt", Link{QueuePkts: 20, QueueUp: Queue{Pkts: 30}}},
	} {
		c, err := BuildCondition(map[string]string{"queue": tc.queue, "queue_down": tc.down, "queue_up": tc.up})
		if err != nil {
			t.Fatal(err)
		}
		l := c.Link
		l.Shared = false
		if l != tc.want {
			t.Errorf("queue %q down %q up %q: %+v, want %+v", tc.queue, tc.down, tc.up, l, tc.want)
		}
		wd, wu := tc.want.Queues()
		if d, u := c.Link.Queues(); d != wd || u != wu {
			t.Errorf("queue %q down %q up %q: Queues %v/%v", tc.queue, tc.down, tc.up, d, u)
		}
	}
}

// Gilbert-Elliott loss replaces a direction's Bernoulli loss; both given
// for one direction is an error naming them.
func TestGilbertElliottField(t *testing.T) {
	c, err := BuildCondition(map[string]string{"loss": "1%", "ge_up": "p=0.01,r=0.3,h=0,k=1"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Link.LossDown != 0.01 || c.Link.LossUp != 0 || c.Link.GEUp != (GilbertElliott{P: 0.01, R: 0.3, LossBad: 1}) {
		t.Errorf("link %+v", c.Link)
	}
	_, err = BuildCondition(map[string]string{"loss_up": "1%", "ge_up": "p=0.01,r=0.3,h=0,k=1"})
	if err == nil || !strings.Contains(err.Error(), "ge_up") || !strings.Contains(err.Error(), "loss_up") {
		t.Errorf("ge_up with loss_up: %v", err)
	}
	if s, _ := canonGE("p=1%,r=30%,k=0.99"); s != "p=0.01,r=0.3,h=0,k=0.99" {
		t.Errorf("canonical spelling %q", s)
	}
}

// A delay without a unit is refused in the flag's words with the unit it
// probably meant.
func TestDurationFlagWithoutUnit(t *testing.T) {
	fs := flag.NewFlagSet("load", flag.ContinueOnError)
	ff := RegisterFieldFlags(fs, FlagLink, nil)
	if err := fs.Parse([]string{"--rtt", "100"}); err != nil {
		t.Fatal(err)
	}
	_, err := ff.Values()
	want := `--rtt "100": a duration needs a unit: did you mean 100ms?`
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
}

func TestTransportForAndProfileField(t *testing.T) {
	if !TransportFor("cc", ProtoHTTPS) || !TransportFor("iw", ProtoSPDY31) {
		t.Error("cc and iw are transport knobs of TCP protocols")
	}
	if TransportFor("push", ProtoHTTPS) || TransportFor("cc", ProtoH3) || TransportFor("nosuch", ProtoHTTPS) {
		t.Error("push is no transport knob; h3 runs over QUIC; unknown fields are nothing")
	}
	for name, ok := range map[string]bool{"cc": true, "push": true, "rtt": false, "page": false, "protocol": false, "profile": false, "nosuch": false} {
		if err := ProfileField(name); (err == nil) != ok {
			t.Errorf("ProfileField(%s) = %v", name, err)
		}
	}
}
