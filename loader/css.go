package loader

import (
	"bufio"
	"io"
	"net/url"
	"path"
	"strings"
)

// scanCSS reads a stylesheet from r and reports each url(...) and @import
// reference as soon as its closing delimiter has arrived, in order. Comments
// are skipped. It returns the bytes read.
func scanCSS(r io.Reader, base *url.URL, found func(reference)) (int64, error) {
	cr := &countingReader{r: r}
	br := bufio.NewReaderSize(cr, 4096)
	sc := &cssScanner{base: base, found: found}
	for offset := 0; ; offset++ {
		b, err := br.ReadByte()
		if err != nil {
			if err == io.EOF {
				return cr.n, nil
			}
			return cr.n, err
		}
		sc.step(b, offset)
	}
}

// cssScanner is the state of scanCSS between bytes.
type cssScanner struct {
	base      *url.URL
	found     func(reference)
	window    []byte // recent bytes, to recognise "url(" and "@import"
	inURL     bool
	importOn  bool // inside @import, before its ';'
	quote     byte
	value     []byte
	start     int
	inComment bool
	prev      byte
}

// step consumes byte b found at offset pos.
func (sc *cssScanner) step(b byte, pos int) {
	switch {
	case sc.inComment:
		if sc.prev == '*' && b == '/' {
			sc.inComment = false
			b = 0
		}
	case sc.inURL:
		sc.urlByte(b)
	case sc.importOn && sc.quote != 0:
		if b == sc.quote {
			sc.emit(string(sc.value), "css", sc.start)
			sc.quote = 0
			sc.value = sc.value[:0]
			break
		}
		sc.value = append(sc.value, b)
	case sc.prev == '/' && b == '*':
		sc.inComment = true
		b = 0
	default:
		sc.tokenByte(b, pos)
	}
	sc.prev = b
}

// urlByte consumes a byte inside url(...).
func (sc *cssScanner) urlByte(b byte) {
	if sc.quote != 0 {
		if b == sc.quote {
			sc.quote = 0
		}
		sc.value = append(sc.value, b)
		return
	}
	if b == '"' || b == '\'' {
		sc.quote = b
		sc.value = append(sc.value, b)
		return
	}
	if b == ')' {
		typ := ""
		if sc.importOn {
			typ = "css"
		}
		sc.emit(string(sc.value), typ, sc.start)
		sc.inURL = false
		sc.value = sc.value[:0]
		return
	}
	sc.value = append(sc.value, b)
}

// tokenByte consumes a byte outside comments and URLs, watching for
// "url(", "@import" and the import's quoted URL.
func (sc *cssScanner) tokenByte(b byte, pos int) {
	sc.window = append(sc.window, toLower(b))
	if len(sc.window) > 7 {
		sc.window = sc.window[len(sc.window)-7:]
	}
	w := string(sc.window)
	switch {
	case strings.HasSuffix(w, "url("):
		sc.inURL = true
		sc.start = pos + 1
	case strings.HasSuffix(w, "@import"):
		sc.importOn = true
	case sc.importOn && (b == '"' || b == '\''):
		sc.quote = b
		sc.start = pos + 1
	case sc.importOn && b == ';':
		sc.importOn = false
	}
}

// emit reports a reference (quotes stripped; data: and non-HTTP URLs
// skipped); typ "" is taken from the path.
func (sc *cssScanner) emit(v string, typ string, at int) {
	v = strings.TrimSpace(v)
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		v = v[1 : len(v)-1]
	}
	if v == "" || strings.HasPrefix(v, "data:") {
		return
	}
	u, err := sc.base.Parse(v)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") {
		return
	}
	u.Fragment = ""
	if typ == "" {
		typ = typeFromPath(u.Path)
	}
	sc.found(reference{URL: u, Raw: v, Type: typ, Offset: at})
}

func toLower(b byte) byte {
	if 'A' <= b && b <= 'Z' {
		return b + 'a' - 'A'
	}
	return b
}

// typeFromPath guesses a resource type from its extension, for references
// that the manifest does not describe.
func typeFromPath(p string) string {
	switch strings.ToLower(path.Ext(p)) {
	case ".css":
		return "css"
	case ".js":
		return "js"
	case ".html", ".htm":
		return "html"
	case ".jpg", ".jpeg", ".png", ".gif", ".webp", ".svg", ".ico", ".bmp":
		return "image"
	case ".swf":
		return "flash"
	}
	return "other"
}
