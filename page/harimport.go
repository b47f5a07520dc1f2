package page

import (
	"errors"
	"fmt"
	"mime"
	"net/url"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spdylab/spdylab/har"
)

// Import turns one recorded page load (a HAR) into a manifest spdylab can
// serve and load. What is replayed and how follows the rules below; each
// one that applies to a recording is written into Manifest.Notes and the
// import report, so that a replay says what it left out.

// Reasons an entry is not replayed (one rule each).
const (
	SkipOtherPage   = "belongs to another page of the HAR"
	SkipScheme      = "not an http(s) URL (data:, blob:, chrome-extension: ...): never fetched over the network"
	SkipSocket      = "websocket (status 101, ws:, wss:), beacon/ping, event-source or CSP report: not a page resource"
	SkipMethod      = "method other than GET (POST and its body, OPTIONS preflight, HEAD): not replayed"
	SkipAborted     = "status 0 or negative, or none: aborted, blocked or still in flight when the recording ended"
	SkipNoBody      = "status 204 or 304: no body to replay"
	SkipBadHost     = "host is not a valid lower-case DNS name (IP literal, underscore, ...): the lab cannot name it"
	SkipBadTime     = "no valid startedDateTime: cannot be placed in the load"
	SkipLostRedirct = "redirect whose target is not replayed or was requested before it"
)

// Rules stated in every imported manifest.
var importRules = []string{
	"origins: every recorded host is served over https under its own name (the recorded scheme, and a port other than the scheme's default, are kept in scheme/port)",
	"sizes: a body is served identity-encoded with the recorded bytes on the wire (response.bodySize, else _transferSize minus headers, else content.size) as size; encoded_size, decoded_size and content_encoding keep the recording; a missing or negative size counts as 0",
	"bodies are synthesized: HTML, CSS and scripts that reference their children, decodable JPEG/PNG/GIF (other image formats become PNG, or GIF below PNG's minimum), other types as filler; a body smaller than the smallest valid file of its type or than its references is grown to fit",
	"status: the recorded status is served (206 as 200 with the recorded bytes); a redirect answers Location with the next URL of its chain",
	"headers: recorded response headers are served minus hop-by-hop, framing (length, type, encoding), location, alt-svc, content-security-policy, link, refresh, report-to and nel; recorded request headers are kept in request_headers",
	"discovery: a parser (or preload) initiator in an HTML or CSS parent becomes a reference at the byte offset that the share of the parent's receive time elapsed at the child's request gives (line/column order references of one parent); a script initiator becomes a request made by the parent script (or the document's DOMContentLoaded script) after the time between the parent's end and the child's request; a redirect target is requested when its 3xx arrives",
	"onload: the page's pageTimings.onLoad, moved to the root request's clock (start_ms), is onload_ms; none when not recorded (until onload then refuses the page)",
	"lcp: the page's pageTimings._largestContentfulPaintUrl (spdylab record writes it) names the largest contentful paint's image, lcp_resource; none for a text block or when not recorded",
	"discovery without a usable initiator (none recorded, unknown URL, an initiator not requested earlier): the HTML or CSS document still arriving when the child was requested (latest started) references it; else the script that finished last before it requests it; else the main document references it",
}

// ImportOptions choose what to import.
type ImportOptions struct {
	Page string // the HAR page id; "" = the only page
	Name string // manifest name; "" = from the file name or the page id
}

// ImportReport says what an import kept and dropped.
type ImportReport struct {
	Source     string         `json:"source"`
	Page       string         `json:"page"`
	Recorded   int            `json:"recorded"`   // entries of the page
	Replayable int            `json:"replayable"` // resources in the manifest
	Hosts      int            `json:"hosts"`
	Depth      int            `json:"depth"`
	Skipped    map[string]int `json:"skipped"`     // reason -> entries
	Inferred   int            `json:"inferred"`    // parents found by the heuristic
	Grown      int            `json:"grown"`       // bodies grown to a valid minimum
	GrownBytes int64          `json:"grown_bytes"` // bytes added by growing
	Bytes      int64          `json:"bytes"`       // total served body bytes
	Upgrades   int            `json:"upgrades"`    // http->https upgrades replayed under a marked URL
	Repeats    int            `json:"repeats"`     // repeated requests of a URL replayed under a marked URL
}

