package loader

import (
	"container/heap"
	"encoding/json"
	"io"
	"net/url"
	"strings"
	"testing"
	"testing/iotest"
)

// trickle hands out one byte per Read and remembers how many it gave.
type trickle struct {
	data []byte
	pos  int
}

func (t *trickle) Read(p []byte) (int, error) {
	if t.pos >= len(t.data) {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	p[0] = t.data[t.pos]
	t.pos++
	return 1, nil
}

func TestScanHTMLReportsReferencesAsBytesArrive(t *testing.T) {
	doc := `<!DOCTYPE html><html><head><base href="https://s2.spdylab.test/sub/">
<link rel="stylesheet" href="/a.css"><link rel="alternate" href="/feed.xml">
<script src="b.js" async></script></head><body><!-- <img src="/commented.jpg"> -->
<a href="/page2.html">link</a><img src="https://s1.spdylab.test/c.jpg#frag" alt="">
<embed src="/d.swf"><object data="/e.bin"></object><iframe src="/f.html"></iframe>
<input type="image" src="/g.png"><img src="   "><img src="data:image/gif;base64,AAAA">` + strings.Repeat("x", 500) + `</body></html>`
	tr := &trickle{data: []byte(doc)}
	var got []reference
	var readAt []int
	base, _ := url.Parse("https://s1.spdylab.test/index.html")
	n, err := scanHTML(tr, base, func(r reference) {
		got = append(got, r)
		readAt = append(readAt, tr.pos)
	})
	if err != nil || n != int64(len(doc)) {
		t.Fatalf("read %d of %d bytes, err %v", n, len(doc), err)
	}
	want := []struct{ url, typ string }{
		{"https://s2.spdylab.test/a.css", "css"},
		{"https://s2.spdylab.test/sub/b.js", "js"},
		{"https://s1.spdylab.test/c.jpg", "image"},
		{"https://s2.spdylab.test/d.swf", "flash"},
		{"https://s2.spdylab.test/e.bin", "flash"},
		{"https://s2.spdylab.test/f.html", "html"},
		{"https://s2.spdylab.test/g.png", "image"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d references %v, want %d", len(got), got, len(want))
	}
	for i, w := range want {
		if got[i].URL.String() != w.url || got[i].Type != w.typ {
			t.Errorf("reference %d: %s (%s), want %s (%s)", i, got[i].URL, got[i].Type, w.url, w.typ)
		}
		// Streaming: the reference was reported long before the document
		// was read completely, and not before its own tag had arrived.
		tagEnd := strings.Index(doc[got[i].Offset:], ">") + got[i].Offset + 1
		if readAt[i] < tagEnd || readAt[i] > len(doc)-400 {
			t.Errorf("reference %d reported after %d bytes; its tag ends at %d of %d", i, readAt[i], tagEnd, len(doc))
		}
	}
	if !got[1].Async || got[0].Async {
		t.Error("async script not recognised")
	}
}

func TestScanHTMLReadError(t *testing.T) {
	base, _ := url.Parse("https://h/")
	r := io.MultiReader(strings.NewReader(`<img src="/a.jpg">`), iotest.ErrReader(io.ErrUnexpectedEOF))
	var refs int
	_, err := scanHTML(r, base, func(reference) { refs++ })
	if err != io.ErrUnexpectedEOF || refs != 1 {
		t.Fatalf("refs %d, err %v; want the reference and the read error", refs, err)
	}
}

func TestScanCSS(t *testing.T) {
	css := `/* url(/commented.png) */ @import "theme.css"; @import url('print.css');
.a{background:url(/img/a.png)} .b{background-image:URL( "https://s2.spdylab.test/b.jpg" )}
.c{background:url(data:image/png;base64,AAA)} .d{src:url(font.woff#x)}`
	base, _ := url.Parse("https://s1.spdylab.test/css/main.css")
	var got []string
	if _, err := scanCSS(iotest.OneByteReader(strings.NewReader(css)), base, func(r reference) {
		got = append(got, r.URL.String()+" "+r.Type)
	}); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"https://s1.spdylab.test/css/theme.css css",
		"https://s1.spdylab.test/css/print.css css",
		"https://s1.spdylab.test/img/a.png image",
		"https://s2.spdylab.test/b.jpg image",
		"https://s1.spdylab.test/css/font.woff other",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestWaitQueueOrder(t *testing.T) {
	var q waitQueue
	add := func(pri uint8, seq int) {
		heap.Push(&q, &waiter{e: &entry{priority: pri, seq: seq}})
	}
	add(4, 1)
	add(4, 2)
	add(1, 5)
	add(0, 9)
	add(4, 0)
	add(2, 3)
	var order []int
	for q.Len() > 0 {
		order = append(order, heap.Pop(&q).(*waiter).e.seq)
	}
	if got, _ := json.Marshal(order); string(got) != "[9,5,3,0,1,2]" {
		t.Errorf("served in order %s, want [9,5,3,0,1,2] (priority, then discovery)", got)
	}
}

func TestValidateHARNamesProblems(t *testing.T) {
	good := `{"log":{"version":"1.2","creator":{"name":"x","version":"1"},"pages":[{"startedDateTime":"2026-01-01T00:00:00.000Z","id":"p","title":"t","pageTimings":{"onContentLoad":1,"onLoad":2}}],
"entries":[{"pageref":"p","startedDateTime":"2026-01-01T00:00:00.000Z","time":6,
"request":{"method":"GET","url":"https://a/x","httpVersion":"HTTP/1.1","cookies":[],"headers":[],"queryString":[],"headersSize":-1,"bodySize":0},
"response":{"status":200,"statusText":"OK","httpVersion":"HTTP/1.1","cookies":[],"headers":[{"name":"a","value":"b"}],"content":{"size":1,"mimeType":"x"},"redirectURL":"","headersSize":-1,"bodySize":1},
"cache":{},"timings":{"blocked":-1,"dns":-1,"connect":3,"ssl":2,"send":1,"wait":1,"receive":1}}]}}`
	if err := ValidateHAR([]byte(good)); err != nil {
		t.Fatalf("valid HAR rejected: %v", err)
	}
	cases := map[string]struct{ from, to, want string }{
		"time sum":   {`"time":6`, `"time":9`, "log.entries[0] (https://a/x).time is 9 but its timings add up to 6"},
		"ssl":        {`"ssl":2`, `"ssl":5`, "ssl (5) exceeds connect (3)"},
		"negative":   {`"send":1`, `"send":-1`, "timings.send is -1, want >= 0"},
		"date":       {`"startedDateTime":"2026-01-01T00:00:00.000Z","time"`, `"startedDateTime":"yesterday","time"`, `startedDateTime is "yesterday"`},
		"missing":    {`"cache":{},`, ``, "(https://a/x).cache is missing"},
		"version":    {`"version":"1.2"`, `"version":"2"`, `log.version is "2"`},
		"pageref":    {`"pageref":"p"`, `"pageref":"q"`, `pageref "q" names no page`},
		"header":     {`{"name":"a","value":"b"}`, `{"name":"a"}`, "response.headers[0].value is missing"},
		"not json":   {`{"log"`, `{"lg"`, "log is missing"},
		"status":     {`"status":200`, `"status":"200"`, "response.status is not a number"},
		"onload":     {`"onLoad":2`, `"onLoad":-5`, "pageTimings.onLoad is -5"},
		"priority":   {`"pageref":"p",`, `"pageref":"p","_priority":true,`, "(https://a/x)._priority is not a number or a string"},
		"connection": {`"pageref":"p",`, `"pageref":"p","connection":123,`, "(https://a/x).connection is not a string"},
		"server ip":  {`"pageref":"p",`, `"pageref":"p","serverIPAddress":5,`, "(https://a/x).serverIPAddress is not a string"},
		"pushed":     {`"pageref":"p",`, `"pageref":"p","_pushed":1,`, "(https://a/x)._pushed is not a boolean"},
		"retries":    {`"pageref":"p",`, `"pageref":"p","_retries":1.5,`, "(https://a/x)._retries is not an integer"},
	}
	for name, c := range cases {
		bad := strings.Replace(good, c.from, c.to, 1)
		if bad == good {
			t.Fatalf("%s: replacement did not apply", name)
		}
		err := ValidateHAR([]byte(bad))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", name, err, c.want)
		}
	}
	if err := ValidateHAR([]byte("nope")); err == nil || !strings.Contains(err.Error(), "not JSON") {
		t.Errorf("non-JSON: %v", err)
	}
}

// `_priority` is a number in spdylab's HARs and a name in Chrome DevTools'
// (issue 14, item 7): both read, and both are written back as they came.
func TestHARPriorityReadsNumbersAndNames(t *testing.T) {
	cases := []struct{ in, shown string }{
		{`3`, "3"}, {`0`, "0"}, {`"VeryHigh"`, "VeryHigh"}, {`"Low"`, "Low"}, {`2.5`, "2.5"},
	}
	for _, c := range cases {
		var e HAREntry
		if err := json.Unmarshal([]byte(`{"_priority":`+c.in+`}`), &e); err != nil {
			t.Errorf("_priority %s: %v", c.in, err)
			continue
		}
		if e.Priority == nil || e.Priority.String() != c.shown {
			t.Errorf("_priority %s read as %v, want %s", c.in, e.Priority, c.shown)
			continue
		}
		back, _ := json.Marshal(e.Priority)
		if c.in != "2.5" && string(back) != c.in {
			t.Errorf("_priority %s written back as %s", c.in, back)
		}
	}
	var e HAREntry
	if err := json.Unmarshal([]byte(`{"_priority":null}`), &e); err != nil || e.Priority != nil {
		t.Errorf("_priority null: %v, %v; want no priority", err, e.Priority)
	}
	if err := json.Unmarshal([]byte(`{"_priority":{"x":1}}`), &e); err == nil {
		t.Error("_priority as an object was accepted")
	}
	if b, _ := json.Marshal(HAREntry{Priority: SPDYPriority(2)}); !strings.Contains(string(b), `"_priority":2`) {
		t.Errorf("spdylab's priority is not written as a number: %s", b)
	}
}
