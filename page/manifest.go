// Package page describes the web pages spdylab loads: a JSON manifest lists
// every resource of a page with its host, size, type and how a browser
// discovers it; deterministic generators build the pages of the published
// SPDY studies from a seed; WriteSite turns a manifest into real files that
// any browser, crawler, nginx or `spdylab serve` can use.
//
// The dependency model follows Epload (Wang et al., "How speedy is SPDY?",
// NSDI 2014): a resource is either referenced inside its parent's bytes, so a
// streaming parser discovers it once the parent has arrived up to that byte
// offset, or it is requested after its parent has completed (script
// execution, DOMContentLoaded), optionally after a compute delay.
package page

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"os"
	"path"
	"strconv"
	"strings"
	"time"
)

// Resource types.
const (
	TypeHTML  = "html"
	TypeCSS   = "css"
	TypeJS    = "js"
	TypeImage = "image"
	TypeFlash = "flash"
	TypeOther = "other"
)

// Discovery kinds.
const (
	// KindRoot is the root document: the navigation itself requests it.
	KindRoot = "root"
	// KindRef: the resource is referenced in its parent's bytes; its URL
	// starts at byte Offset of the parent.
	KindRef = "ref"
	// KindOnload: the resource is requested after its parent has been
	// received completely (and, for scripts, executed).
	KindOnload = "onload"
	// KindRedirect: the resource is the target of its parent's recorded
	// redirect (status 3xx); it is requested once the parent's response
	// has arrived, at the URL of the parent's Location header.
	KindRedirect = "redirect"
)

// ManifestFile is the name WriteSite gives the manifest inside a site
// directory; no resource may use it as its path.
const ManifestFile = "manifest.json"

// Discovery says when a browser learns that it needs a resource.
type Discovery struct {
	Kind string // KindRoot, KindRef or KindOnload
	// Offset is the byte offset in the parent at which the reference's URL
	// starts (KindRef). A streaming parser has discovered the reference once
	// it holds the parent's bytes up to Offset+len(URL); see Manifest.RefURL.
	Offset int
	// Delay is compute time between discovery and the request: script
	// execution for KindOnload children of scripts, or any modelled parser
	// stall for KindRef.
	Delay time.Duration
}

// discoveryJSON is the wire form: the delay in milliseconds reads better
// than nanoseconds in a hand-written manifest.
type discoveryJSON struct {
	Kind    string  `json:"kind"`
	Offset  int     `json:"offset,omitempty"`
	DelayMs float64 `json:"delay_ms,omitempty"`
}

// MarshalJSON writes the delay in milliseconds.
func (d Discovery) MarshalJSON() ([]byte, error) {
	return json.Marshal(discoveryJSON{Kind: d.Kind, Offset: d.Offset, DelayMs: float64(d.Delay) / float64(time.Millisecond)})
}

// UnmarshalJSON reads the delay in milliseconds.
func (d *Discovery) UnmarshalJSON(b []byte) error {
	var w discoveryJSON
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return err
	}
	*d = Discovery{Kind: w.Kind, Offset: w.Offset, Delay: time.Duration(w.DelayMs * float64(time.Millisecond))}
	return nil
}

