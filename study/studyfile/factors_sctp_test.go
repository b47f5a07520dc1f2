package studyfile

import (
	"strings"
	"testing"
	"time"

	"github.com/spdylab/spdylab/probe"
)

// TestSCTPFactorsReachTheCondition: the SCTP factors become
// Condition.SCTP; values equal to the defaults are stored as zero, so a
// condition that spells the defaults hashes like one that omits them.
func TestSCTPFactorsReachTheCondition(t *testing.T) {
	s, err := Parse([]byte(`
name = "x"
runs = 1
[factors]
page = "pageA"
protocol = "spdy/3.1+sctp"
tls = "none"
sctp_control_stream = [true, false]
sctp_bundle_cookie = false
sctp_streams = 4
sctp_rto_min = "300ms"
sctp_rto_initial = "1s"
sctp_buffer = ["64kb", "128KiB"]
sctp_cc = "htcp"
[baseline]
protocol = "spdy/3.1+sctp"
`), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Conditions) != 4 {
		t.Fatalf("%d conditions, want 4", len(s.Conditions))
	}
	var off, big int
	for _, c := range s.Conditions {
		k := c.SCTP
		if !k.NoBundleCookie || k.Streams != 4 || k.RTOMin != 300*time.Millisecond || k.RTOInitial != 0 {
			t.Errorf("knobs %+v (want no bundling, 4 streams, RTO.min 300ms, RTO.initial default as 0)", k)
		}
		if k.CongestionControl != "htcp" {
			t.Errorf("congestion control %q, want htcp", k.CongestionControl)
		}
		if k.NoControlStream {
			off++
		}
		switch k.Buffer {
		case 128 << 10:
			big++
		case 0: // 64 KiB is the default
		default:
			t.Errorf("buffer %d", k.Buffer)
		}
		if c.Values["sctp_buffer"] != "64KiB" && c.Values["sctp_buffer"] != "128KiB" {
			t.Errorf("canonical buffer value %q", c.Values["sctp_buffer"])
		}
	}
	if off != 2 || big != 2 {
		t.Errorf("%d conditions without control stream, %d with 128 KiB buffers; want 2 and 2", off, big)
	}

	plain, err := Parse([]byte("name = \"y\"\nruns = 1\n[factors]\npage = \"pageA\"\nprotocol = \"https\"\n"), "")
	if err != nil {
		t.Fatal(err)
	}
	if c := plain.Conditions[0]; c.SCTP != (probe.SCTP{}) {
		t.Errorf("a study without SCTP factors has knobs %+v", c.SCTP)
	}
}

func TestSCTPFactorErrors(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		{`sctp_streams = 1`, "between 2 and 65535"},
		{`sctp_rto_min = "0s"`, "between 1ms"},
		{`sctp_buffer = "1kb"`, "between 4KiB"},
		{`sctp_buffer = "lots"`, "not a size"},
		{`sctp_control_stream = "yes"`, "sctp_control_stream"},
		{`sctp_cc = "cubic"`, "sctp_cc"},
	} {
		_, err := Parse([]byte("name = \"x\"\nruns = 1\n[factors]\npage = \"pageA\"\nprotocol = \"spdy/3.1+sctp\"\ntls = \"none\"\n"+c.line+"\n[baseline]\nprotocol = \"spdy/3.1+sctp\"\n"), "")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to mention %q", c.line, err, c.want)
		}
	}
	if _, err := Parse([]byte("name = \"x\"\nruns = 1\n[factors]\npage = \"pageA\"\nprotocol = \"spdy/3.1+sctp\"\n[baseline]\nprotocol = \"spdy/3.1+sctp\"\n"), ""); err == nil || !strings.Contains(err.Error(), `"none"`) {
		t.Errorf("spdy/3.1+sctp over TLS 1.2: %v", err)
	}
}
