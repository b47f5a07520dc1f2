package page

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// WriteSite writes dir/manifest.json and every resource at dir/<Path>; one
// directory serves every shard host. The site is built in a temporary
// sibling directory and renamed into place, so dir is either the complete
// new site or untouched. An existing dir is replaced only if it is empty or
// is itself a site (holds a manifest.json); anything else is refused rather
// than deleted.
func (m *Manifest) WriteSite(dir string) error {
	if err := m.Validate(); err != nil {
		return err
	}
	dir = filepath.Clean(dir)
	replace := false
	if st, err := os.Stat(dir); err == nil {
		if !st.IsDir() {
			return fmt.Errorf("%s exists and is not a directory", dir)
		}
		ents, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		if len(ents) > 0 {
			if _, err := os.Stat(filepath.Join(dir, ManifestFile)); err != nil {
				return fmt.Errorf("%s is not empty and holds no %s; refusing to replace it", dir, ManifestFile)
			}
		}
		replace = true
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+".spdylab-tmp-")
	if err != nil {
		return err
	}
	done := false
	defer func() {
		if !done {
			os.RemoveAll(tmp)
		}
	}()
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	for id := range m.Resources {
		b, err := m.Content(id)
		if err != nil {
			return err
		}
		p := filepath.Join(tmp, filepath.FromSlash(strings.TrimPrefix(m.Resources[id].SiteFile(), "/")))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return err
		}
	}
	js, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(tmp, ManifestFile), append(js, '\n'), 0o644); err != nil {
		return err
	}
	if replace {
		old := tmp + ".old"
		if err := os.Rename(dir, old); err != nil {
			return err
		}
		if err := os.Rename(tmp, dir); err != nil {
			os.Rename(old, dir) // put the previous site back
			return err
		}
		done = true
		return os.RemoveAll(old)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return err
	}
	done = true
	return nil
}

// PushMap maps the path of every resource that leads to others (a document
// or a script) to the paths of the resources below it, direct or
// transitive, that live on the same host, in the order a browser discovers
// them (reference offset, then onload). A server with a "manifest" push
// policy pushes that list with the response to the key; server push only
// works within one host, so resources on other shards are left out.
func (m *Manifest) PushMap() map[string][]string {
	out := map[string][]string{}
	order := m.discoveryOrders() // the walks visit a resource once per ancestor
	for id := range m.Resources {
		var list []string
		var walk func(p int)
		walk = func(p int) {
			for _, c := range order[p] {
				if m.Resources[c].Host == m.Resources[id].Host {
					list = append(list, m.Resources[c].Path)
				}
				walk(c)
			}
		}
		walk(id)
		if len(list) > 0 {
			out[m.Resources[id].Path] = list
		}
	}
	return out
}

// DependencyMap maps the path of every document (an HTML resource) to
// the paths of the resources it references directly (its children, not
// theirs) on its own host, in discovery order: what a browser requests as
// soon as it parses the document, and so what the "deps" push policy and
// server hints announce with it.
func (m *Manifest) DependencyMap() map[string][]string {
	out := map[string][]string{}
	order := m.discoveryOrders()
	for id, r := range m.Resources {
		if r.Type != TypeHTML {
			continue
		}
		var list []string
		for _, c := range order[id] {
			if m.Resources[c].Host == r.Host {
				list = append(list, m.Resources[c].Path)
			}
		}
		if len(list) > 0 {
			out[r.Path] = list
		}
	}
	return out
}

// discoveryOrders is discoveryOrder of every resource, indexed by ID, in
// one pass over the resources (Children scans them all for each parent).
func (m *Manifest) discoveryOrders() [][]int {
	children := make([][]int, len(m.Resources))
	for _, r := range m.Resources {
		if r.Parent >= 0 && r.Parent < len(children) && r.Parent != r.ID {
			children[r.Parent] = append(children[r.Parent], r.ID)
		}
	}
	for _, ch := range children {
		m.sortByDiscovery(ch)
	}
	return children
}

// discoveryOrder is id's children: references by offset, then onload ones.
func (m *Manifest) discoveryOrder(id int) []int {
	ch := m.Children(id)
	m.sortByDiscovery(ch)
	return ch
}

