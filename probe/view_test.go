package probe

import (
	"encoding/json"
	"strings"
	"testing"
)

// view first is stored empty; repeat needs TLS; with a repeat view, early
// data needs no tls_resume (the first view left the ticket); Chromium may
// have a repeat view (its own resumption).
func TestViewRules(t *testing.T) {
	first, err := NewCondition(map[string]string{"page": "pageA", "protocol": ProtoH2, "view": ViewFirst})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(first); strings.Contains(string(b), `"view"`) || first.ViewName() != ViewFirst {
		t.Errorf("view first stored as %s", b)
	}
	ok := []Condition{
		{View: ViewRepeat, Proto: ProtoHTTPS},
		{View: ViewRepeat, Proto: ProtoH2, TLS: TLS13},
		{View: ViewRepeat, EarlyData: true, Proto: ProtoH3, TLS: TLS13},
		{View: ViewRepeat, Proto: ProtoH3, TLS: TLS13, Client: ClientChromium},
	}
	for _, c := range ok {
		c.Page = "pageA"
		n, err := Normalize(c)
		if err != nil {
			t.Errorf("%+v: %v", c, err)
		} else if !n.Repeat() {
			t.Errorf("%+v normalised to a first view", c)
		}
	}
	bad := []struct {
		c    Condition
		want []string
	}{
		{Condition{View: "second"}, []string{`"second"`, "first or repeat"}},
		{Condition{View: ViewRepeat, Proto: ProtoSPDY31, TLS: TLSNone}, []string{"repeat", "needs TLS"}},
		{Condition{View: ViewRepeat, EarlyData: true, Proto: ProtoH3}, []string{"early_data", "tls 1.3"}},
		{Condition{EarlyData: true, Proto: ProtoH3, TLS: TLS13}, []string{"tls_resume or view repeat"}},
	}
	for _, b := range bad {
		b.c.Page = "pageA"
		_, err := Normalize(b.c)
		for _, w := range b.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%+v: error %v, want it to mention %q", b.c, err, w)
			}
		}
	}
}
