package report

import (
	"encoding/json"
	"math"
	"testing"
	"time"
)

// synthHAR builds a HAR whose entries are (queued, blocked, wait) in ms
// on one connection; the first is the document, answered after wait.
func synthHAR(t *testing.T, entries [][3]float64, conn func(i int) string) []byte {
	t.Helper()
	t0 := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	var es []map[string]any
	for i, e := range entries {
		es = append(es, map[string]any{
			"startedDateTime": t0.Add(time.Duration(e[0] * float64(time.Millisecond))).Format(time.RFC3339Nano),
			"time":            e[1] + e[2] + 1,
			"request":         map[string]any{"url": "https://s1.test/" + string(rune('a'+i))},
			"timings":         map[string]any{"blocked": e[1], "dns": -1, "connect": -1, "send": 0, "wait": e[2], "receive": 1},
			"connection":      conn(i),
		})
	}
	es = append(es, map[string]any{"startedDateTime": t0.Add(time.Second).Format(time.RFC3339Nano), "time": 1,
		"request": map[string]any{"url": "https://s1.test/favicon.ico"}, "timings": map[string]any{}, "connection": "9"})
	b, err := json.Marshal(map[string]any{"log": map[string]any{"entries": es}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The commit delay is the first subresource's queue time after the
// document's first byte; dispatch gaps are the send intervals of requests
// that waited for each other, not of one found after the other left.
func TestRendererMeasures(t *testing.T) {
	one := func(int) string { return "1" }
	har := synthHAR(t, [][3]float64{
		{0, 0, 100},  // document: first byte at 100
		{130, 0, 20}, // queued 30 ms after it, sent at once
		{130, 2, 20}, // queued with it, sent 2 ms later
		{130, 5, 20}, // and 3 ms after that
		{200, 0, 20}, // found after the others left: not a dispatch pair
	}, one)
	h, err := readHARTimes(har)
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := h.commitMs(); !ok || math.Abs(c-30) > 1e-6 {
		t.Errorf("commit %v (%v), want 30 ms", c, ok)
	}
	gaps := h.dispatchGaps()
	if len(gaps) != 2 || math.Abs(gaps[0]-2) > 1e-6 || math.Abs(gaps[1]-3) > 1e-6 {
		t.Errorf("dispatch gaps %v, want [2 3]", gaps)
	}
	if h.conns != 1 {
		t.Errorf("%d connections counted, want 1 (the favicon is the browser's own)", h.conns)
	}
	if _, err := readHARTimes([]byte(`{"log":{"entries":[{"startedDateTime":"yesterday"}]}}`)); err == nil {
		t.Error("a bad startedDateTime was accepted")
	}
	if _, ok := (harTimes{queued: []float64{0}}).commitMs(); ok {
		t.Error("a page without subresources has a commit delay")
	}
}
