package page

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/spdylab/spdylab/internal/units"
	"github.com/spdylab/spdylab/probe"
)

// KiB is the unit of the published page sizes: the studies read sizes off
// 2012-era browser tools, which counted 1 KB = 1024 bytes.
const KiB = units.KiB

// MaxShards is the largest number of shard hosts a generated page uses.
const MaxShards = probe.MaxShards

// Sharding modes.
const (
	// ShardEqual splits the resources (in page order) into contiguous,
	// equally large groups, one per host: CableLabs' "divided equally".
	ShardEqual = probe.ShardEqual
	// ShardRoundRobin deals resources to hosts in turn, as Lancaster did.
	ShardRoundRobin = probe.ShardRoundRobin
)

// HostName is the name of shard host i (1-based): s1.spdylab.test, ...
func HostName(i int) string { return "s" + strconv.Itoa(i) + ".spdylab.test" }

// Names lists the built-in page names. Generate also accepts generic specs,
// see GenericHelp.
func Names() []string {
	return []string{"pageA", "pageB", "pageC", "twitter", "youtube", "imgur", "facebook", "google", "blogspot", "wordpress", "youm7"}
}

// Describe is a one-line description of a built-in page.
func Describe(name string) string {
	switch name {
	case "pageA":
		return "Study 1 page A: HTML 12.8 KB, JS 94.5 KB, 100 JPEG 1.3/2.6/5.5/1.2 KB (min/mean/max/sd)"
	case "pageB":
		return "Study 1 page B: HTML 8.2 KB, 100 JPEG/PNG/GIF 46 B/14/103/24 KB, ~log-uniform"
	case "pageC":
		return "Study 1 page C: HTML 0.8 KB, 10 JPEG 298/302/310/4 KB"
	}
	if p, ok := profiles[name]; ok {
		return fmt.Sprintf("Study 2 %s-like page: %d resources, mean %.2f KB, %d domain(s)", name, p.n, p.meanKB, p.domains)
	}
	return ""
}

// GenericHelp documents the generic page spec.
const GenericHelp = `generic:KEY=VALUE,... builds a synthetic page. Keys:
  n=50          resources including the HTML (>= 1)
  mean=10k      mean resource size (b, k = KiB, m = MiB); sizes below a type's smallest
                valid file (about 0.3 KB for an image) are raised, so tiny means overshoot
  dist=lognormal  size distribution: lognormal, loguniform or fixed
  sigma=1.0     lognormal shape (log-space standard deviation)
  depth=1       1: everything referenced by the HTML; 2: one stylesheet references
                a quarter of the images and one script loads another quarter on completion
  domains=1     origin domains, mapped onto shard hosts like the Study 2 pages
example: generic:n=50,mean=10k,dist=lognormal,depth=2`

// Generate builds page name over shards hosts (0 = the page's own default:
// 1, or its domain count up to MaxShards for multi-domain pages) with the
// given sharding mode ("" = equal). The same arguments give the same
// manifest, and WriteSite then gives byte-identical files.
func Generate(name string, shards int, seed int64, mode string) (*Manifest, error) {
	switch mode {
	case "":
		mode = ShardEqual
	case ShardEqual, ShardRoundRobin:
	default:
		return nil, fmt.Errorf("unknown shard mode %q (want %s or %s)", mode, ShardEqual, ShardRoundRobin)
	}
	if shards < 0 || shards > MaxShards {
		return nil, fmt.Errorf("shards %d out of range 1..%d", shards, MaxShards)
	}
	rng := newRNG(uint64(seed))
	var g *draft
	var err error
	switch {
	case name == "pageA" || name == "pageB" || name == "pageC":
		g = study1(name, rng)
	case strings.HasPrefix(name, GenericPrefix):
		var p profile
		p, err = parseGeneric(strings.TrimPrefix(name, GenericPrefix))
		if err != nil {
			return nil, fmt.Errorf("page %q: %w", name, err)
		}
		g, err = p.build(rng)
	default:
		p, ok := profiles[name]
		if !ok {
			return nil, fmt.Errorf("unknown page %q; known pages: %s, or a generic:... spec", name, strings.Join(Names(), ", "))
		}
		g, err = p.build(rng)
	}
	if err != nil {
		return nil, fmt.Errorf("page %q: %w", name, err)
	}
	if shards == 0 {
		shards = min(max(g.domains, 1), MaxShards)
	}
	m := &Manifest{Name: name, Seed: seed}
	for i := 1; i <= shards; i++ {
		m.Hosts = append(m.Hosts, HostName(i))
	}
	g.assignHosts(m, mode)
	if err := g.finish(m); err != nil {
		return nil, fmt.Errorf("page %q: %w", name, err)
	}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("page %q: generated an invalid manifest: %w", name, err)
	}
	return m, nil
}