// ImportHARFile reads file and imports one page of it.
func ImportHARFile(file string, opt ImportOptions) (*Manifest, *ImportReport, error) {
	b, err := ReadHARFile(file)
	if err != nil {
		return nil, nil, err
	}
	if opt.Name == "" {
		opt.Name = strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	}
	m, rep, err := ImportHAR(b, opt)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", file, err)
	}
	m.Source = "har:" + file + "#" + rep.Page
	rep.Source = m.Source
	return m, rep, nil
}

// ImportSite imports a HAR file and writes the site to dir (atomically:
// on any error nothing is written).
func ImportSite(file, dir string, opt ImportOptions) (*ImportReport, error) {
	m, rep, err := ImportHARFile(file, opt)
	if err != nil {
		return nil, err
	}
	if err := m.WriteSite(dir); err != nil {
		return nil, err
	}
	return rep, nil
}

// recorded is one entry of the page, as import sees it.
type recorded struct {
	entry      int // index in log.entries
	start      time.Time
	firstByte  time.Time
	end        time.Time
	scheme     string
	host       string
	port       int
	path       string
	query      string
	key        string // authority + target: one URL of the replay
	origKey    string // key as recorded (key has a marker for a replayed upgrade or repeat)
	replay     string // ReplayUpgrade, ReplayRepeat or ""
	typ        string
	ctype      string
	recType    string // recorded content type when the body is another
	status     int
	size       int
	encoded    int
	decoded    int
	encoding   string
	reqHdr     map[string]string
	respHdr    map[string]string
	redirect   string // key of the redirect target ("" when none)
	initiator  string // key of the initiator URL
	initType   string
	connectMs  float64 // TCP connect (HAR connect minus ssl), 0 = none recorded
	line, col  float64
	hasLine    bool
	redirectTo int  // index in the kept list of the redirect target, -1
	isTarget   bool // some redirect leads here
}

// ImportHAR imports one page of a HAR.
func ImportHAR(b []byte, opt ImportOptions) (*Manifest, *ImportReport, error) {
	log, err := ParseHAR(b)
	if err != nil {
		return nil, nil, err
	}
	pageID, err := choosePage(log, opt.Page)
	if err != nil {
		return nil, nil, err
	}
	rep := &ImportReport{Page: pageID, Skipped: map[string]int{}}
	var recs []*recorded
	for i := range log.Entries {
		e := &log.Entries[i]
		if pageID != "" && e.Pageref != "" && e.Pageref != pageID {
			continue
		}
		rep.Recorded++
		r, reason := readEntry(i, e)
		if reason != "" {
			rep.Skipped[reason]++
			continue
		}
		recs = append(recs, r)
	}
	if len(recs) == 0 {
		return nil, nil, fmt.Errorf("page %q: none of its %d entries is replayable (%s)", pageID, rep.Recorded, skippedString(rep.Skipped))
	}
	recs = keepReplayable(recs, rep)
	if len(recs) == 0 || (!isRedirectStatus(recs[0].status) && recs[0].typ != TypeHTML) {
		first := "nothing"
		if len(recs) > 0 {
			first = fmt.Sprintf("%s (%s, status %d)", recs[0].key, recs[0].typ, recs[0].status)
		}
		return nil, nil, fmt.Errorf("page %q: the first replayable request is %s, not an HTML document or a redirect to one", pageID, first)
	}
	m, err := buildManifest(recs, rep)
	if err != nil {
		return nil, nil, fmt.Errorf("page %q: %w", pageID, err)
	}
	m.Name = opt.Name
	if m.Name == "" {
		m.Name = pageID
	}
	if m.Name == "" {
		m.Name = "imported"
	}
	m.Seed = 1
	m.OnLoadMs = recordedOnload(log, pageID, recs[0].start)
	m.Notes = append(append([]string{}, importRules...), reportNotes(rep)...)
	var lcpNote string
	if m.LCPResource, lcpNote = recordedLCP(log, pageID, m); lcpNote != "" {
		m.Notes = append(m.Notes, lcpNote)
	}
	if err := m.Validate(); err != nil {
		// A bug of import, not of the recording: say so.
		return nil, nil, fmt.Errorf("page %q: internal error: the imported manifest is invalid: %w", pageID, err)
	}
	rep.Replayable = len(m.Resources)
	rep.Hosts = len(m.Hosts)
	rep.Depth = m.Summarize().Depth
	rep.Bytes = m.TotalBytes()
	return m, rep, nil
}

