package probe

import (
	"strings"
	"testing"
	"time"
)

func TestNormalizeSCTPKnobs(t *testing.T) {
	spelled := Condition{Page: "pageA", TLS: TLSNone, SCTP: SCTP{Streams: DefaultSCTPStreams, RTOMin: DefaultSCTPRTOMin, RTOInitial: DefaultSCTPRTOInitial, Buffer: DefaultSCTPBuffer}}
	n, err := Normalize(spelled)
	if err != nil {
		t.Fatal(err)
	}
	if n.SCTP != (SCTP{}) {
		t.Errorf("defaults spelled out were kept: %+v", n.SCTP)
	}
	odd := Condition{Page: "pageA", SCTP: SCTP{Streams: 4, RTOMin: 300 * time.Millisecond, NoControlStream: true}}
	if n, err = Normalize(odd); err != nil || n.SCTP != odd.SCTP {
		t.Errorf("non-default knobs: %+v, %v", n.SCTP, err)
	}
	if d := n.SCTP.WithDefaults(); d.Streams != 4 || d.RTOMin != 300*time.Millisecond || d.RTOInitial != DefaultSCTPRTOInitial || d.Buffer != DefaultSCTPBuffer || !d.NoControlStream {
		t.Errorf("WithDefaults %+v", d)
	}
	for _, bad := range []SCTP{{Streams: 1}, {Streams: 70000}, {RTOMin: time.Microsecond}, {RTOInitial: time.Hour}, {Buffer: 100}, {Buffer: -1}} {
		if _, err := Normalize(Condition{Page: "pageA", SCTP: bad}); err == nil || !strings.Contains(err.Error(), "sctp") {
			t.Errorf("%+v: %v", bad, err)
		}
	}
	if _, err := Normalize(Condition{Page: "pageA", Proto: ProtoSPDY31SCTP}); err == nil || !strings.Contains(err.Error(), `"none"`) {
		t.Errorf("SCTP over TLS 1.2: %v", err)
	}
}
