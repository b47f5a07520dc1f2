package loader

import (
	"bytes"
	"net/url"
	"testing"
)

// FuzzScanners feeds arbitrary documents to the HTML and CSS scanners: they
// read every byte, report references at offsets inside the document with
// absolute http(s) URLs, and never panic.
func FuzzScanners(f *testing.F) {
	f.Add([]byte(`<html><link rel=stylesheet href="/a.css"><script src='b.js'></script><img src=//x/c.png></html>`))
	f.Add([]byte(`@import "x.css"; p{background:url( 'i.png' )} /* url(no.png) */ @import url(y.css);`))
	f.Add([]byte(`<style>p{background:url(z.gif)}</style><iframe src="data:text/html,hi"></iframe>`))
	base, _ := url.Parse("https://s1.spdylab.test/dir/page.html")
	f.Fuzz(func(t *testing.T, doc []byte) {
		for name, scan := range map[string]func(*bytes.Reader, func(reference)) (int64, error){
			"html": func(r *bytes.Reader, found func(reference)) (int64, error) { return scanHTML(r, base, found) },
			"css":  func(r *bytes.Reader, found func(reference)) (int64, error) { return scanCSS(r, base, found) },
			// Looking for the first text finds the same references.
			"html+text": func(r *bytes.Reader, found func(reference)) (int64, error) {
				var plain, withText []reference
				scanHTML(bytes.NewReader(doc), base, func(ref reference) { plain = append(plain, ref) })
				n, err := scanHTMLText(r, base, func(ref reference) { withText = append(withText, ref); found(ref) }, func(offset int) {
					if offset < 0 || offset > len(doc) {
						t.Fatalf("first text at offset %d of a %d-byte document", offset, len(doc))
					}
				})
				if len(plain) != len(withText) {
					t.Fatalf("%d references while looking for text, %d without", len(withText), len(plain))
				}
				return n, err
			},
		} {
			n, err := scan(bytes.NewReader(doc), func(ref reference) {
				if ref.URL == nil || (ref.URL.Scheme != "https" && ref.URL.Scheme != "http") {
					t.Fatalf("%s: reference %+v is not an absolute http(s) URL", name, ref)
				}
				if ref.Offset < 0 || ref.Offset > len(doc) {
					t.Fatalf("%s: reference at offset %d of a %d-byte document", name, ref.Offset, len(doc))
				}
			})
			if err != nil || n != int64(len(doc)) {
				t.Fatalf("%s: read %d of %d bytes, %v", name, n, len(doc), err)
			}
		}
	})
}
