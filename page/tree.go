package page

import (
	"fmt"
	"io"
	"strings"
)

// WriteTree prints the dependency tree: one line per resource, indented by
// its depth below the root, with how it is discovered (ref at an offset,
// onload after a delay, redirect), its type, status when not 200, size and
// URL, children in discovery order.
func (m *Manifest) WriteTree(w io.Writer) error {
	var err error
	var walk func(id, depth int)
	walk = func(id, depth int) {
		if err != nil {
			return
		}
		r := &m.Resources[id]
		how := r.Discovery.Kind
		switch r.Discovery.Kind {
		case KindRef:
			how = fmt.Sprintf("ref@%d", r.Discovery.Offset)
		case KindOnload:
			how = fmt.Sprintf("onload+%dms", r.Discovery.Delay.Milliseconds())
		}
		status := ""
		if r.StatusCode() != 200 {
			status = fmt.Sprintf(" %d", r.StatusCode())
		}
		_, err = fmt.Fprintf(w, "%s%-5s %-14s %s%s %dB %s\n", strings.Repeat("  ", depth), r.Type, how, fmt.Sprint(id), status, r.Size, m.URL(id))
		for _, c := range m.discoveryOrder(id) {
			walk(c, depth+1)
		}
	}
	walk(0, 0)
	return err
}