// Resource is one object of a page.
type Resource struct {
	ID          int               `json:"id"`   // equals the resource's index in Manifest.Resources
	Path        string            `json:"path"` // "/img/12.jpg"; unique across the page (one root serves all hosts)
	Host        string            `json:"host"` // shard host name, one of Manifest.Hosts
	Size        int               `json:"size"` // body bytes
	Type        string            `json:"type"` // TypeHTML, TypeCSS, ...
	ContentType string            `json:"content_type"`
	Headers     map[string]string `json:"headers,omitempty"` // extra response headers
	Parent      int               `json:"parent"`            // -1 for the root document
	Discovery   Discovery         `json:"discovery"`

	// The fields below describe a resource of a recorded page (`page
	// import`); generated pages leave them empty and keep their meaning
	// unchanged. See harimport.go for how each is derived.

	// Query is the recorded query (after '?'), sent as recorded.
	Query string `json:"query,omitempty"`
	// File is the site file holding the body when it is not Path: a
	// recorded page's hosts share paths ("/", "/favicon.ico"), so its
	// bodies live at /_r/<id> and the server maps host+Path+Query to File.
	File string `json:"file,omitempty"`
	// Scheme and Port are the recorded origin; replays are always https
	// (Port 0 = the scheme's default, dropped from replay URLs).
	Scheme string `json:"scheme,omitempty"`
	Port   int    `json:"port,omitempty"`
	// Status is the response status to serve; 0 means 200.
	Status int `json:"status,omitempty"`
	// RequestHeaders are the recorded request headers (cookies and
	// user-agent included), minus hop-by-hop and framing ones.
	RequestHeaders map[string]string `json:"request_headers,omitempty"`
	// EncodedSize and DecodedSize are the recorded body sizes on the wire
	// and after Content-Encoding; ContentEncoding is the recorded encoding.
	// Size (what is served, identity-encoded) is the recorded wire size.
	EncodedSize     int    `json:"encoded_size,omitempty"`
	DecodedSize     int    `json:"decoded_size,omitempty"`
	ContentEncoding string `json:"content_encoding,omitempty"`
	// RecordedContentType is the recorded type when the body is
	// synthesized as another (an image format spdylab cannot write).
	RecordedContentType string `json:"recorded_content_type,omitempty"`
	// StartMs is when the recording requested it, relative to the root.
	StartMs float64 `json:"start_ms,omitempty"`
	// Replay marks a recorded http->https upgrade or repeated request,
	// served at its URL plus a marker query (ReplayUpgrade, ReplayRepeat).
	Replay string `json:"replay,omitempty"`
}

// Target is the request target: Path, plus "?Query" when there is one.
func (r *Resource) Target() string {
	if r.Query != "" {
		return r.Path + "?" + r.Query
	}
	return r.Path
}

// SiteFile is where WriteSite puts the body: File, or Path.
func (r *Resource) SiteFile() string {
	if r.File != "" {
		return r.File
	}
	return r.Path
}

// authority is host[:port] as the replay's URLs name it.
func (r *Resource) authority() string {
	if r.Port != 0 {
		return r.Host + ":" + strconv.Itoa(r.Port)
	}
	return r.Host
}

// StatusCode is the status to serve (200 unless recorded otherwise).
func (r *Resource) StatusCode() int {
	if r.Status == 0 {
		return 200
	}
	return r.Status
}

// IsRedirect reports a recorded 3xx response.
func (r *Resource) IsRedirect() bool { return r.Status >= 300 && r.Status < 400 }

// Manifest is a whole page. Resources[0] is the root HTML document.
type Manifest struct {
	Name      string     `json:"name"`
	Seed      int64      `json:"seed"` // seeds the filler bytes of WriteSite
	Hosts     []string   `json:"hosts"`
	Resources []Resource `json:"resources"`
	// Source names where an imported page came from ("har:FILE#PAGE").
	Source string `json:"source,omitempty"`
	// Notes state the import's rules and what it left out or changed.
	Notes []string `json:"notes,omitempty"`
	// HostConnectMs is each host's fastest recorded TCP connect (HAR
	// timings.connect minus ssl) in milliseconds; hosts whose requests all
	// reused connections are missing. host_rtt recorded reads it (hostrtt.go).
	HostConnectMs map[string]float64 `json:"host_connect_ms,omitempty"`
	// OnLoadMs is the recording's onload (pageTimings.onLoad) relative to
	// the root's request, as StartMs; 0 when none was recorded.
	OnLoadMs float64 `json:"onload_ms,omitempty"`
	// LCPResource is the resource of the recording's largest contentful
	// paint element (an image; its pageTimings._largestContentfulPaintUrl,
	// which spdylab record writes); nil when the LCP was a text block or
	// was not recorded (the notes say which).
	LCPResource *int `json:"lcp_resource,omitempty"`
}

// TotalBytes is the sum of all resource sizes.
func (m *Manifest) TotalBytes() int64 {
	var t int64
	for _, r := range m.Resources {
		t += int64(r.Size)
	}
	return t
}

// Root is the root document.
func (m *Manifest) Root() *Resource { return &m.Resources[0] }

// Children returns the IDs of the resources whose parent is id, in ID order.
func (m *Manifest) Children(id int) []int {
	var out []int
	for _, r := range m.Resources {
		if r.Parent == id && r.ID != id {
			out = append(out, r.ID)
		}
	}
	return out
}

