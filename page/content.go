package page

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/adler32"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"math/rand/v2"
	"mime"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// This file turns a manifest resource into real bytes of exactly
// Resource.Size: HTML, CSS and scripts whose references sit at the
// manifest's offsets, and images, Flash movies and other files whose
// headers are valid for their content type, padded inside the format (JPEG
// COM segments, PNG private chunk, GIF comment extension, SWF Metadata tag)
// so that decoders accept them.

// refTag is the markup around a reference URL.
type refTag struct{ prefix, suffix string }

func htmlTag(childType string) refTag {
	switch childType {
	case TypeCSS:
		return refTag{`<link rel="stylesheet" href="`, "\">\n"}
	case TypeJS:
		return refTag{`<script src="`, "\"></script>\n"}
	case TypeImage:
		return refTag{`<img src="`, "\" alt=\"\">\n"}
	case TypeFlash:
		return refTag{`<embed type="application/x-shockwave-flash" src="`, "\">\n"}
	case TypeHTML:
		return refTag{`<iframe src="`, "\"></iframe>\n"}
	}
	return refTag{`<object data="`, "\"></object>\n"}
}

func cssTag(childID int) refTag {
	return refTag{".r" + strconv.Itoa(childID) + "{background-image:url(", ")}\n"}
}

// segment is filler bytes followed by literal text.
type segment struct {
	filler int
	text   string
}

// plan is the layout of a document resource: segments in order, then tail
// filler and the closing text.
type plan struct {
	segments []segment
	tail     int
	closing  string
}

// htmlPreamble is everything before the first filler of an HTML resource.
func htmlPreamble(r *Resource) string {
	return "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" + r.Path + "</title></head>\n<body>\n"
}

const (
	cssPreamble = "/* spdylab stylesheet */\n"
	jsPreamble  = "/* spdylab script */\n"
	htmlClosing = "</body></html>\n"
)

// onloadScript is script source that requests the given children after a
// per-child delay once it runs.
func (m *Manifest) onloadScript(children []int) string {
	if len(children) > 0 && m.Resources[children[0]].File != "" {
		return m.recordedOnloadScript(children)
	}
	var b strings.Builder
	b.WriteString("[")
	for i, c := range children {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "[%q,%d]", m.RefURL(c), m.Resources[c].Discovery.Delay.Milliseconds())
	}
	b.WriteString("].forEach(function(e){setTimeout(function(){new Image().src=e[0]},e[1])});")
	return b.String()
}

// recordedOnloadScript requests each child of a recorded page as what it
// is, so that a real browser also runs the scripts, applies the
// stylesheets and loads the frames and their own children: a script
// element, a stylesheet link, an iframe, else an image request.
func (m *Manifest) recordedOnloadScript(children []int) string {
	var b strings.Builder
	b.WriteString("[")
	for i, c := range children {
		if i > 0 {
			b.WriteString(",")
		}
		kind := "i"
		switch m.requestType(c) {
		case TypeJS:
			kind = "s"
		case TypeCSS:
			kind = "c"
		case TypeHTML:
			kind = "h"
		}
		// Absolute: a script resolves URLs against its document, not
		// against the script's own URL.
		fmt.Fprintf(&b, "[%q,%d,%q]", m.URL(c), m.Resources[c].Discovery.Delay.Milliseconds(), kind)
	}
	b.WriteString(`].forEach(function(e){setTimeout(function(){var d=document,x;` +
		`if(e[2]=="s"){x=d.createElement("script");x.src=e[0];d.head.appendChild(x)}` +
		`else if(e[2]=="c"){x=d.createElement("link");x.rel="stylesheet";x.href=e[0];d.head.appendChild(x)}` +
		`else if(e[2]=="h"){x=d.createElement("iframe");x.src=e[0];d.documentElement.appendChild(x)}` +
		`else{new Image().src=e[0]}},e[1])});`)
	return b.String()
}

