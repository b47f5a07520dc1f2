package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// longHost is a host name longer than page show's old 20-column table.
const longHost = "static-assets.a-rather-long-cdn-host-name.example"

// oddRecording is a recording shaped as real ones in ../shared/pages are
// (aliexpress, bbc.co.uk, cnet): a request method null, a status -2 (an
// aborted request), a bodySize below -1, and beside them a status and a
// connection written as a string and a number. HAR 1.2 refuses it;
// `page import` takes it.
func oddRecording() string {
	entry := func(url, start, mime, method, status, conn string, size int, bodySize string) string {
		return fmt.Sprintf(`{"pageref": "p", "startedDateTime": %q, "time": 12,
  "request": {"method": %s, "url": %q, "httpVersion": "h2", "headers": [], "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0},
  "response": {"status": %s, "statusText": "", "httpVersion": "h2", "headers": [], "cookies": [], "redirectURL": "",
    "content": {"size": %d, "mimeType": %q}, "headersSize": -1, "bodySize": %s},
  "cache": {}, "connection": %s, "_priority": "High",
  "timings": {"blocked": 1, "dns": -1, "connect": -1, "ssl": -1, "send": 1, "wait": 5, "receive": 5}}`,
			start, method, url, status, size, mime, bodySize, conn)
	}
	return `{"log": {"version": "1.2", "creator": {"name": "recorder", "version": "1"},
 "pages": [{"id": "p", "title": "https://www.example.test/", "startedDateTime": "2026-01-01T00:00:00.000Z",
   "pageTimings": {"onContentLoad": 40, "onLoad": "90"}}],
 "entries": [` + strings.Join([]string{
		entry("https://www.example.test/", "2026-01-01T00:00:00.000Z", "text/html", `"GET"`, `"200"`, `"7"`, 5000, "5000"),
		entry("https://"+longHost+"/app.js", "2026-01-01T00:00:00.020Z", "text/javascript", "null", "200", "8", 3000, "-338"),
		entry("https://"+longHost+"/gone.jpg", "2026-01-01T00:00:00.030Z", "image/jpeg", `"GET"`, "-2", "9", 0, "0"),
		entry("https://img.example.test/a.jpg", "2026-01-01T00:00:00.040Z", "image/jpeg", `"GET"`, "200", "9", 2000, "2000"),
	}, ",\n") + `]}}`
}

// har show reads what page import reads: a recording HAR 1.2 refuses over
// odd fields is shown (every entry, "-" for what is not a number), with
// a note that it is not valid HAR 1.2; har check still refuses it.
func TestHARShowIsAsLenientAsPageImport(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "odd.har")
	if err := os.WriteFile(file, []byte(oddRecording()), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := runPage([]string{"import", file, "-o", filepath.Join(dir, "site")}, &out, &errb); code != 0 {
		t.Fatalf("page import: exit %d: %s", code, errb.String())
	}
	out.Reset()
	errb.Reset()
	if code := runHAR([]string{"show", file}, &out, &errb); code != 0 {
		t.Fatalf("har show: exit %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2+4 || !strings.Contains(lines[0], "onLoad 90.0 ms") {
		t.Fatalf("har show printed %d lines, want the page, the header and 4 entries:\n%s", len(lines), out.String())
	}
	for _, want := range []string{"https://www.example.test/", longHost + "/app.js", longHost + "/gone.jpg", "img.example.test/a.jpg", " -2 ", " High "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("har show lacks %q:\n%s", want, out.String())
		}
	}
	if !strings.Contains(errb.String(), "not valid HAR 1.2") || !strings.Contains(errb.String(), "spdylab har check "+file) {
		t.Errorf("har show does not say the file is not HAR 1.2: %q", errb.String())
	}
	if code := runHAR([]string{"check", file}, &out, &errb); code != 1 {
		t.Errorf("har check of the odd recording: exit %d, want 1", code)
	}
}

// Every command with subcommands names an unknown one and lists its own.
func TestUnknownSubcommandsAreNamed(t *testing.T) {
	for _, tc := range []struct {
		run  func([]string, *bytes.Buffer, *bytes.Buffer) int
		name string
		want string
	}{
		{func(a []string, o, e *bytes.Buffer) int { return runLink(a, o, e) }, "link", `spdylab link: unknown subcommand "bogus" (want check)`},
		{func(a []string, o, e *bytes.Buffer) int { return runHAR(a, o, e) }, "har", `spdylab har: unknown subcommand "bogus" (want check or show)`},
		{func(a []string, o, e *bytes.Buffer) int { return runPage(a, o, e) }, "page", `spdylab page: unknown subcommand "bogus" (want list, gen, show or import)`},
	} {
		var out, errb bytes.Buffer
		code := tc.run([]string{"bogus"}, &out, &errb)
		if code != 2 || errb.String() != tc.want+"\nrun 'spdylab "+tc.name+" -h' for help\n" {
			t.Errorf("%s bogus: exit %d, stderr\n%s", tc.name, code, errb.String())
		}
	}
}

// page show's host table lines up whatever the host names' length: every
// row's count ends where the header's does.
func TestPageShowAlignsLongHostNames(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "odd.har")
	os.WriteFile(file, []byte(oddRecording()), 0o644)
	site := filepath.Join(dir, "site")
	var out, errb bytes.Buffer
	if code := runPage([]string{"import", file, "-o", site}, &out, &errb); code != 0 {
		t.Fatalf("page import: exit %d: %s", code, errb.String())
	}
	out.Reset()
	if code := runPage([]string{"show", site}, &out, &errb); code != 0 {
		t.Fatalf("page show: exit %d: %s", code, errb.String())
	}
	_, table, ok := strings.Cut(out.String(), "\nhost ")
	if !ok {
		t.Fatalf("no host table:\n%s", out.String())
	}
	lines := strings.Split("host "+table, "\n")
	end := strings.Index(lines[0], "count") + len("count")
	rows := 0
	for _, l := range lines[1:] {
		f := strings.Fields(l)
		if len(f) != 3 || !strings.Contains(f[0], ".") {
			break
		}
		rows++
		if i := strings.Index(l, " "+f[1]+" ") + 1 + len(f[1]); i != end {
			t.Errorf("row %q: count ends at column %d, the header's at %d", l, i, end)
		}
	}
	if rows < 2 || !strings.Contains(out.String(), longHost) {
		t.Errorf("host table has %d rows (want the long host among them):\n%s", rows, out.String())
	}
}