// draft is a page under construction: structure and sizes are known, hosts
// and reference offsets are filled in last because URLs (and so the room
// they take in their parents) depend on the hosts.
type draft struct {
	res     []Resource
	domain  []int  // origin domain of each resource (0 = the HTML's)
	fixed   []bool // size set by the study; generators must not grow it
	domains int
}

func (g *draft) add(typ, ctype string, size, parent int, kind string, domain int) int {
	id := len(g.res)
	if ctype == "" {
		ctype = DefaultContentType(typ)
	}
	g.res = append(g.res, Resource{ID: id, Type: typ, ContentType: ctype, Size: size, Parent: parent, Discovery: Discovery{Kind: kind}})
	g.domain = append(g.domain, domain)
	g.fixed = append(g.fixed, false)
	var p string
	switch typ {
	case TypeHTML:
		p = "/index.html"
		if id > 0 {
			p = fmt.Sprintf("/frame/%d.html", id)
		}
	case TypeCSS:
		p = fmt.Sprintf("/css/%d.css", id)
	case TypeJS:
		p = fmt.Sprintf("/js/%d.js", id)
	case TypeImage:
		ext := map[string]string{"image/jpeg": "jpg", "image/png": "png", "image/gif": "gif"}[ctype]
		p = fmt.Sprintf("/img/%d.%s", id, ext)
	case TypeFlash:
		p = fmt.Sprintf("/swf/%d.swf", id)
	default:
		p = fmt.Sprintf("/data/%d.bin", id)
	}
	g.res[id].Path = p
	return id
}

// assignHosts puts the HTML on s1 and shards the rest. Single-domain pages
// shard resources; multi-domain pages shard whole domains (domain d goes
// where mode puts item d of D), so a page never uses more hosts than it has
// domains and one domain never spans two hosts.
func (g *draft) assignHosts(m *Manifest, mode string) {
	n := len(m.Hosts)
	place := func(k, count int) int {
		if mode == ShardRoundRobin {
			return k % n
		}
		return k * n / count
	}
	for i := range g.res {
		h := 0
		switch {
		case i == 0:
		case g.domains > 1:
			h = place(g.domain[i], g.domains)
		default:
			h = place(i-1, len(g.res)-1)
		}
		g.res[i].Host = m.Hosts[h]
	}
}

// finish grows documents that are too small for their references, places
// the references in their parents and copies the resources to m.
func (g *draft) finish(m *Manifest) error {
	m.Resources = g.res
	for id := range m.Resources {
		r := &m.Resources[id]
		if r.Type != TypeHTML && r.Type != TypeCSS {
			continue
		}
		need := m.minDocSize(id)
		if r.Size < need {
			if g.fixed[id] {
				return fmt.Errorf("%s (%d bytes) cannot hold its %d references (needs %d bytes)", r.Path, r.Size, len(m.Children(id)), need)
			}
			r.Size = need + need/10
		}
		m.placeRefs(id)
	}
	for id := range m.Resources {
		r := &m.Resources[id]
		if r.Type == TypeJS && r.Size < m.minDocSize(id) {
			r.Size = m.minDocSize(id)
		}
	}
	return nil
}

// minDocSize is the size document id needs with no filler at all.
func (m *Manifest) minDocSize(id int) int {
	saved := m.Resources[id].Size
	m.Resources[id].Size = math.MaxInt32
	m.placeRefsGap(id, 0)
	p, err := m.layout(id)
	m.Resources[id].Size = saved
	if err != nil || p == nil {
		return 0
	}
	return math.MaxInt32 - p.tail
}