// requestType is the type a document requests resource id as: its own,
// or for a recorded redirect (a 3xx, typed by its empty body) the type of
// the resource the chain of redirects ends at, as the recorded page asked
// for that one: a script behind a redirect is requested as a script, so
// that it runs and requests its own children.
func (m *Manifest) requestType(id int) string {
	for n := 0; n < len(m.Resources) && m.Resources[id].IsRedirect(); n++ {
		c := m.RedirectChild(id)
		if c < 0 {
			break
		}
		id = c
	}
	return m.Resources[id].Type
}

// refMarkup is the tag around child's reference in a parent of type
// parentType (html or css) and the URL as written there.
func (m *Manifest) refMarkup(parentType string, child int) (refTag, string) {
	url := m.RefURL(child)
	if parentType != TypeHTML {
		return cssTag(child), url
	}
	typ := m.requestType(child)
	if m.Resources[child].File != "" && (typ == TypeOther || typ == TypeFlash) {
		// A browser of today fetches <object>/<embed> data only for types
		// it can show; an image element requests any recorded URL.
		typ = TypeImage
	}
	// A query's '&' would start a character reference.
	return htmlTag(typ), strings.ReplaceAll(url, "&", "&amp;")
}

// onloadText is what a document of type parentType holds to request its
// onload children: the script itself in a script, an inline script run on
// DOMContentLoaded in HTML.
func (m *Manifest) onloadText(parentType string, children []int) string {
	s := m.onloadScript(children)
	if parentType == TypeHTML {
		return `<script>document.addEventListener("DOMContentLoaded",function(){` + s + "})</script>\n"
	}
	return s + "\n"
}

// documentFrame is the text document id starts with, and the text it ends
// with.
func (m *Manifest) documentFrame(id int) (pre, closing string) {
	r := &m.Resources[id]
	switch r.Type {
	case TypeHTML:
		return htmlPreamble(r), m.styleTargets(id) + htmlClosing
	case TypeCSS:
		return cssPreamble, ""
	case TypeJS:
		return jsPreamble, ""
	}
	return "", ""
}

