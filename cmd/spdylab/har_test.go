package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spdylab/spdylab/loader"
)

func TestHARCheckAndShow(t *testing.T) {
	h := loader.HAR{Log: loader.HARLog{
		Version: "1.2",
		Creator: loader.HARCreator{Name: "test", Version: "1"},
		Pages: []loader.HARPage{{StartedDateTime: "2026-01-01T00:00:00.000Z", ID: "p", Title: "https://s1.spdylab.test/",
			PageTimings: loader.HARPageTimings{OnContentLoad: 5, OnLoad: 9}}},
		Entries: []loader.HAREntry{{
			Pageref: "p", StartedDateTime: "2026-01-01T00:00:00.001Z", Time: 8,
			Request: loader.HARRequest{Method: "GET", URL: "https://s1.spdylab.test/a.jpg", HTTPVersion: "HTTP/1.1",
				Cookies: []loader.HARCookie{}, Headers: []loader.HARNameValue{}, QueryString: []loader.HARNameValue{}, HeadersSize: 100},
			Response: loader.HARResponse{Status: 200, StatusText: "OK", HTTPVersion: "HTTP/1.1", Cookies: []loader.HARCookie{},
				Headers: []loader.HARNameValue{}, Content: loader.HARContent{Size: 1234, MimeType: "image/jpeg"}, HeadersSize: 90, BodySize: 1234},
			Timings:    loader.HARTimings{Blocked: 1, DNS: -1, Connect: 4, SSL: 3, Send: 1, Wait: 1, Receive: 1},
			Connection: "1",
		}},
	}}
	dir := t.TempDir()
	good := filepath.Join(dir, "good.har")
	b, _ := json.Marshal(h)
	os.WriteFile(good, b, 0o644)
	h.Log.Entries[0].Time = 20
	bad := filepath.Join(dir, "bad.har")
	b, _ = json.Marshal(h)
	os.WriteFile(bad, b, 0o644)

	var out, errOut bytes.Buffer
	if code := runHAR([]string{"check", good}, &out, &errOut); code != 0 {
		t.Fatalf("check of a valid HAR: exit %d, %s", code, errOut.String())
	}
	out.Reset()
	errOut.Reset()
	if code := runHAR([]string{"check", good, bad}, &out, &errOut); code != 1 {
		t.Fatalf("check with a bad HAR: exit %d", code)
	}
	if !strings.Contains(errOut.String(), "bad.har") || !strings.Contains(errOut.String(), "log.entries[0] (https://s1.spdylab.test/a.jpg).time is 20") {
		t.Errorf("check output does not name the file and entry:\n%s", errOut.String())
	}
	out.Reset()
	if code := runHAR([]string{"show", good}, &out, &errOut); code != 0 {
		t.Fatalf("show: exit %d: %s", code, errOut.String())
	}
	if !strings.Contains(out.String(), "https://s1.spdylab.test/a.jpg") || !strings.Contains(out.String(), "1234") {
		t.Errorf("show output:\n%s", out.String())
	}
	if code := runHAR([]string{"frobnicate", good}, &out, &errOut); code != 2 {
		t.Errorf("unknown subcommand: exit %d", code)
	}
}