// placeRefs spreads document id's references over its bytes: scripts and
// stylesheets early (as in a document head), everything else evenly over
// the rest, so a streaming parser discovers them progressively.
func (m *Manifest) placeRefs(id int) {
	slack := m.Resources[id].Size - m.minDocSize(id)
	m.placeRefsGap(id, slack)
}

// placeRefsGap sets the offsets of id's references with slack filler bytes
// shared evenly before the body references and the end of the document.
func (m *Manifest) placeRefsGap(id, slack int) {
	r := &m.Resources[id]
	var head, body []int
	for _, c := range m.Children(id) {
		if m.Resources[c].Discovery.Kind != KindRef {
			continue
		}
		if t := m.Resources[c].Type; r.Type == TypeHTML && (t == TypeCSS || t == TypeJS) {
			head = append(head, c)
		} else {
			body = append(body, c)
		}
	}
	cur := 0
	switch r.Type {
	case TypeHTML:
		cur = len(htmlPreamble(r))
	case TypeCSS:
		cur = len(cssPreamble)
	}
	// A small gap before each head reference keeps them in the first bytes
	// without making them adjacent.
	headGap := 0
	if slack > 0 && len(head) > 0 {
		headGap = min(slack/(4*len(head)), 64)
	}
	slack -= headGap * len(head)
	bodyGap := 0
	if len(body) > 0 {
		bodyGap = slack / (len(body) + 1)
	}
	for i, c := range append(head, body...) {
		gap := bodyGap
		if i < len(head) {
			gap = headGap
		}
		var tag refTag
		if r.Type == TypeHTML {
			tag = htmlTag(m.Resources[c].Type)
		} else {
			tag = cssTag(c)
		}
		cur += gap + len(tag.prefix)
		m.Resources[c].Discovery.Offset = cur
		cur += len(m.RefURL(c)) + len(tag.suffix)
	}
}

// ---- Study 1 (CableLabs) ------------------------------------------------

// study1 builds pages A, B and C with image sizes fitted to the published
// min/mean/max/stddev.
func study1(name string, rng *rand.Rand) *draft {
	g := &draft{domains: 1}
	kb := func(x float64) int { return int(math.Round(x * KiB)) }
	switch name {
	case "pageA":
		g.add(TypeHTML, "", kb(12.8), -1, KindRoot, 0)
		g.add(TypeJS, "", kb(94.5), 0, KindRef, 0)
		base := make([]float64, 100)
		for i := range base {
			base[i] = math.Exp(0.45 * rng.NormFloat64())
		}
		for _, s := range fitStats(base, kb(1.3), kb(2.6), kb(5.5), kb(1.2)) {
			g.add(TypeImage, "image/jpeg", s, 0, KindRef, 0)
		}
	case "pageB":
		g.add(TypeHTML, "", kb(8.2), -1, KindRoot, 0)
		lo, hi := math.Log(46), math.Log(103*KiB)
		base := make([]float64, 100)
		for i := range base {
			base[i] = math.Exp(lo + (hi-lo)*rng.Float64())
		}
		for _, s := range fitStats(base, 46, kb(14), kb(103), kb(24)) {
			g.add(TypeImage, pickImageType(s, rng), s, 0, KindRef, 0)
		}
	case "pageC":
		g.add(TypeHTML, "", kb(0.8), -1, KindRoot, 0)
		base := make([]float64, 10)
		for i := range base {
			base[i] = 302 + 4*rng.NormFloat64()
		}
		for _, s := range fitStats(base, kb(298), kb(302), kb(310), kb(4)) {
			g.add(TypeImage, "image/jpeg", s, 0, KindRef, 0)
		}
	}
	for i := range g.fixed {
		g.fixed[i] = true
	}
	return g
}

// pickImageType chooses JPEG, PNG or GIF with equal odds among the formats
// that can be that small.
func pickImageType(size int, rng *rand.Rand) string {
	var ok []string
	for _, t := range []string{"image/jpeg", "image/png", "image/gif"} {
		if size >= MinImageSize(t) {
			ok = append(ok, t)
		}
	}
	return ok[rng.IntN(len(ok))]
}