// styleTargets is, for an HTML document, one empty element of class rN
// for every resource N that a stylesheet below the document references: a
// browser fetches a background image only for an element its rule
// matches. Without them Chromium skipped 8 of the generated youtube
// page's 50 resources that the loader (which scans stylesheets whole)
// fetched. The elements take the place of filler: sizes stay.
func (m *Manifest) styleTargets(id int) string {
	var b strings.Builder
	for c := range m.Resources {
		r := &m.Resources[c]
		if r.Discovery.Kind != KindRef || r.Parent < 0 || m.Resources[r.Parent].Type != TypeCSS {
			continue
		}
		if m.documentOf(r.Parent) == id {
			b.WriteString(`<i class="r` + strconv.Itoa(c) + `"></i>`)
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return b.String() + "\n"
}

// documentOf is the nearest HTML ancestor of resource id (-1 if none).
func (m *Manifest) documentOf(id int) int {
	for n := 0; id >= 0 && n <= len(m.Resources); n++ {
		if m.Resources[id].Type == TypeHTML {
			return id
		}
		id = m.Resources[id].Parent
	}
	return -1
}

// layout places the preamble, the references at their offsets, the onload
// script and the closing markup of a document resource (html, css, js) and
// reports the filler between them; it returns nil for other types and an
// error naming the resource when the offsets or the size leave no room.
func (m *Manifest) layout(id int) (*plan, error) {
	r := &m.Resources[id]
	if r.Type != TypeHTML && r.Type != TypeCSS && r.Type != TypeJS {
		return nil, nil
	}
	var refs, onload []int
	for _, c := range m.Children(id) {
		switch m.Resources[c].Discovery.Kind {
		case KindRef:
			refs = append(refs, c)
		case KindOnload:
			onload = append(onload, c)
		}
	}
	sort.SliceStable(refs, func(a, b int) bool {
		return m.Resources[refs[a]].Discovery.Offset < m.Resources[refs[b]].Discovery.Offset
	})
	p := &plan{}
	pre, closing := m.documentFrame(id)
	p.closing = closing
	p.segments = append(p.segments, segment{text: pre})
	cur := len(pre)
	for _, c := range refs {
		ch := &m.Resources[c]
		tag, url := m.refMarkup(r.Type, c)
		fill := ch.Discovery.Offset - cur - len(tag.prefix)
		if fill < 0 {
			return nil, &ResourceError{ID: c, Path: ch.Path, Problem: fmt.Sprintf(
				"offset %d in parent %d leaves no room for its markup %q after the preceding bytes (needs offset >= %d)",
				ch.Discovery.Offset, id, tag.prefix, cur+len(tag.prefix))}
		}
		p.segments = append(p.segments, segment{filler: fill, text: tag.prefix + url + tag.suffix})
		cur = ch.Discovery.Offset + len(url) + len(tag.suffix)
	}
	if len(onload) > 0 {
		s := m.onloadText(r.Type, onload)
		p.segments = append(p.segments, segment{text: s})
		cur += len(s)
	}
	p.tail = r.Size - cur - len(p.closing)
	if p.tail < 0 {
		return nil, &ResourceError{ID: id, Path: r.Path, Problem: fmt.Sprintf(
			"size %d is too small for its markup and references (needs at least %d bytes)", r.Size, cur+len(p.closing))}
	}
	return p, nil
}

// Content returns the bytes of resource id, exactly Size long.
func (m *Manifest) Content(id int) ([]byte, error) {
	if id < 0 || id >= len(m.Resources) {
		return nil, fmt.Errorf("no resource %d", id)
	}
	r := &m.Resources[id]
	if r.Size < 0 {
		return nil, &ResourceError{ID: id, Path: r.Path, Problem: fmt.Sprintf("size %d is negative", r.Size)}
	}
	rng := rand.New(rand.NewPCG(uint64(m.Seed), uint64(id)+0x5d1ab))
	var out []byte
	switch r.Type {
	case TypeHTML, TypeCSS, TypeJS:
		p, err := m.layout(id)
		if err != nil {
			return nil, err
		}
		b := make([]byte, 0, r.Size)
		for _, s := range p.segments {
			b = appendFiller(b, r.Type, s.filler, rng)
			b = append(b, s.text...)
		}
		b = appendFiller(b, r.Type, p.tail, rng)
		out = append(b, p.closing...)
	case TypeImage:
		mt, _, _ := mime.ParseMediaType(r.ContentType)
		var err error
		out, err = imageBytes(mt, r.Size, rng)
		if err != nil {
			return nil, &ResourceError{ID: id, Path: r.Path, Problem: err.Error()}
		}
	case TypeFlash:
		if r.Size < swfMin {
			return nil, &ResourceError{ID: id, Path: r.Path, Problem: fmt.Sprintf("size %d is below the smallest valid SWF spdylab writes (%d bytes)", r.Size, swfMin)}
		}
		out = swfBytes(r.Size, rng)
	default:
		mt, _, _ := mime.ParseMediaType(r.ContentType)
		if strings.HasPrefix(mt, "text/") {
			out = appendWords(make([]byte, 0, r.Size), r.Size, rng)
		} else {
			out = make([]byte, r.Size)
			fillRandom(out, rng)
		}
	}
	if len(out) != r.Size {
		// A layout bug, not bad input: say so loudly rather than serve a
		// page whose offsets are wrong.
		return nil, &ResourceError{ID: id, Path: r.Path, Problem: fmt.Sprintf("internal error: wrote %d bytes, want %d", len(out), r.Size)}
	}
	return out, nil
}

var fillerWords = strings.Fields(`speedy page load time stream session frame window header
compression push priority server client browser network latency bandwidth packet queue loss
congestion handshake connection request response image script style document shard host
median gain wire round trip multiplex flow control transport protocol lab emulated link`)

// appendWords appends exactly n bytes of lower-case words and spaces.
func appendWords(b []byte, n int, rng *rand.Rand) []byte {
	end := len(b) + n
	for len(b) < end {
		w := fillerWords[rng.IntN(len(fillerWords))]
		room := end - len(b)
		if len(w)+1 > room {
			for len(b) < end {
				b = append(b, ' ')
			}
			break
		}
		b = append(b, w...)
		b = append(b, ' ')
	}
	return b
}

// appendFiller appends exactly n bytes that are inert in a document of the
// given type: paragraphs of text in HTML, comments in CSS and scripts, in
// lines of at most about 100 bytes.
func appendFiller(b []byte, typ string, n int, rng *rand.Rand) []byte {
	var open, close string
	switch typ {
	case TypeHTML:
		open, close = "<p>", "</p>\n"
	case TypeCSS:
		open, close = "/*", "*/\n"
	default:
		open, close = "//", "\n"
	}
	over := len(open) + len(close)
	for n > 0 {
		chunk := min(n, 100)
		if rest := n - chunk; rest > 0 && rest <= over {
			chunk -= over + 1 // leave the last chunk room for its markup
		}
		if chunk <= over {
			for range chunk {
				b = append(b, ' ')
			}
		} else {
			b = append(b, open...)
			b = appendWords(b, chunk-over, rng)
			b = append(b, close...)
		}
		n -= chunk
	}
	return b
}

func fillRandom(b []byte, rng *rand.Rand) {
	for i := 0; i < len(b); i += 8 {
		v := rng.Uint64()
		for j := 0; j < 8 && i+j < len(b); j++ {
			b[i+j] = byte(v >> (8 * j))
		}
	}
}

// minSize is the smallest file of a content type WriteSite can produce
// (documents are checked by their layout instead).
func minSize(typ, mediaType string) int {
	switch typ {
	case TypeImage:
		switch mediaType {
		case "image/jpeg":
			return len(jpegBase()) + 4
		case "image/png":
			return pngMin
		case "image/gif":
			return len(gifBase) + 5
		}
	case TypeFlash:
		return swfMin
	}
	return 0
}

// MinImageSize is the smallest image of the given media type spdylab writes.
func MinImageSize(mediaType string) int { return minSize(TypeImage, mediaType) }

var jpegBaseOnce = sync.OnceValue(func() []byte {
	img := image.NewGray(image.Rect(0, 0, 1, 1))
	img.SetGray(0, 0, color.Gray{Y: 128})
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 75}); err != nil {
		panic(err) // encoding a 1x1 in-memory image cannot fail
	}
	return buf.Bytes()
})