// choosePage picks the page to import: the given id, or the only page. A
// HAR without pages (they are optional in HAR 1.2) is one page.
func choosePage(log *har.RecordedLog, want string) (string, error) {
	var ids []string
	for _, p := range log.Pages {
		ids = append(ids, p.ID)
	}
	if want != "" {
		for _, id := range ids {
			if id == want {
				return id, nil
			}
		}
		if len(ids) == 0 {
			return "", fmt.Errorf("--page %q: the HAR lists no pages", want)
		}
		return "", fmt.Errorf("--page %q: no such page; the HAR has %s", want, strings.Join(quoteAll(ids), ", "))
	}
	switch len(ids) {
	case 0:
		return "", nil
	case 1:
		return ids[0], nil
	}
	return "", fmt.Errorf("the HAR has %d pages (%s); choose one with --page", len(ids), strings.Join(quoteAll(ids), ", "))
}

func quoteAll(s []string) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = strconv.Quote(x)
	}
	return out
}

func skippedString(s map[string]int) string {
	var parts []string
	for _, reason := range sortedReasons(s) {
		parts = append(parts, fmt.Sprintf("%d %s", s[reason], reason))
	}
	if len(parts) == 0 {
		return "none skipped"
	}
	return strings.Join(parts, "; ")
}