// sortByDiscovery orders resource IDs as a browser discovers them:
// references by offset, then onload ones.
func (m *Manifest) sortByDiscovery(ch []int) {
	sort.SliceStable(ch, func(a, b int) bool {
		ra, rb := m.Resources[ch[a]].Discovery, m.Resources[ch[b]].Discovery
		if (ra.Kind == KindRef) != (rb.Kind == KindRef) {
			return ra.Kind == KindRef
		}
		return ra.Offset < rb.Offset
	})
}

// SizeStats are summary statistics of a set of sizes in bytes (population
// standard deviation).
type SizeStats struct {
	Count int     `json:"count"`
	Total int64   `json:"total"`
	Min   int     `json:"min"`
	Mean  float64 `json:"mean"`
	Max   int     `json:"max"`
	SD    float64 `json:"sd"`
}

// StatsOf summarises sizes.
func StatsOf(sizes []int) SizeStats {
	s := SizeStats{Count: len(sizes)}
	if len(sizes) == 0 {
		return s
	}
	s.Min, s.Max = sizes[0], sizes[0]
	for _, x := range sizes {
		s.Total += int64(x)
		s.Min, s.Max = min(s.Min, x), max(s.Max, x)
	}
	s.Mean = float64(s.Total) / float64(len(sizes))
	var v float64
	for _, x := range sizes {
		v += (float64(x) - s.Mean) * (float64(x) - s.Mean)
	}
	s.SD = math.Sqrt(v / float64(len(sizes)))
	return s
}

// Summary describes a page for `spdylab page show`.
type Summary struct {
	Name      string               `json:"name"`
	Resources SizeStats            `json:"resources"`
	ByType    map[string]SizeStats `json:"by_type"`
	ByHost    map[string]SizeStats `json:"by_host"`
	Depth     int                  `json:"depth"`    // longest chain of discoveries below the root (1 = all referenced by the root)
	Pushable  int                  `json:"pushable"` // resources the root's host can push with the root document
}

// Summarize computes the page's statistics.
func (m *Manifest) Summarize() Summary {
	s := Summary{Name: m.Name, ByType: map[string]SizeStats{}, ByHost: map[string]SizeStats{}}
	all := []int{}
	byType := map[string][]int{}
	byHost := map[string][]int{}
	for _, h := range m.Hosts {
		byHost[h] = nil
	}
	for _, r := range m.Resources {
		all = append(all, r.Size)
		byType[r.Type] = append(byType[r.Type], r.Size)
		byHost[r.Host] = append(byHost[r.Host], r.Size)
		d := 0
		for p := r.Parent; p >= 0; p = m.Resources[p].Parent {
			d++
		}
		s.Depth = max(s.Depth, d)
	}
	s.Resources = StatsOf(all)
	for t, v := range byType {
		s.ByType[t] = StatsOf(v)
	}
	for h, v := range byHost {
		s.ByHost[h] = StatsOf(v)
	}
	s.Pushable = len(m.PushMap()[m.Root().Path])
	return s
}

// AddPreloadLinks gives every resource that leads to others a Link response
// header naming, with rel=preload, the same-host resources PushMap lists for
// it. That is how a site operator drives a server's "preload" push policy
// (push what the Link headers name); the header is added only on request
// because a browser would act on it even without push.
func (m *Manifest) AddPreloadLinks() {
	byPath := map[string]*Resource{}
	for i := range m.Resources {
		byPath[m.Resources[i].Path] = &m.Resources[i]
	}
	for parent, paths := range m.PushMap() {
		links := make([]string, 0, len(paths))
		for _, p := range paths {
			l := "<" + p + ">; rel=preload"
			if as := preloadAs(byPath[p].Type); as != "" {
				l += "; as=" + as
			}
			links = append(links, l)
		}
		r := byPath[parent]
		if r.Headers == nil {
			r.Headers = map[string]string{}
		}
		r.Headers["Link"] = strings.Join(links, ", ")
	}
}

// preloadAs is the Link header's "as" destination for a resource type.
func preloadAs(typ string) string {
	switch typ {
	case TypeImage:
		return "image"
	case TypeJS:
		return "script"
	case TypeCSS:
		return "style"
	case TypeHTML:
		return "document"
	}
	return ""
}