func jpegBase() []byte { return jpegBaseOnce() }

// gifBase is a 1x1 GIF89a with a two-colour table; comment extensions are
// inserted after the colour table (byte 19).
var gifBase = []byte{
	'G', 'I', 'F', '8', '9', 'a',
	1, 0, 1, 0, 0x80, 0, 0, // logical screen: 1x1, global table of 2 colours
	0, 0, 0, 0xff, 0xff, 0xff, // colour table
	0x2c, 0, 0, 0, 0, 1, 0, 1, 0, 0, // image descriptor
	2, 2, 0x44, 0x01, 0, // LZW min code size 2; clear, 0, end-of-information
	0x3b, // trailer
}

const (
	pngMin = 70 // signature + IHDR + IDAT of one 1-pixel row + IEND
	swfMin = 24 // header + ShowFrame + End + a Metadata tag with one byte
)

func imageBytes(mediaType string, size int, rng *rand.Rand) ([]byte, error) {
	if min := minSize(TypeImage, mediaType); size < min {
		return nil, fmt.Errorf("size %d is below the smallest valid %s (%d bytes)", size, mediaType, min)
	}
	switch mediaType {
	case "image/jpeg":
		return jpegBytes(size, rng), nil
	case "image/png":
		return pngBytes(size, rng), nil
	case "image/gif":
		return gifBytes(size, rng), nil
	}
	return nil, fmt.Errorf("spdylab cannot write %s images", mediaType)
}