// fitStats turns a random sample into integer sizes with exactly the given
// minimum and maximum and (up to clipping and rounding) the given mean and
// population standard deviation, keeping the sample's shape: the smallest
// and largest draws become min and max, and the others go through a
// log-space affine map exp(c + b*log x), clipped to [min, max], with b and c
// found by bisection. Rank order is preserved, so the shape of the source
// distribution (lognormal, log-uniform, normal) survives.
func fitStats(base []float64, lo, mean, hi, sd int) []int {
	n := len(base)
	out := make([]int, n)
	iMin, iMax := 0, 0
	for i, x := range base {
		if x < base[iMin] {
			iMin = i
		}
		if x > base[iMax] {
			iMax = i
		}
	}
	if n < 3 || iMin == iMax {
		for i := range out {
			out[i] = mean
		}
		return out
	}
	fl, fm, fh, fs := float64(lo), float64(mean), float64(hi), float64(sd)
	k := float64(n - 2)
	wantMean := (float64(n)*fm - fl - fh) / k
	wantSq := (float64(n)*(fs*fs+fm*fm) - fl*fl - fh*fh) / k
	wantSD := math.Sqrt(math.Max(wantSq-wantMean*wantMean, 0))

	var z []float64
	var idx []int
	var meanLog float64
	for i, x := range base {
		if i != iMin && i != iMax {
			idx = append(idx, i)
			z = append(z, math.Log(math.Max(x, 1e-9)))
			meanLog += math.Log(math.Max(x, 1e-9))
		}
	}
	meanLog /= k
	spread := 0.0
	for i := range z {
		z[i] -= meanLog
		spread = math.Max(spread, math.Abs(z[i]))
	}
	eval := func(c, b float64) (m, s float64) {
		var s1, s2 float64
		for _, zi := range z {
			y := math.Min(math.Max(math.Exp(c+b*zi), fl), fh)
			s1 += y
			s2 += y * y
		}
		m = s1 / k
		return m, math.Sqrt(math.Max(s2/k-m*m, 0))
	}
	fitC := func(b float64) float64 {
		cl, ch := math.Log(fl)-b*spread-1, math.Log(fh)+b*spread+1
		for range 80 {
			c := (cl + ch) / 2
			if m, _ := eval(c, b); m < wantMean {
				cl = c
			} else {
				ch = c
			}
		}
		return (cl + ch) / 2
	}
	bl, bh := 0.0, 20.0
	for range 60 {
		b := (bl + bh) / 2
		if _, s := eval(fitC(b), b); s < wantSD {
			bl = b
		} else {
			bh = b
		}
	}
	b := (bl + bh) / 2
	c := fitC(b)
	out[iMin], out[iMax] = lo, hi
	sum := lo + hi
	for j, i := range idx {
		y := math.Min(math.Max(math.Exp(c+b*z[j]), fl), fh)
		out[i] = int(math.Round(y))
		sum += out[i]
	}
	// Rounding leaves the total a few bytes off; spread the difference over
	// the interior sizes that are not at a bound.
	want := n * mean
	for step := 0; sum != want && step < 4*n; step++ {
		i := idx[step%len(idx)]
		switch {
		case sum < want && out[i] < hi:
			out[i]++
			sum++
		case sum > want && out[i] > lo:
			out[i]--
			sum--
		}
	}
	return out
}

// ---- Study 2 (Lancaster) profiles -------------------------------------

// profile describes a synthetic page by its published resource count, mean
// size and domain count; the mix of types and depth are spdylab's choice
// (documented in Describe and page/README.md) since the study gives only the
// totals.
type profile struct {
	n       int     // resources including the HTML
	meanKB  float64 // mean resource size
	domains int
	css, js int // stylesheets and scripts referenced by the HTML
	flash   int
	cssImgs int // images referenced from the stylesheets (depth 2)
	jsLoads int // images a script requests after it has run (depth 2)
	dist    string
	sigma   float64
}

