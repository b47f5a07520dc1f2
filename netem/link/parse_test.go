package link

import (
	"strings"
	"testing"
)

func TestParseGE(t *testing.T) {
	ge, err := ParseGE("p=1%,r=30%")
	if err != nil {
		t.Fatal(err)
	}
	if *ge != (GilbertElliott{P: 0.01, R: 0.3, LossGood: 0, LossBad: 1}) {
		t.Errorf("defaults: got %+v", *ge)
	}
	ge, err = ParseGE(" p=0.02 , r=0.25, h=0.5, k=0.99 ")
	if err != nil {
		t.Fatal(err)
	}
	if !near(ge.P, 0.02, 1e-12) || !near(ge.R, 0.25, 1e-12) || !near(ge.LossBad, 0.5, 1e-12) || !near(ge.LossGood, 0.01, 1e-12) {
		t.Errorf("got %+v", *ge)
	}
	back, err := ParseGE(ge.String())
	if err != nil || !near(back.P, ge.P, 1e-12) || !near(back.LossGood, ge.LossGood, 1e-12) {
		t.Errorf("String round trip: %v, %v", back, err)
	}
	bad := map[string]string{
		"":                "empty",
		"p=0.1":           "r is required",
		"r=0.1":           "p is required",
		"p=0.1,r=0.2,x=1": "unknown parameter",
		"p=0.1,p=0.2,r=1": "twice",
		"p=0.1,r":         "key=value",
		"p=2,r=0.1":       "parameter p",
		"p=0.1,r=0":       "bad state forever",
	}
	for in, frag := range bad {
		_, err := ParseGE(in)
		if err == nil || !strings.Contains(err.Error(), frag) {
			t.Errorf("ParseGE(%q) error = %v; want one mentioning %q", in, err, frag)
		}
	}
}

func near(a, b, eps float64) bool { return a-b < eps && b-a < eps }
