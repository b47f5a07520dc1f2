package probe

import (
	"encoding/json"
	"strings"
	"testing"
)

// Speed Index needs a real browser's frames: the loader is refused with
// the reason; Chromium takes it, and the setting is stored only when on.
func TestSpeedIndexNeedsABrowser(t *testing.T) {
	_, err := Normalize(Condition{Page: "pageA", Proto: ProtoH2, SpeedIndex: true})
	if err == nil || !strings.Contains(err.Error(), "cannot give a Speed Index") {
		t.Errorf("speed_index under the loader: %v, want a refusal with the reason", err)
	}
	if _, err := Normalize(Condition{Page: "pageA", Client: ClientChromium, Proto: ProtoH2, SpeedIndex: true}); err != nil {
		t.Errorf("speed_index under chromium: %v", err)
	}
	off, _ := json.Marshal(Condition{Page: "pageA"})
	if strings.Contains(string(off), "speed_index") {
		t.Errorf("an unset speed_index is stored (%s): condition hashes would change", off)
	}
}

// A paint record keeps absent metrics absent: nil, not 0, in JSON too.
func TestPaintAbsentIsNotZero(t *testing.T) {
	v := 0.0
	p := Paint{LCPms: &v}
	b, _ := json.Marshal(p)
	var back Paint
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.FCPms != nil || back.SpeedIndexMs != nil || back.LCPms == nil || (*Paint)(nil).Metric("fcp_ms") != nil {
		t.Errorf("round trip %s gave %+v", b, back)
	}
}