// RefURL is the URL by which resource id is referenced from its parent:
// root-relative ("/img/1.jpg") when both are on the same host, absolute
// ("https://s2.spdylab.test/img/1.jpg") otherwise. The same rule holds in
// HTML, CSS and scripts, so the bytes WriteSite produces contain exactly
// this string at Discovery.Offset.
func (m *Manifest) RefURL(id int) string {
	r := &m.Resources[id]
	t := r.Target()
	if r.Parent >= 0 && r.Parent < len(m.Resources) && !strings.HasPrefix(t, "//") {
		if p := &m.Resources[r.Parent]; p.Host == r.Host && p.Port == r.Port {
			return t
		}
	}
	return "https://" + r.authority() + t
}

// URL is the absolute URL of resource id.
func (m *Manifest) URL(id int) string {
	r := &m.Resources[id]
	return "https://" + r.authority() + r.Target()
}

// RedirectChild is the resource a 3xx resource redirects to, or -1.
func (m *Manifest) RedirectChild(id int) int {
	for _, c := range m.Children(id) {
		if m.Resources[c].Discovery.Kind == KindRedirect {
			return c
		}
	}
	return -1
}

// Load reads and validates a manifest file.
func Load(file string) (*Manifest, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	m, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return m, nil
}

// Parse decodes and validates a manifest. Syntax and type errors name the
// line and column; validation errors name the resource.
func Parse(b []byte) (*Manifest, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var m Manifest
	if err := dec.Decode(&m); err != nil {
		return nil, jsonError(b, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("line %d: unexpected data after the manifest object", lineOf(b, int(dec.InputOffset())))
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return &m, nil
}

func jsonError(b []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		l, c := lineCol(b, int(syn.Offset))
		return fmt.Errorf("malformed JSON at line %d column %d (byte %d): %v", l, c, syn.Offset, syn)
	case errors.As(err, &typ):
		l, c := lineCol(b, int(typ.Offset))
		field := typ.Field
		if field == "" {
			field = "value"
		}
		return fmt.Errorf("line %d column %d (byte %d): %s must be %s, not JSON %s", l, c, typ.Offset, field, typ.Type, typ.Value)
	case errors.Is(err, io.EOF):
		return errors.New("empty manifest")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("malformed JSON: truncated at byte %d (line %d)", len(b), lineOf(b, len(b)))
	}
	return fmt.Errorf("invalid manifest: %v", err)
}

func lineCol(b []byte, off int) (line, col int) {
	if off > len(b) {
		off = len(b)
	}
	line = 1 + bytes.Count(b[:off], []byte("\n"))
	col = off - bytes.LastIndexByte(b[:off], '\n')
	return line, col
}

func lineOf(b []byte, off int) int { l, _ := lineCol(b, off); return l }

// knownTypes maps each resource type to the content types WriteSite can
// produce real bytes for ("" = any valid media type).
var knownTypes = map[string][]string{
	TypeHTML:  {"text/html"},
	TypeCSS:   {"text/css"},
	TypeJS:    {"application/javascript", "text/javascript", "application/x-javascript"},
	TypeImage: {"image/jpeg", "image/png", "image/gif"},
	TypeFlash: {"application/x-shockwave-flash"},
	TypeOther: nil,
}

// DefaultContentType is the content type generators give each type (images
// default to JPEG).
func DefaultContentType(typ string) string {
	switch typ {
	case TypeHTML:
		return "text/html; charset=utf-8"
	case TypeCSS:
		return "text/css"
	case TypeJS:
		return "application/javascript"
	case TypeImage:
		return "image/jpeg"
	case TypeFlash:
		return "application/x-shockwave-flash"
	}
	return "application/octet-stream"
}

// ResourceError is a validation problem of one resource.
type ResourceError struct {
	ID      int
	Path    string
	Problem string
}

func (e *ResourceError) Error() string {
	if e.Path == "" {
		return fmt.Sprintf("resource %d: %s", e.ID, e.Problem)
	}
	return fmt.Sprintf("resource %d (%s): %s", e.ID, e.Path, e.Problem)
}

// Validate checks every field. The first problem found is returned, naming
// the resource by id and path.
func (m *Manifest) Validate() error {
	if m.OnLoadMs < 0 || math.IsNaN(m.OnLoadMs) || math.IsInf(m.OnLoadMs, 0) {
		return fmt.Errorf("onload_ms %v: want a time in milliseconds after the root's request (or none)", m.OnLoadMs)
	}
	hosts, err := m.validHosts()
	if err != nil {
		return err
	}
	if err := m.hostConnectProblem(hosts); err != nil {
		return err
	}
	if len(m.Resources) == 0 {
		return errors.New("manifest lists no resources")
	}
	if id := m.LCPResource; id != nil && (*id < 0 || *id >= len(m.Resources)) {
		return fmt.Errorf("lcp_resource %d: the manifest has resources 0..%d", *id, len(m.Resources)-1)
	}
	paths := map[string]int{}   // site files
	targets := map[string]int{} // host + request target of recorded resources
	for i := range m.Resources {
		r := &m.Resources[i]
		if problem := m.resourceProblem(i, hosts, paths, targets); problem != "" {
			return &ResourceError{ID: i, Path: r.Path, Problem: problem}
		}
	}
	for i := range m.Resources {
		if r := &m.Resources[i]; r.IsRedirect() && m.RedirectChild(i) < 0 {
			return &ResourceError{ID: i, Path: r.Path, Problem: fmt.Sprintf("status %d is a redirect, but no resource has discovery kind redirect under it", r.Status)}
		}
	}
	if err := m.checkReachesRoot(); err != nil {
		return err
	}
	// The references must fit into their parents' bytes.
	for i := range m.Resources {
		if _, err := m.layout(i); err != nil {
			return err
		}
	}
	return nil
}

// validHosts checks the host list and returns it as a set.
func (m *Manifest) validHosts() (map[string]bool, error) {
	if len(m.Hosts) == 0 {
		return nil, errors.New("manifest lists no hosts")
	}
	hosts := map[string]bool{}
	for i, h := range m.Hosts {
		if err := validHostName(h); err != nil {
			return nil, fmt.Errorf("hosts[%d] %q: %v", i, h, err)
		}
		if hosts[h] {
			return nil, fmt.Errorf("hosts[%d]: duplicate host %q", i, h)
		}
		hosts[h] = true
	}
	return hosts, nil
}

// resourceProblem says what is wrong with resource i on its own and against
// its parent ("" = nothing); paths and targets collect what must be unique.
func (m *Manifest) resourceProblem(i int, hosts map[string]bool, paths, targets map[string]int) string {
	r := &m.Resources[i]
	if r.ID != i {
		return fmt.Sprintf("id %d does not match its position %d in resources (ids must be 0, 1, 2, ...)", r.ID, i)
	}
	if r.Replay != "" && r.Replay != ReplayUpgrade && r.Replay != ReplayRepeat {
		return fmt.Sprintf("replay %q: want %q, %q or none", r.Replay, ReplayUpgrade, ReplayRepeat)
	}
	if r.Replay == ReplayUpgrade && !r.IsRedirect() {
		return fmt.Sprintf("replay %q marks a recorded redirect, but its status is %d", r.Replay, r.StatusCode())
	}
	if r.File == "" {
		if err := validPath(r.Path); err != nil {
			return err.Error()
		}
		if prev, dup := paths[r.Path]; dup {
			return fmt.Sprintf("duplicate path (already used by resource %d); one site root serves every host, so paths must be unique", prev)
		}
		paths[r.Path] = i
	} else if err := m.validRecorded(r, paths, targets); err != nil {
		return err.Error()
	}
	if !hosts[r.Host] {
		return fmt.Sprintf("host %q is not in the manifest's hosts %v", r.Host, m.Hosts)
	}
	if p := contentProblem(r); p != "" {
		return p
	}
	if r.Discovery.Delay < 0 {
		return fmt.Sprintf("discovery delay %v is negative", r.Discovery.Delay)
	}
	if i == 0 {
		return rootProblem(r)
	}
	return m.discoveryProblem(i)
}

// contentProblem checks size, type, content type and headers.
func contentProblem(r *Resource) string {
	if r.Size < 0 {
		return fmt.Sprintf("size %d is negative", r.Size)
	}
	allowed, ok := knownTypes[r.Type]
	if !ok {
		return fmt.Sprintf("unknown type %q (want html, css, js, image, flash or other)", r.Type)
	}
	mt, _, err := mime.ParseMediaType(r.ContentType)
	if err != nil {
		return fmt.Sprintf("content type %q: %v", r.ContentType, err)
	}
	if allowed != nil && !contains(allowed, mt) {
		return fmt.Sprintf("content type %q does not fit type %s (want one of %v)", mt, r.Type, allowed)
	}
	for k, v := range r.Headers {
		if err := validHeader(k, v); err != nil {
			return err.Error()
		}
	}
	if _, err := parseServerDelay(r.Headers); err != nil {
		return err.Error()
	}
	if min := minSize(r.Type, mt); r.Size < min {
		return fmt.Sprintf("size %d is below the smallest valid %s file spdylab can write (%d bytes)", r.Size, mt, min)
	}
	return ""
}

// rootProblem checks what only the root document (resource 0) must be.
func rootProblem(r *Resource) string {
	if r.Type != TypeHTML && !r.IsRedirect() {
		return fmt.Sprintf("the first resource is the root document and must be html (or a recorded redirect), not %s", r.Type)
	}
	if r.Parent != -1 {
		return fmt.Sprintf("the root document must have parent -1, not %d", r.Parent)
	}
	if d := r.Discovery; d.Kind != KindRoot && d.Kind != "" {
		return fmt.Sprintf("the root document's discovery kind must be %q, not %q", KindRoot, d.Kind)
	}
	return ""
}

// discoveryProblem checks how resource i (not the root) is found from its
// parent.
func (m *Manifest) discoveryProblem(i int) string {
	r := &m.Resources[i]
	d := r.Discovery
	if r.Parent < 0 || r.Parent >= len(m.Resources) {
		return fmt.Sprintf("parent %d does not exist (only the root document, resource 0, has no parent)", r.Parent)
	}
	if r.Parent == i {
		return "is its own parent"
	}
	p := &m.Resources[r.Parent]
	switch d.Kind {
	case KindRef:
		if p.Type != TypeHTML && p.Type != TypeCSS {
			return fmt.Sprintf("referenced (kind ref) from resource %d of type %s; only html and css reference resources in their bytes (use kind onload for scripts)", p.ID, p.Type)
		}
		if d.Offset < 0 || d.Offset >= p.Size {
			return fmt.Sprintf("offset %d is beyond its parent %d (%s, %d bytes)", d.Offset, p.ID, p.Path, p.Size)
		}
	case KindOnload:
		if p.Type != TypeHTML && p.Type != TypeJS {
			return fmt.Sprintf("loaded on completion (kind onload) of resource %d of type %s; only html and js parents can do that", p.ID, p.Type)
		}
		if d.Offset != 0 {
			return fmt.Sprintf("kind onload takes no offset (got %d)", d.Offset)
		}
	case KindRedirect:
		if !p.IsRedirect() {
			return fmt.Sprintf("kind redirect needs a parent with a 3xx status; resource %d has status %d", p.ID, p.StatusCode())
		}
		if d.Offset != 0 {
			return fmt.Sprintf("kind redirect takes no offset (got %d)", d.Offset)
		}
		if c := m.RedirectChild(p.ID); c != i {
			return fmt.Sprintf("resource %d already redirects to resource %d; a redirect has one target", p.ID, c)
		}
	case KindRoot, "":
		return "only the root document has discovery kind root; want ref or onload"
	default:
		return fmt.Sprintf("unknown discovery kind %q (want ref, onload or redirect)", d.Kind)
	}
	return ""
}

// checkReachesRoot: every resource must lead back to the root. With one
// parent each, a resource that does not is on (or hangs off) a cycle.
func (m *Manifest) checkReachesRoot() error {
	state := make([]int8, len(m.Resources)) // 0 unvisited, 1 on the current walk, 2 reaches the root
	state[0] = 2
	for i := range m.Resources {
		var walk []int
		j := i
		for state[j] == 0 {
			state[j] = 1
			walk = append(walk, j)
			j = m.Resources[j].Parent
		}
		if state[j] == 1 {
			r := m.Resources[j]
			return &ResourceError{ID: j, Path: r.Path, Problem: fmt.Sprintf("is part of a parent cycle (%s)", cycleString(m, j))}
		}
		for _, w := range walk {
			state[w] = 2
		}
	}
	return nil
}

// validRecorded checks the fields of a recorded (imported) resource: its
// request target is sent as is and embedded in HTML, CSS and scripts, so it
// must be plain printable ASCII without quotes, brackets or spaces; its
// body lives at File.
func (m *Manifest) validRecorded(r *Resource, files, targets map[string]int) error {
	if err := validTarget(r.Path, false); err != nil {
		return fmt.Errorf("path: %v", err)
	}
	if err := validTarget(r.Query, true); err != nil {
		return fmt.Errorf("query: %v", err)
	}
	if err := validPath(r.File); err != nil {
		return fmt.Errorf("file: %v", err)
	}
	if prev, dup := files[r.File]; dup {
		return fmt.Errorf("file %s is already used by resource %d", r.File, prev)
	}
	files[r.File] = r.ID
	key := r.authority() + r.Target()
	if prev, dup := targets[key]; dup {
		return fmt.Errorf("%s is already resource %d; each URL is one resource", key, prev)
	}
	targets[key] = r.ID
	switch r.Scheme {
	case "", "http", "https":
	default:
		return fmt.Errorf("scheme %q: want http or https", r.Scheme)
	}
	if r.Port < 0 || r.Port > 65535 {
		return fmt.Errorf("port %d out of range", r.Port)
	}
	if r.Status != 0 && (r.Status < 100 || r.Status > 599) {
		return fmt.Errorf("status %d is not an HTTP status", r.Status)
	}
	for k, v := range r.RequestHeaders {
		if err := validRequestHeader(k, v); err != nil {
			return fmt.Errorf("request %v", err)
		}
	}
	return nil
}

// validTarget accepts the bytes import keeps in a path or query (it
// percent-encodes every other byte).
func validTarget(s string, query bool) error {
	if !query && !strings.HasPrefix(s, "/") {
		return fmt.Errorf("%q must start with /", s)
	}
	for i := 0; i < len(s); i++ {
		if !targetByte(s[i], query) {
			return fmt.Errorf("%q contains %q at byte %d; percent-encode it", s, s[i], i)
		}
	}
	return nil
}

// targetByte: RFC 3986 unreserved and sub-delims, ':', '@', '/', '%', and
// '?' in a query; not ' ( ), which end a CSS url() or a quoted string.
func targetByte(c byte, query bool) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	case strings.IndexByte("-._~!$&*+,;=:@/%", c) >= 0:
		return true
	}
	return query && c == '?'
}

