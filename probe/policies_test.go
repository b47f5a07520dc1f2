package probe

import (
	"encoding/json"
	"strings"
	"testing"
)

// The defaults are stored empty: a condition that spells them out encodes
// (and so hashes) like one that never mentions them.
func TestPolicyDefaultsStoredEmpty(t *testing.T) {
	plain, err := Normalize(Condition{Page: "pageA", Proto: ProtoSPDY31})
	if err != nil {
		t.Fatal(err)
	}
	spelled, err := Normalize(Condition{Page: "pageA", Proto: ProtoSPDY31, Priority: PriorityChrome, Scheduler: SchedulerPriority})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(plain)
	b, _ := json.Marshal(spelled)
	if string(a) != string(b) {
		t.Fatalf("spelled-out defaults change the stored condition:\n%s\n%s", a, b)
	}
	for _, key := range []string{"priority", "scheduler", "tls_resume", "early_data"} {
		if strings.Contains(string(a), `"`+key+`"`) {
			t.Errorf("default condition stores %q: %s", key, a)
		}
	}
	if plain.PriorityPolicy() != PriorityChrome || plain.SchedulerName() != SchedulerPriority {
		t.Errorf("defaults spelled out: %q %q", plain.PriorityPolicy(), plain.SchedulerName())
	}
}

func TestPolicyAndTLSOptionRules(t *testing.T) {
	ok := []Condition{
		{Priority: PriorityNone, Proto: ProtoH2},
		{Priority: PriorityDepth, Proto: ProtoH3},
		{Priority: PriorityDepth, Proto: ProtoHTTPS},
		{Scheduler: SchedulerFIFO, Proto: ProtoSPDY2},
		{Scheduler: SchedulerRoundRobin, Proto: ProtoSPDY31SCTP, TLS: TLSNone},
		{Scheduler: SchedulerFIFO}, // a bench: the protocol comes per load
		{TLSResume: true, Proto: ProtoHTTPS},
		{TLSResume: true, Proto: ProtoH2, TLS: TLS13},
		{TLSResume: true, EarlyData: true, Proto: ProtoH3, TLS: TLS13},
		{TLSResume: true, EarlyData: true, TLS: TLS13},
	}
	for _, c := range ok {
		c.Page = "pageA"
		if _, err := Normalize(c); err != nil {
			t.Errorf("%+v: %v", c, err)
		}
	}
	bad := []struct {
		c    Condition
		want []string
	}{
		{Condition{Priority: "fair"}, []string{`"fair"`, "chrome, none or depth"}},
		{Condition{Scheduler: "lifo"}, []string{`"lifo"`, "priority, roundrobin, fifo or priority-fifo"}},
		{Condition{TLSResume: true, Proto: ProtoSPDY31, TLS: TLSNone}, []string{"tls_resume", "none"}},
		{Condition{TLSResume: true, EarlyData: true, Proto: ProtoH3}, []string{"early_data", "tls 1.3"}},
		{Condition{EarlyData: true, Proto: ProtoH3, TLS: TLS13}, []string{"early_data", "tls_resume"}},
		{Condition{TLSResume: true, EarlyData: true, Proto: ProtoH2, TLS: TLS13}, []string{"early_data", "today h3", "h2 cannot"}},
		{Condition{TLSResume: true, Proto: ProtoH2, Client: ClientChromium}, []string{"tls_resume", "chromium"}},
		{Condition{Priority: PriorityDepth, Proto: ProtoH2, Client: ClientChromium}, []string{"priority depth", "chromium"}},
	}
	for _, b := range bad {
		b.c.Page = "pageA"
		_, err := Normalize(b.c)
		if err == nil {
			t.Errorf("%+v accepted", b.c)
			continue
		}
		for _, w := range b.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%+v: error %q does not say %q", b.c, err, w)
			}
		}
	}
}

func TestEarlyDataProtocols(t *testing.T) {
	if got := EarlyDataProtocols(); len(got) != 1 || got[0] != ProtoH3 {
		t.Fatalf("EarlyDataProtocols() = %v, want [h3]", got)
	}
	if joinAnd([]string{"a", "b", "c"}) != "a, b and c" || joinAnd([]string{"a"}) != "a" {
		t.Error("joinAnd")
	}
}
