package loader

import (
	"errors"
	"io"
	"net/url"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// reference is a subresource a document asks for, found by the streaming
// scan: the browser's preload scanner issues the request as soon as the tag's
// bytes have arrived, without waiting for the rest of the document.
type reference struct {
	URL    *url.URL
	Raw    string // the attribute value as written
	Type   string // what the tag implies: css, js, image, flash, html, other
	Offset int    // byte offset of the tag in the document
	Async  bool   // a script marked async or defer: it does not block DOMContentLoaded
}

// scanHTML tokenizes the document read from r and calls found for each
// subresource reference in document order, while r is still being read. It
// returns the number of document bytes read; a read error of r other than
// io.EOF is returned as is. Malformed markup is not an error: like a
// browser, the scan recovers and goes on.
func scanHTML(r io.Reader, base *url.URL, found func(reference)) (int64, error) {
	return scanHTMLText(r, base, found, nil)
}

// scanHTMLText is scanHTML that also calls text, once, at the document's
// first visible text (outside head, title, script, style and templates):
// what a browser can paint first (the loader's FCP estimate, paint.go).
func scanHTMLText(r io.Reader, base *url.URL, found func(reference), text func(offset int)) (int64, error) {
	cr := &countingReader{r: r}
	z := html.NewTokenizer(cr)
	offset := 0
	var vis visibleText
	for {
		tt := z.Next()
		raw := len(z.Raw())
		// TagName consumes the token's name: read it once, here.
		var name []byte
		hasAttr := false
		if tt == html.StartTagToken || tt == html.SelfClosingTagToken || tt == html.EndTagToken {
			name, hasAttr = z.TagName()
		}
		if text != nil && vis.visible(tt, name, z) {
			text(offset)
			text = nil
		}
		switch tt {
		case html.ErrorToken:
			if err := z.Err(); !errors.Is(err, io.EOF) {
				return cr.n, err
			}
			return cr.n, nil
		case html.StartTagToken, html.SelfClosingTagToken:
			var attrs map[string]string
			for hasAttr {
				var k, v []byte
				k, v, hasAttr = z.TagAttr()
				if attrs == nil {
					attrs = map[string]string{}
				}
				attrs[string(k)] = string(v)
			}
			a := atom.Lookup(name)
			if a == atom.Base {
				// <base href> changes how the rest of the document's
				// relative references resolve.
				if u, err := base.Parse(strings.TrimSpace(attrs["href"])); err == nil && attrs["href"] != "" {
					base = u
				}
				break
			}
			if value, typ, ok := subresource(a, attrs); ok {
				value = strings.TrimSpace(value)
				if u, err := base.Parse(value); err == nil && (u.Scheme == "https" || u.Scheme == "http") {
					u.Fragment = ""
					_, async := attrs["async"]
					_, deferred := attrs["defer"]
					found(reference{URL: u, Raw: value, Type: typ, Offset: offset, Async: a == atom.Script && (async || deferred)})
				}
			}
		}
		offset += raw
	}
}

// visibleText follows a token stream far enough to tell the first text a
// browser would render: after the head ended (</head> or <body>), outside
// elements whose text is not shown.
type visibleText struct {
	inBody bool
	hidden int // depth inside title, script, style, noscript, template
}

func (v *visibleText) visible(tt html.TokenType, name []byte, z *html.Tokenizer) bool {
	switch tt {
	case html.StartTagToken, html.EndTagToken:
		switch a := atom.Lookup(name); a {
		case atom.Body:
			v.inBody = true
		case atom.Head:
			if tt == html.EndTagToken {
				v.inBody = true
			}
		case atom.Title, atom.Script, atom.Style, atom.Noscript, atom.Template:
			if tt == html.StartTagToken {
				v.hidden++
			} else if v.hidden > 0 {
				v.hidden--
			}
		}
	case html.TextToken:
		return v.inBody && v.hidden == 0 && strings.TrimSpace(string(z.Text())) != ""
	}
	return false
}

// subresource reports which attribute of a tag names a resource the browser
// fetches while loading the page, and what kind of resource it is. Links
// (<a href>) are not fetched; <link> counts only for stylesheets and icons,
// which is what browsers of the SPDY era requested.
func subresource(a atom.Atom, attrs map[string]string) (value, typ string, ok bool) {
	get := func(k string) (string, bool) {
		v, ok := attrs[k]
		return v, ok && strings.TrimSpace(v) != ""
	}
	switch a {
	case atom.Img:
		v, ok := get("src")
		return v, "image", ok
	case atom.Input:
		if strings.EqualFold(attrs["type"], "image") {
			v, ok := get("src")
			return v, "image", ok
		}
	case atom.Script:
		v, ok := get("src")
		return v, "js", ok
	case atom.Link:
		rels := strings.Fields(strings.ToLower(attrs["rel"]))
		for _, rel := range rels {
			switch rel {
			case "stylesheet":
				v, ok := get("href")
				return v, "css", ok
			case "icon":
				v, ok := get("href")
				return v, "image", ok
			}
		}
	case atom.Iframe, atom.Frame:
		v, ok := get("src")
		return v, "html", ok
	case atom.Embed:
		v, ok := get("src")
		return v, "flash", ok
	case atom.Object:
		v, ok := get("data")
		return v, "flash", ok
	case atom.Video:
		v, ok := get("poster")
		return v, "image", ok
	case atom.Audio, atom.Source, atom.Track:
		v, ok := get("src")
		return v, "other", ok
	}
	return "", "", false
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