var profiles = map[string]profile{
	"twitter":   {n: 7, meanKB: 46.4, domains: 1, css: 2, js: 2, dist: "lognormal", sigma: 0.8},
	"youtube":   {n: 50, meanKB: 10.63, domains: 1, css: 2, js: 4, cssImgs: 8, jsLoads: 6, dist: "lognormal", sigma: 1.0},
	"imgur":     {n: 133, meanKB: 11.78, domains: 1, css: 2, js: 4, flash: 2, cssImgs: 10, jsLoads: 10, dist: "lognormal", sigma: 1.0},
	"facebook":  {n: 20, meanKB: 12.56, domains: 4, css: 3, js: 4, cssImgs: 3, dist: "lognormal", sigma: 1.0},
	"google":    {n: 7, meanKB: 41.29, domains: 2, css: 1, js: 2, dist: "lognormal", sigma: 0.8},
	"blogspot":  {n: 31, meanKB: 5.03, domains: 6, css: 3, js: 5, cssImgs: 4, dist: "lognormal", sigma: 1.0},
	"wordpress": {n: 13, meanKB: 7.92, domains: 4, css: 3, js: 3, cssImgs: 2, dist: "lognormal", sigma: 1.0},
	"youm7":     {n: 270, meanKB: 11.07, domains: 54, css: 6, js: 20, cssImgs: 20, jsLoads: 30, dist: "lognormal", sigma: 1.0},
}

// typeWeight scales a type's typical size relative to an image's.
var typeWeight = map[string]float64{TypeHTML: 2.0, TypeCSS: 1.5, TypeJS: 3.0, TypeImage: 1.0, TypeFlash: 4.0}

func (p profile) build(rng *rand.Rand) (*draft, error) {
	imgs := p.n - 1 - p.css - p.js - p.flash
	if imgs < 0 || p.cssImgs+p.jsLoads > imgs {
		return nil, fmt.Errorf("%d resources cannot hold 1 html, %d css, %d js, %d flash and %d+%d dependent images", p.n, p.css, p.js, p.flash, p.cssImgs, p.jsLoads)
	}
	if (p.cssImgs > 0 && p.css == 0) || (p.jsLoads > 0 && p.js == 0) {
		return nil, fmt.Errorf("dependent images need a stylesheet and a script")
	}
	g := &draft{domains: p.domains}
	domain := func() int {
		// The first resources visit every domain once, then domains are
		// drawn at random, so each domain really serves something.
		if k := len(g.res) - 1; k < p.domains-1 {
			return k + 1
		}
		return rng.IntN(p.domains)
	}
	mean := p.meanKB * KiB
	sizes := make([]float64, p.n)
	types := make([]string, p.n)
	types[0] = TypeHTML
	t := 1
	for range p.css {
		types[t] = TypeCSS
		t++
	}
	for range p.js {
		types[t] = TypeJS
		t++
	}
	for range p.flash {
		types[t] = TypeFlash
		t++
	}
	for ; t < p.n; t++ {
		types[t] = TypeImage
	}
	for i := range sizes {
		switch p.dist {
		case "fixed":
			sizes[i] = 1
		case "loguniform":
			sizes[i] = typeWeight[types[i]] * math.Exp(2*math.Log(10)*rng.Float64())
		default:
			sizes[i] = typeWeight[types[i]] * math.Exp(p.sigma*rng.NormFloat64())
		}
	}
	ints := scaleToTotal(sizes, int(math.Round(mean*float64(p.n))), func(i int) int {
		if types[i] == TypeImage {
			return MinImageSize("image/jpeg") // the type is picked after sizing; JPEG is the largest minimum
		}
		if types[i] == TypeFlash {
			return swfMin
		}
		return 256 // documents: room for a preamble and a few references
	})
	g.add(TypeHTML, "", ints[0], -1, KindRoot, 0)
	var cssIDs, jsIDs []int
	for i := 1; i < p.n; i++ {
		switch types[i] {
		case TypeCSS:
			cssIDs = append(cssIDs, g.add(TypeCSS, "", ints[i], 0, KindRef, domain()))
		case TypeJS:
			jsIDs = append(jsIDs, g.add(TypeJS, "", ints[i], 0, KindRef, domain()))
		case TypeFlash:
			g.add(TypeFlash, "", ints[i], 0, KindRef, domain())
		}
	}
	// Images: the first cssImgs hang off stylesheets, the next jsLoads are
	// requested by scripts, the rest are in the HTML; all shuffled in page
	// order by their sizes' random draw already.
	img := 0
	for i := 1; i < p.n; i++ {
		if types[i] != TypeImage {
			continue
		}
		parent, kind := 0, KindRef
		switch {
		case img < p.cssImgs:
			parent = cssIDs[img%len(cssIDs)]
		case img < p.cssImgs+p.jsLoads:
			parent, kind = jsIDs[(img-p.cssImgs)%len(jsIDs)], KindOnload
		}
		id := g.add(TypeImage, pickImageType(ints[i], rng), ints[i], parent, kind, domain())
		if kind == KindOnload {
			g.res[id].Discovery.Delay = scriptDelay(ints[parent])
		}
		img++
	}
	return g, nil
}

