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
	var (
		offset    int
		window    []byte // recent bytes, to recognise "url(" and "@import"
		inURL     bool
		importOn  bool // inside @import, before its ';'
		quote     byte
		value     []byte
		start     int
		inComment bool
		prev      byte
	)
	emit := func(v string, typ string, at int) {
		v = strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
			v = v[1 : len(v)-1]
		}
		if v == "" || strings.HasPrefix(v, "data:") {
			return
		}
		u, err := base.Parse(v)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") {
			return
		}
		u.Fragment = ""
		if typ == "" {
			typ = typeFromPath(u.Path)
		}
		found(reference{URL: u, Raw: v, Type: typ, Offset: at})
	}
	for {
		b, err := br.ReadByte()
		if err != nil {
			if err == io.EOF {
				return cr.n, nil
			}
			return cr.n, err
		}
		pos := offset
		offset++
		switch {
		case inComment:
			if prev == '*' && b == '/' {
				inComment = false
				b = 0
			}
		case inURL:
			if quote != 0 {
				if b == quote {
					quote = 0
				}
				value = append(value, b)
				break
			}
			if b == '"' || b == '\'' {
				quote = b
				value = append(value, b)
				break
			}
			if b == ')' {
				typ := ""
				if importOn {
					typ = "css"
				}
				emit(string(value), typ, start)
				inURL = false
				value = value[:0]
				break
			}
			value = append(value, b)
		case importOn && quote != 0:
			if b == quote {
				emit(string(value), "css", start)
				quote = 0
				value = value[:0]
				break
			}
			value = append(value, b)
		case prev == '/' && b == '*':
			inComment = true
			b = 0
		default:
			window = append(window, toLower(b))
			if len(window) > 7 {
				window = window[len(window)-7:]
			}
			w := string(window)
			switch {
			case strings.HasSuffix(w, "url("):
				inURL = true
				start = pos + 1
			case strings.HasSuffix(w, "@import"):
				importOn = true
			case importOn && (b == '"' || b == '\''):
				quote = b
				start = pos + 1
			case importOn && b == ';':
				importOn = false
			}
		}
		prev = b
	}
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