func sortedReasons(s map[string]int) []string {
	var out []string
	for k := range s {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Notes are what this import left out or changed, one line each.
func (rep *ImportReport) Notes() []string { return reportNotes(rep) }

func reportNotes(rep *ImportReport) []string {
	var out []string
	for _, reason := range sortedReasons(rep.Skipped) {
		out = append(out, fmt.Sprintf("not replayed: %d entries: %s", rep.Skipped[reason], reason))
	}
	if rep.Inferred > 0 {
		out = append(out, fmt.Sprintf("discovery inferred by the heuristic for %d resources", rep.Inferred))
	}
	out = append(out, replayNotes(rep)...)
	if rep.Grown > 0 {
		out = append(out, fmt.Sprintf("grown: %d bodies by %d bytes in all, to the smallest valid file of their type or to fit their references", rep.Grown, rep.GrownBytes))
	}
	return out
}

func isRedirectStatus(s int) bool { return s >= 300 && s < 400 }

// readEntry turns one HAR entry into a replay candidate, or names the rule
// that leaves it out.
func readEntry(i int, e *har.RecordedEntry) (*recorded, string) {
	u, err := url.Parse(strings.TrimSpace(e.Request.URL))
	if err != nil {
		return nil, SkipScheme
	}
	scheme := strings.ToLower(u.Scheme)
	switch scheme {
	case "http", "https":
	case "ws", "wss":
		return nil, SkipSocket
	default:
		return nil, SkipScheme
	}
	status := -1
	if s, ok := e.Response.Status.Positive(); ok {
		status = int(s)
	}
	rt := strings.ToLower(e.ResourceType)
	switch {
	case status == 101 || rt == "websocket" || rt == "ping" || rt == "beacon" || rt == "eventsource" || rt == "cspviolationreport":
		return nil, SkipSocket
	case e.Request.Method != "" && !strings.EqualFold(e.Request.Method, "GET"):
		return nil, SkipMethod
	case status <= 0 || status > 599:
		return nil, SkipAborted
	case status == 204 || status == 304:
		return nil, SkipNoBody
	}
	start, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(e.StartedDateTime))
	if err != nil {
		return nil, SkipBadTime
	}
	r := &recorded{entry: i, start: start, scheme: scheme, status: status, redirectTo: -1}
	var ok bool
	if r.host, r.port, r.path, r.query, ok = replayURL(u); !ok {
		return nil, SkipBadHost
	}
	r.key = urlKeyOf(r.host, r.port, r.path, r.query)
	if r.status == 206 {
		r.status = 200
	}
	r.timing(e)
	r.reqHdr = requestHeadersOf(e.Request.Headers)
	r.respHdr = responseHeadersOf(e.Response.Headers)
	r.encoding = strings.ToLower(headerValue(e.Response.Headers, "content-encoding"))
	if r.encoding == "" {
		r.encoding = strings.ToLower(e.ContentEncoding)
	}
	r.sizes(e)
	r.typ, r.ctype, r.recType = classify(e.Response.Content.MimeType, headerValue(e.Response.Headers, "content-type"), rt)
	if isRedirectStatus(r.status) {
		r.typ, r.ctype, r.recType = TypeOther, "text/html", ""
		loc := e.Response.RedirectURL
		if loc == "" {
			loc = headerValue(e.Response.Headers, "location")
		}
		if t, err := u.Parse(strings.TrimSpace(loc)); err == nil && loc != "" {
			if h, p, pa, q, ok := replayURL(t); ok && (t.Scheme == "http" || t.Scheme == "https") {
				r.redirect = urlKeyOf(h, p, pa, q)
			}
		}
	}
	iu, it, line, col, hasLine := e.Initiator()
	if t, err := url.Parse(strings.TrimSpace(iu)); err == nil && iu != "" {
		if h, p, pa, q, ok := replayURL(t); ok {
			r.initiator = urlKeyOf(h, p, pa, q)
		}
	}
	r.initType, r.line, r.col, r.hasLine = strings.ToLower(it), line, col, hasLine
	return r, ""
}

// replayURL is the host, port (0 = default), path and query a URL has in
// the replay: lower-case host, fragment dropped, bytes outside the set
// validTarget accepts percent-encoded.
func replayURL(u *url.URL) (host string, port int, path, query string, ok bool) {
	host = strings.ToLower(u.Hostname())
	if validHostName(host) != nil || strings.Trim(host, "0123456789.") == "" {
		return "", 0, "", "", false
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n <= 0 || n > 65535 {
			return "", 0, "", "", false
		}
		if !(n == 443 || (n == 80 && strings.EqualFold(u.Scheme, "http"))) {
			port = n
		}
	}
	path = encodeTarget(u.EscapedPath(), false)
	if path == "" || path[0] != '/' {
		path = "/" + path
	}
	return host, port, path, encodeTarget(u.RawQuery, true), true
}

func urlKeyOf(host string, port int, path, query string) string {
	k := host
	if port != 0 {
		k += ":" + strconv.Itoa(port)
	}
	k += path
	if query != "" {
		k += "?" + query
	}
	return k
}

// encodeTarget percent-encodes every byte validTarget refuses, and a '%'
// that does not start an escape.
func encodeTarget(s string, query bool) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' && i+2 < len(s)+0 && isHex(s[i+1]) && isHex(s[i+2]) {
			b.WriteByte(c)
			continue
		}
		if c != '%' && targetByte(c, query) {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// timing places the entry's first byte and end on the recording's clock.
func (r *recorded) timing(e *har.RecordedEntry) {
	var wait float64
	for _, t := range []har.Number{e.Timings.Blocked, e.Timings.DNS, e.Timings.Connect, e.Timings.Send, e.Timings.Wait} {
		if v, ok := t.Positive(); ok {
			wait += v
		}
	}
	ms := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
	r.connectMs = tcpConnectMs(e.Timings)
	r.firstByte = r.start.Add(ms(wait))
	r.end = r.firstByte
	if total, ok := e.Time.Positive(); ok && total > wait {
		r.end = r.start.Add(ms(total))
	} else if v, ok := e.Timings.Receive.Positive(); ok {
		r.end = r.firstByte.Add(ms(v))
	}
}

// tcpConnectMs is an entry's TCP connect time: HAR's connect, which
// includes ssl when ssl is given (HAR 1.2), minus ssl; 0 when the entry
// reused a connection (connect -1 or 0).
func tcpConnectMs(t har.RecordedTimings) float64 {
	c, ok := t.Connect.Positive()
	if !ok {
		return 0
	}
	if s, ok := t.SSL.Positive(); ok && s < c {
		c -= s
	}
	return c
}

// sizes reads the body sizes: on the wire (bodySize; else _transferSize
// minus the response headers; else content.size) and decoded
// (content.size; else the wire size).
func (r *recorded) sizes(e *har.RecordedEntry) {
	resp := &e.Response
	body, hasBody := resp.BodySize.Positive()
	transfer, hasTransfer := resp.TransferSize.Positive()
	content, hasContent := resp.Content.Size.Positive()
	var wire float64
	switch {
	case hasBody && body > 0:
		wire = body
	case hasTransfer && transfer > 0:
		hdr, ok := resp.HeadersSize.Positive()
		if !ok {
			hdr = 0
			for _, h := range resp.Headers {
				hdr += float64(len(h.Name) + len(h.Value) + 4)
			}
		}
		wire = max(0, transfer-hdr)
	case hasBody:
		wire = body
	case hasContent:
		wire = content
	}
	dec := content
	if !hasContent {
		dec = wire
	}
	const maxBody = 1 << 30 // one body of a page; larger sizes are recording errors
	r.encoded = int(min(wire, maxBody))
	r.decoded = int(min(dec, maxBody))
	r.size = r.encoded
}

// classify maps the recorded media type (or, when it says nothing, the
// resource type) to a manifest type and the content type spdylab serves.
func classify(mimeType, header, resourceType string) (typ, ctype, recType string) {
	raw := mimeType
	if raw == "" {
		raw = header
	}
	mt, params, err := mime.ParseMediaType(raw)
	if err != nil || mt == "x-unknown" || mt == "application/octet-stream" {
		mt, params = "", nil
	}
	ctype = raw
	if mt == "" {
		ctype = ""
	} else if err == nil {
		ctype = mime.FormatMediaType(mt, params)
	}
	switch {
	case mt == "text/html" || mt == "application/xhtml+xml":
		return TypeHTML, DefaultContentType(TypeHTML), recordedIf(mt, "text/html", ctype)
	case mt == "text/css":
		return TypeCSS, "text/css", ""
	case contains(knownTypes[TypeJS], mt) || strings.HasSuffix(mt, "ecmascript") || mt == "text/x-javascript":
		if contains(knownTypes[TypeJS], mt) {
			return TypeJS, mt, ""
		}
		return TypeJS, "application/javascript", ctype
	case strings.HasPrefix(mt, "image/"):
		if contains(knownTypes[TypeImage], mt) {
			return TypeImage, mt, ""
		}
		return TypeImage, "image/png", ctype // size checked later
	case mt == "application/x-shockwave-flash":
		return TypeFlash, mt, ""
	case mt != "":
		return TypeOther, ctype, ""
	}
	switch resourceType {
	case "document":
		return TypeHTML, DefaultContentType(TypeHTML), ""
	case "stylesheet":
		return TypeCSS, "text/css", ""
	case "script":
		return TypeJS, "application/javascript", ""
	case "image":
		return TypeImage, "image/png", ""
	}
	return TypeOther, "application/octet-stream", ""
}

func recordedIf(mt, want, ctype string) string {
	if mt != want {
		return ctype
	}
	return ""
}

// keepReplayable orders the candidates by request time, replays http->https
// upgrades and repeated URLs under a marked URL of their own (markReplay),
// and drops, with its rule, a redirect that leads nowhere.
func keepReplayable(recs []*recorded, rep *ImportReport) []*recorded {
	sort.SliceStable(recs, func(a, b int) bool { return recs[a].start.Before(recs[b].start) })
	seen, upgrades := map[string]int{}, map[string]int{}
	out := recs
	for _, r := range out {
		r.origKey = r.key
		if isRedirectStatus(r.status) && r.redirect == r.key {
			marker := MarkerUpgrade
			if n := upgrades[r.key]; n > 0 {
				marker += "=" + strconv.Itoa(n)
			}
			upgrades[r.key]++
			r.markReplay(ReplayUpgrade, marker)
			rep.Upgrades++
			continue // its target is the URL's next request
		}
		if n := seen[r.key]; n > 0 {
			r.markReplay(ReplayRepeat, MarkerRepeat+strconv.Itoa(n))
			rep.Repeats++
		}
		seen[r.origKey]++
	}
	// Redirect targets come later than their redirects; walking backwards
	// drops whole dead chains.
	pos := map[string]int{}
	keep := make([]bool, len(out))
	for i := len(out) - 1; i >= 0; i-- {
		r := out[i]
		keep[i] = true
		if isRedirectStatus(r.status) {
			j, ok := pos[r.redirect] // the next request of the URL redirected to
			if !ok || !keep[j] || out[j].isTarget {
				keep[i] = false
				rep.Skipped[SkipLostRedirct]++
				continue
			}
			out[j].isTarget = true
			r.redirectTo = j
		}
		pos[r.origKey] = i
	}
	var kept []*recorded
	newIndex := make([]int, len(out))
	for i, r := range out {
		newIndex[i] = len(kept)
		if keep[i] {
			kept = append(kept, r)
		}
	}
	for _, r := range kept {
		if r.redirectTo >= 0 {
			r.redirectTo = newIndex[r.redirectTo]
		}
	}
	return kept
}

// errNoDocument: the redirect chain of the root ends elsewhere.
var errNoDocument = errors.New("the first request's redirect chain does not end in an HTML document")
