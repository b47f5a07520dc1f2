package studyfile

import (
	"strings"
	"testing"

	"github.com/spdylab/spdylab/probe"
)

// view is a study factor like the others: it varies, reaches the
// conditions (a first view stored empty) and a plaintext repeat view is
// refused naming the reason.
func TestViewFactor(t *testing.T) {
	head := "name = \"views\"\nruns = 1\n[factors]\npage = \"pageA\"\n"
	s, err := Parse([]byte(head+"protocol = [\"https\", \"h3\"]\ntls = \"1.3\"\nview = [\"first\", \"repeat\"]\n"), "")
	if err != nil {
		t.Fatal(err)
	}
	repeat := 0
	for _, c := range s.Conditions {
		if c.Repeat() != (c.Values["view"] == probe.ViewRepeat) {
			t.Errorf("condition %+v with view value %q", c.Condition, c.Values["view"])
		}
		if c.Repeat() {
			repeat++
		} else if c.View != "" {
			t.Errorf("a first view stored as %q", c.View)
		}
	}
	if len(s.Conditions) != 4 || repeat != 2 || !strings.Contains(strings.Join(s.Varied, " "), "view") {
		t.Errorf("%d conditions, %d repeat views, varied %v", len(s.Conditions), repeat, s.Varied)
	}
	if _, err := Parse([]byte(head+"protocol = \"spdy/3.1\"\ntls = \"none\"\nview = \"repeat\"\n"), ""); err == nil || !strings.Contains(err.Error(), "needs TLS") {
		t.Errorf("plaintext repeat view: %v", err)
	}
}