// scriptDelay models the execution time of a script before the requests it
// makes: 1 ms per 10 KiB of source, at least 1 ms. It is a stated model,
// in the spirit of Epload's recorded compute times, not a measurement.
func scriptDelay(size int) time.Duration {
	return time.Duration(max(1, size/(10*KiB))) * time.Millisecond
}

// scaleToTotal rounds weights to integer sizes that sum exactly to total,
// each at least floor(i), proportionally to the weights otherwise.
func scaleToTotal(w []float64, total int, floor func(i int) int) []int {
	n := len(w)
	out := make([]int, n)
	pinned := make([]bool, n)
	for range 10 {
		free, freeW := total, 0.0
		for i := range w {
			if pinned[i] {
				free -= out[i]
			} else {
				freeW += w[i]
			}
		}
		changed := false
		for i := range w {
			if pinned[i] {
				continue
			}
			out[i] = int(math.Round(w[i] / freeW * float64(free)))
			if f := floor(i); out[i] < f {
				out[i], pinned[i], changed = f, true, true
			}
		}
		if !changed {
			break
		}
	}
	sum := 0
	for _, x := range out {
		sum += x
	}
	for step := 0; sum != total && step < 4*n; step++ {
		i := step % n
		switch {
		case sum < total:
			out[i]++
			sum++
		case out[i] > floor(i):
			out[i]--
			sum--
		}
	}
	return out
}

// parseGeneric reads "n=50,mean=10k,dist=lognormal,depth=2,...".
func parseGeneric(spec string) (profile, error) {
	p := profile{n: 50, meanKB: 10, domains: 1, dist: "lognormal", sigma: 1.0}
	depth := 1
	if strings.TrimSpace(spec) == "" {
		return p, fmt.Errorf("empty generic spec\n%s", GenericHelp)
	}
	for _, kv := range strings.Split(spec, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return p, fmt.Errorf("%q is not KEY=VALUE\n%s", kv, GenericHelp)
		}
		var err error
		switch k {
		case "n":
			p.n, err = strconv.Atoi(v)
			if err == nil && (p.n < 1 || p.n > 10000) {
				err = fmt.Errorf("must be 1..10000")
			}
		case "mean":
			var b int
			b, err = units.ParseSize(v)
			p.meanKB = float64(b) / KiB
			if err == nil && b < 1 {
				err = fmt.Errorf("must be positive")
			}
		case "dist":
			p.dist = v
			if v != "lognormal" && v != "loguniform" && v != "fixed" {
				err = fmt.Errorf("want lognormal, loguniform or fixed")
			}
		case "sigma":
			p.sigma, err = strconv.ParseFloat(v, 64)
			if err == nil && (p.sigma < 0 || p.sigma > 5) {
				err = fmt.Errorf("must be 0..5")
			}
		case "depth":
			depth, err = strconv.Atoi(v)
			if err == nil && depth != 1 && depth != 2 {
				err = fmt.Errorf("must be 1 or 2")
			}
		case "domains":
			p.domains, err = strconv.Atoi(v)
			if err == nil && (p.domains < 1 || p.domains > 1000) {
				err = fmt.Errorf("must be 1..1000")
			}
		default:
			return p, fmt.Errorf("unknown key %q\n%s", k, GenericHelp)
		}
		if err != nil {
			return p, fmt.Errorf("%s=%s: %v", k, v, err)
		}
	}
	if depth == 2 {
		if p.n < 3 {
			return p, fmt.Errorf("depth=2 needs n >= 3 (html, css, js)")
		}
		p.css, p.js = 1, 1
		imgs := p.n - 3
		p.cssImgs, p.jsLoads = imgs/4, imgs/4
	}
	if p.domains > p.n {
		return p, fmt.Errorf("domains=%d exceeds n=%d", p.domains, p.n)
	}
	return p, nil
}

func newRNG(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)) }
