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
