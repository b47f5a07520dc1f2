package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spdylab/spdylab/har"
)

func TestHARCheckAndShow(t *testing.T) {
	h := har.Document{Log: har.Log{
		Version: "1.2",
		Creator: har.Creator{Name: "test", Version: "1"},
		Pages: []har.Page{{StartedDateTime: "2026-01-01T00:00:00.000Z", ID: "p", Title: "https://s1.spdylab.test/",
			PageTimings: har.PageTimings{OnContentLoad: 5, OnLoad: 9}}},
		Entries: []har.Entry{{
			Pageref: "p", StartedDateTime: "2026-01-01T00:00:00.001Z", Time: 8,
			Request: har.Request{Method: "GET", URL: "https://s1.spdylab.test/a.jpg", HTTPVersion: "HTTP/1.1",
				Cookies: []har.Cookie{}, Headers: []har.NameValue{}, QueryString: []har.NameValue{}, HeadersSize: 100},
			Response: har.Response{Status: 200, StatusText: "OK", HTTPVersion: "HTTP/1.1", Cookies: []har.Cookie{},
				Headers: []har.NameValue{}, Content: har.Content{Size: 1234, MimeType: "image/jpeg"}, HeadersSize: 90, BodySize: 1234},
			Timings:    har.Timings{Blocked: 1, DNS: -1, Connect: 4, SSL: 3, Send: 1, Wait: 1, Receive: 1},
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

// devToolsHAR is shaped like Chrome DevTools' "Save all as HAR": `_priority`
// is Chromium's request priority by name. The third entry carries it as a
// number, as WebPageTest-style tools (and spdylab) write it.
const devToolsHAR = `{"log": {"version": "1.2", "creator": {"name": "WebInspector", "version": "537.36"},
 "pages": [{"startedDateTime": "2026-01-01T00:00:00.000Z", "id": "page_1", "title": "https://example.test/",
   "pageTimings": {"onContentLoad": 40.5, "onLoad": 90.25}}],
 "entries": [
  {"_initiator": {"type": "other"}, "_priority": "VeryHigh", "_resourceType": "document",
   "cache": {}, "connection": "1201", "pageref": "page_1",
   "request": {"method": "GET", "url": "https://example.test/", "httpVersion": "http/2.0", "headers": [],
     "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0},
   "response": {"status": 200, "statusText": "", "httpVersion": "http/2.0", "headers": [], "cookies": [],
     "content": {"size": 5120, "mimeType": "text/html", "compression": 0}, "redirectURL": "",
     "headersSize": -1, "bodySize": -1, "_transferSize": 5200, "_error": null},
   "serverIPAddress": "192.0.2.1", "startedDateTime": "2026-01-01T00:00:00.001Z", "time": 30,
   "timings": {"blocked": 1, "dns": 2, "ssl": 5, "connect": 10, "send": 1, "wait": 12, "receive": 4,
     "_blocked_queueing": 0.5}},
  {"_initiator": {"type": "parser", "url": "https://example.test/"}, "_priority": "Low", "_resourceType": "image",
   "cache": {}, "connection": "1201", "pageref": "page_1",
   "request": {"method": "GET", "url": "https://example.test/cat.jpg", "httpVersion": "http/2.0", "headers": [],
     "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0},
   "response": {"status": 200, "statusText": "", "httpVersion": "http/2.0", "headers": [], "cookies": [],
     "content": {"size": 20480, "mimeType": "image/jpeg"}, "redirectURL": "",
     "headersSize": -1, "bodySize": -1, "_transferSize": 20500, "_error": null},
   "serverIPAddress": "192.0.2.1", "startedDateTime": "2026-01-01T00:00:00.035Z", "time": 20,
   "timings": {"blocked": 2, "dns": -1, "ssl": -1, "connect": -1, "send": 1, "wait": 10, "receive": 7}},
  {"_priority": 3, "cache": {}, "connection": "1201", "pageref": "page_1",
   "request": {"method": "GET", "url": "https://example.test/app.js", "httpVersion": "http/2.0", "headers": [],
     "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0},
   "response": {"status": 200, "statusText": "", "httpVersion": "http/2.0", "headers": [], "cookies": [],
     "content": {"size": 999, "mimeType": "text/javascript"}, "redirectURL": "",
     "headersSize": -1, "bodySize": -1},
   "startedDateTime": "2026-01-01T00:00:00.036Z", "time": 9,
   "timings": {"blocked": 1, "dns": -1, "ssl": -1, "connect": -1, "send": 1, "wait": 5, "receive": 2}}
 ]}}`

// What `har check` calls valid, `har show` shows,
// `_priority` included whether it is a name or a number.
func TestHARShowReadsDevToolsPriorities(t *testing.T) {
	file := filepath.Join(t.TempDir(), "devtools.har")
	if err := os.WriteFile(file, []byte(devToolsHAR), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := runHAR([]string{"check", file}, &out, &errOut); code != 0 {
		t.Fatalf("check: exit %d: %s", code, errOut.String())
	}
	out.Reset()
	if code := runHAR([]string{"show", file}, &out, &errOut); code != 0 {
		t.Fatalf("show: exit %d: %s", code, errOut.String())
	}
	if !strings.Contains(strings.SplitN(out.String(), "\n", 3)[1], "prio") {
		t.Errorf("show has no priority column:\n%s", out.String())
	}
	want := map[string]string{"https://example.test/": "VeryHigh", "https://example.test/cat.jpg": "Low", "https://example.test/app.js": "3"}
	for _, line := range strings.Split(out.String(), "\n") {
		fields := strings.Fields(line)
		if len(fields) < 2 {
			continue
		}
		url := fields[len(fields)-1]
		prio, ok := want[url]
		if !ok {
			continue
		}
		delete(want, url)
		if !slices.Contains(fields, prio) {
			t.Errorf("row of %s does not show priority %s: %q", url, prio, line)
		}
	}
	if len(want) > 0 {
		t.Errorf("show lacks rows for %v:\n%s", want, out.String())
	}
}