func validRequestHeader(k, v string) error {
	if k == "" || strings.HasPrefix(k, ":") {
		return fmt.Errorf("header name %q is not a field name", k)
	}
	for _, c := range k {
		if c <= ' ' || c >= 0x7f || strings.ContainsRune(`()<>@,;:\"/[]?={}`, c) {
			return fmt.Errorf("header name %q contains %q", k, c)
		}
	}
	if strings.ContainsAny(v, "\r\n\x00") {
		return fmt.Errorf("header %q value contains a line break or NUL", k)
	}
	return nil
}

func cycleString(m *Manifest, start int) string {
	parts := []string{fmt.Sprint(start)}
	for j := m.Resources[start].Parent; j != start; j = m.Resources[j].Parent {
		parts = append(parts, fmt.Sprint(j))
	}
	parts = append(parts, fmt.Sprint(start))
	return strings.Join(parts, " -> parent ")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func validPath(p string) error {
	switch {
	case p == "":
		return errors.New("empty path")
	case !strings.HasPrefix(p, "/"):
		return fmt.Errorf("path %q must start with /", p)
	case p == "/":
		return errors.New(`path "/" names a directory; give the file a name such as /index.html`)
	case path.Clean(p) != p:
		return fmt.Errorf("path %q is not clean (no //, ., .. or trailing /)", p)
	case p == "/"+ManifestFile:
		return fmt.Errorf("path %q is reserved for the manifest itself", p)
	}
	for _, c := range p {
		if c <= ' ' || c >= 0x7f || strings.ContainsRune(`"'<>\?#%`, c) {
			return fmt.Errorf("path %q contains %q; use letters, digits and -._~/ only", p, c)
		}
	}
	return nil
}

func validHostName(h string) error {
	if h == "" || len(h) > 253 {
		return errors.New("not a host name")
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return fmt.Errorf("bad label %q", label)
		}
		for _, c := range label {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
				return fmt.Errorf("label %q: use lower-case letters, digits and -", label)
			}
		}
	}
	return nil
}

func validHeader(k, v string) error {
	if k == "" {
		return errors.New("empty header name")
	}
	for _, c := range k {
		if c <= ' ' || c >= 0x7f || strings.ContainsRune(`()<>@,;:\"/[]?={}`, c) {
			return fmt.Errorf("header name %q contains %q", k, c)
		}
	}
	switch strings.ToLower(k) {
	case "content-length", "content-type", "transfer-encoding", "connection":
		return fmt.Errorf("header %q is set by the server from the manifest, not in headers", k)
	}
	if strings.ContainsAny(v, "\r\n\x00") {
		return fmt.Errorf("header %q value contains a line break or NUL", k)
	}
	return nil
}