// jpegBytes pads the base JPEG with COM segments (4 bytes of marker and
// length, up to 65533 bytes of data each) right after SOI.
func jpegBytes(size int, rng *rand.Rand) []byte {
	base := jpegBase()
	b := make([]byte, 0, size)
	b = append(b, base[:2]...)
	for r := size - len(base); r > 0; {
		seg := min(r, 65537)
		if left := r - seg; left > 0 && left < 4 {
			seg -= 4
		}
		b = append(b, 0xff, 0xfe, byte((seg-2)>>8), byte(seg-2))
		data := make([]byte, seg-4)
		fillRandom(data, rng)
		b = append(b, data...)
		r -= seg
	}
	return append(b, base[2:]...)
}

func pngChunk(b []byte, typ string, data []byte) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(data)))
	start := len(b)
	b = append(b, typ...)
	b = append(b, data...)
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b[start:]))
}

// pngBytes writes a greyscale PNG one row high. Up to 4 KiB the row itself
// grows (random pixels in a stored deflate block); beyond that a private
// ancillary chunk "paDd", which decoders skip, takes the padding.
func pngBytes(size int, rng *rand.Rand) []byte {
	width, pad := 1, -1
	if extra := size - pngMin; extra <= 4095 {
		width += extra
	} else {
		pad = extra - 12
	}
	b := make([]byte, 0, size)
	b = append(b, 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n')
	ihdr := binary.BigEndian.AppendUint32(nil, uint32(width))
	ihdr = binary.BigEndian.AppendUint32(ihdr, 1)
	ihdr = append(ihdr, 8, 0, 0, 0, 0) // 8-bit greyscale, deflate, no filter, no interlace
	b = pngChunk(b, "IHDR", ihdr)
	if pad >= 0 {
		data := make([]byte, pad)
		fillRandom(data, rng)
		b = pngChunk(b, "paDd", data)
	}
	row := make([]byte, 1+width) // filter type 0, then the pixels
	fillRandom(row[1:], rng)
	z := []byte{0x78, 0x01, 1, byte(len(row)), byte(len(row) >> 8), ^byte(len(row)), ^byte(len(row) >> 8)}
	z = append(z, row...)
	z = binary.BigEndian.AppendUint32(z, adler32.Checksum(row))
	b = pngChunk(b, "IDAT", z)
	return pngChunk(b, "IEND", nil)
}

// gifBytes inserts one comment extension after the colour table.
func gifBytes(size int, rng *rand.Rand) []byte {
	b := make([]byte, 0, size)
	b = append(b, gifBase[:19]...)
	if r := size - len(gifBase); r > 0 {
		b = append(b, 0x21, 0xfe)
		for m := r - 3; m > 0; { // m bytes of sub-blocks: a length byte then 1..255 bytes each
			n := min(255, m-1)
			if m-(n+1) == 1 {
				n-- // a lone byte cannot form a sub-block; leave two
			}
			b = append(b, byte(n))
			b = appendWords(b, n, rng)
			m -= n + 1
		}
		b = append(b, 0)
	}
	return append(b, gifBase[19:]...)
}

// swfBytes writes an uncompressed SWF: header, one empty frame, a Metadata
// tag carrying the padding, End.
func swfBytes(size int, rng *rand.Rand) []byte {
	b := make([]byte, 0, size)
	b = append(b, 'F', 'W', 'S', 10)
	b = binary.LittleEndian.AppendUint32(b, uint32(size))
	b = append(b, 0x00)       // RECT with 0-bit fields
	b = append(b, 0x00, 0x18) // 24 frames per second (8.8 fixed point)
	b = append(b, 0x01, 0x00) // one frame
	if size >= swfMin {
		n := size - 17 - 6
		b = binary.LittleEndian.AppendUint16(b, 77<<6|0x3f) // Metadata, long header
		b = binary.LittleEndian.AppendUint32(b, uint32(n))
		b = appendWords(b, n-1, rng)
		b = append(b, 0)
	}
	b = append(b, 0x40, 0x00) // ShowFrame
	return append(b, 0x00, 0x00)
}
