package server

import (
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net"
	"net/http"
	"os"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/spdylab/spdylab/internal/tcpopt"
)

// Lab endpoints. Everything under LabPrefix is generated, never read from Root.
const (
	LabPrefix = "/_spdylab/"
	// BytesPath?n=N&seed=S answers N deterministic bytes (see DeterministicReader).
	BytesPath = LabPrefix + "bytes"
	// SHA256Path (and any path below it) hashes a request body; the answer is
	// UploadResult as JSON.
	SHA256Path = LabPrefix + "sha256"
	// InfoPath answers RequestInfo as JSON: what the server saw of the request.
	InfoPath = LabPrefix + "info"
	// MaxBytes caps the sized-response endpoint so one request cannot ask for
	// an unbounded stream.
	MaxBytes = 1 << 30
)

// UploadResult is the JSON answer of SHA256Path.
type UploadResult struct {
	SHA256   string `json:"sha256"`
	Length   int64  `json:"length"`
	Protocol string `json:"protocol"`
}

// RequestInfo is the JSON answer of InfoPath.
type RequestInfo struct {
	Protocol string              `json:"protocol"`
	Method   string              `json:"method"`
	Path     string              `json:"path"`
	Host     string              `json:"host"`
	Header   map[string][]string `json:"header"`
	Priority int                 `json:"priority"` // SPDY priority 0-7, -1 when not SPDY
	// CC is the TCP congestion control of the connection the request came
	// on, as the kernel reports it (shows that Config.CC took effect).
	CC string `json:"cc,omitempty"`
	// NotSentLowat is the connection's TCP_NOTSENT_LOWAT (0 = kernel default).
	NotSentLowat int `json:"notsent_lowat"`
	// NoDelay is the connection's TCP_NODELAY (false: Nagle on, Config.Nagle).
	NoDelay bool `json:"nodelay"`
	// TLSVersion and CipherSuite are what the connection negotiated
	// ("" without TLS or where the request carries no TLS state).
	TLSVersion  string `json:"tls_version,omitempty"`
	CipherSuite string `json:"cipher_suite,omitempty"`
}

// resourceMeta is what the page manifest says about one file.
type resourceMeta struct {
	ContentType string
	Headers     map[string]string
	// Recorded pages only: the site file with the body, the status to
	// answer and, for a redirect, its Location.
	File     string
	Status   int
	Location string
}

// replayKey identifies a resource of a recorded page: one site serves all
// of its hosts, and they share paths ("/", "/favicon.ico").
func replayKey(host, target string) string { return strings.ToLower(host) + target }

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	release, ok := s.admitH2(w, r)
	if !ok {
		return
	}
	defer release()
	defer sampleAfterResponse(r)
	recordRequest(r) // so the deps push policy skips what was asked for
	if s.cfg.Log != nil {
		lw := &loggingWriter{ResponseWriter: w, status: 200}
		start := time.Now()
		s.serveHTTP(lw, r)
		s.cfg.Log.Printf("%s %s %s %d %dB %s", requestProtocol(r), r.Method, r.URL.RequestURI(), lw.status, lw.n, time.Since(start).Round(time.Microsecond))
		return
	}
	s.serveHTTP(w, r)
}

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	switch {
	case p == BytesPath:
		s.serveBytes(w, r)
	case p == SHA256Path || strings.HasPrefix(p, SHA256Path+"/"):
		serveSHA256(w, r)
	case p == InfoPath:
		serveInfo(w, r)
	case strings.HasPrefix(p, LabPrefix):
		http.Error(w, "unknown lab endpoint "+p, http.StatusNotFound)
	default:
		s.serveFile(w, r)
	}
}

func (s *Server) serveBytes(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, BytesPath+" answers GET and HEAD only", http.StatusMethodNotAllowed)
		return
	}
	q := r.URL.Query()
	n, err := strconv.ParseInt(q.Get("n"), 10, 64)
	if err != nil || n < 0 || n > MaxBytes {
		http.Error(w, fmt.Sprintf("%s: n must be a byte count between 0 and %d, got %q", BytesPath, MaxBytes, q.Get("n")), http.StatusBadRequest)
		return
	}
	var seed uint64
	if v := q.Get("seed"); v != "" {
		if seed, err = strconv.ParseUint(v, 10, 32); err != nil {
			http.Error(w, fmt.Sprintf("%s: seed must be an unsigned 32-bit integer, got %q", BytesPath, v), http.StatusBadRequest)
			return
		}
	}
	s.push(w, r, nil)
	h := w.Header()
	h.Set("Content-Type", "application/octet-stream")
	h.Set("Content-Length", strconv.FormatInt(n, 10))
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return
	}
	if body := s.bytesCache.get(n, uint32(seed)); body != nil {
		w.Write(body)
		return
	}
	bp := copyBufs.Get().(*[]byte)
	io.CopyBuffer(w, DeterministicReader(n, uint32(seed)), *bp)
	copyBufs.Put(bp)
}

var copyBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// bytesCache keeps generated bodies of the sized-response endpoint, so that
// benchmarks asking for the same few sizes measure the protocol stack, not
// the generator. It never evicts: once maxCachedTotal bytes are held, further
// bodies are generated per request.
type bytesCache struct {
	mu    sync.Mutex
	total int64
	m     map[[2]int64][]byte
}

const (
	maxCachedBody  = 16 << 20
	maxCachedTotal = 64 << 20
)

func (c *bytesCache) get(n int64, seed uint32) []byte {
	if n > maxCachedBody {
		return nil
	}
	key := [2]int64{n, int64(seed)}
	c.mu.Lock()
	defer c.mu.Unlock()
	if b, ok := c.m[key]; ok {
		return b
	}
	if c.total+n > maxCachedTotal {
		return nil
	}
	if c.m == nil {
		c.m = map[[2]int64][]byte{}
	}
	b := DeterministicBytes(int(n), seed)
	c.m[key] = b
	c.total += n
	return b
}

func serveSHA256(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost && r.Method != http.MethodPut {
		w.Header().Set("Allow", "POST, PUT")
		http.Error(w, SHA256Path+" hashes request bodies: use POST or PUT", http.StatusMethodNotAllowed)
		return
	}
	h := sha256.New()
	n, err := io.Copy(h, r.Body)
	if err != nil {
		http.Error(w, "reading the request body: "+err.Error(), http.StatusBadRequest)
		return
	}
	writeJSON(w, UploadResult{SHA256: hex.EncodeToString(h.Sum(nil)), Length: n, Protocol: requestProtocol(r)})
}

func serveInfo(w http.ResponseWriter, r *http.Request) {
	// Drain a body, if any, so that flow control is exercised the same way
	// as for any other endpoint.
	io.Copy(io.Discard, r.Body)
	writeJSON(w, RequestInfo{
		Protocol:     requestProtocol(r),
		Method:       r.Method,
		Path:         r.URL.RequestURI(),
		Host:         r.Host,
		Header:       r.Header,
		Priority:     requestPriority(r),
		CC:           connCongestion(r),
		NotSentLowat: connNotSentLowat(r),
		NoDelay:      connNoDelay(r),
		TLSVersion:   tlsVersionOf(r),
		CipherSuite:  cipherSuiteOf(r),
	})
}

func writeJSON(w http.ResponseWriter, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	b = append(b, '\n')
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.Header().Set("Cache-Control", "no-store")
	w.Write(b)
}

func (s *Server) serveFile(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "files answer GET and HEAD only", http.StatusMethodNotAllowed)
		return
	}
	if s.root == nil {
		http.NotFound(w, r)
		return
	}
	if meta, ok := s.replay[replayKey(requestHostname(r), r.URL.RequestURI())]; ok {
		s.serveRecorded(w, r, meta)
		return
	}
	urlPath := path.Clean("/" + r.URL.Path)
	name := strings.TrimPrefix(urlPath, "/")
	if name == "" {
		name = "."
	}
	f, err := s.root.Open(name)
	if err == nil {
		if st, serr := f.Stat(); serr == nil && st.IsDir() {
			f.Close()
			name = path.Join(name, "index.html")
			f, err = s.root.Open(name)
		}
	}
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			http.Error(w, "404 page not found: "+urlPath, http.StatusNotFound)
		} else {
			// os.Root refuses paths that escape Root; say so plainly.
			http.Error(w, "cannot open "+urlPath+": "+err.Error(), http.StatusForbidden)
		}
		return
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		http.Error(w, "not a regular file: "+urlPath, http.StatusForbidden)
		return
	}

	meta := s.meta[urlPath]
	think(r, meta.Headers)
	h := w.Header()
	for k, v := range meta.Headers {
		h.Set(k, v)
	}
	ct := meta.ContentType
	if ct == "" {
		ct = mime.TypeByExtension(path.Ext(name))
	}
	if ct == "" {
		ct = "application/octet-stream"
	}
	h.Set("Content-Type", ct)
	s.push(w, r, h)
	// ServeContent sets the exact Content-Length and handles HEAD and Range.
	http.ServeContent(w, r, name, st.ModTime(), f)
}

// serveRecorded answers a resource of a recorded page as the recording
// did: its status (a redirect with its Location), its recorded headers and
// the synthesized body, identity-encoded with an exact Content-Length.
func (s *Server) serveRecorded(w http.ResponseWriter, r *http.Request, meta resourceMeta) {
	f, err := s.root.Open(strings.TrimPrefix(meta.File, "/"))
	if err != nil {
		http.Error(w, "recorded resource "+r.URL.RequestURI()+": "+err.Error(), http.StatusInternalServerError)
		return
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		http.Error(w, "recorded resource "+r.URL.RequestURI()+": body file is not a regular file", http.StatusInternalServerError)
		return
	}
	think(r, meta.Headers)
	h := w.Header()
	for k, v := range meta.Headers {
		h.Set(k, v)
	}
	if meta.Location != "" {
		h.Set("Location", meta.Location)
	}
	h.Set("Content-Type", meta.ContentType)
	h.Set("Content-Length", strconv.FormatInt(st.Size(), 10))
	s.push(w, r, h)
	w.WriteHeader(meta.Status)
	if r.Method == http.MethodHead {
		return
	}
	bp := copyBufs.Get().(*[]byte)
	io.CopyBuffer(w, f, *bp)
	copyBufs.Put(bp)
}

// requestHostname is the request's host name without a port.
func requestHostname(r *http.Request) string {
	if h, _, err := net.SplitHostPort(r.Host); err == nil {
		return h
	}
	return r.Host
}

// loggingWriter records status and size for the access log and keeps the
// optional interfaces (push, flush) of the writer it wraps visible.
type loggingWriter struct {
	http.ResponseWriter
	status int
	n      int64
}

func (l *loggingWriter) WriteHeader(code int) {
	l.status = code
	l.ResponseWriter.WriteHeader(code)
}

func (l *loggingWriter) Write(p []byte) (int, error) {
	n, err := l.ResponseWriter.Write(p)
	l.n += int64(n)
	return n, err
}

func (l *loggingWriter) Flush() {
	if f, ok := l.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (l *loggingWriter) Push(target string, opts *http.PushOptions) error {
	if p, ok := l.ResponseWriter.(http.Pusher); ok {
		return p.Push(target, opts)
	}
	return http.ErrNotSupported
}

func (l *loggingWriter) Unwrap() http.ResponseWriter { return l.ResponseWriter }

// openRoot opens Root for serving; an empty Root serves only lab endpoints.
func openRoot(dir string) (*os.Root, error) {
	if dir == "" {
		return nil, nil
	}
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("server: root: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("server: root %s is not a directory", dir)
	}
	return os.OpenRoot(dir)
}

// connKey carries the accepted connection in request contexts.
type connKey struct{}

func requestTCPConn(r *http.Request) *net.TCPConn {
	c, ok := r.Context().Value(connKey{}).(net.Conn)
	if !ok {
		return nil
	}
	tc, _ := tcpopt.Unwrap(c)
	return tc
}

func connNotSentLowat(r *http.Request) int {
	tc := requestTCPConn(r)
	if tc == nil {
		return 0
	}
	raw, err := tc.SyscallConn()
	if err != nil {
		return 0
	}
	v := 0
	raw.Control(func(fd uintptr) {
		v, _ = unix.GetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_NOTSENT_LOWAT)
	})
	return v
}

func connNoDelay(r *http.Request) bool {
	tc := requestTCPConn(r)
	if tc == nil {
		return false
	}
	on, err := tcpopt.NoDelay(tc)
	return err == nil && on
}

func tlsVersionOf(r *http.Request) string {
	if r.TLS == nil {
		return ""
	}
	return tls.VersionName(r.TLS.Version)
}

func cipherSuiteOf(r *http.Request) string {
	if r.TLS == nil {
		return ""
	}
	return tls.CipherSuiteName(r.TLS.CipherSuite)
}

func connCongestion(r *http.Request) string {
	tc := requestTCPConn(r)
	if tc == nil {
		return ""
	}
	cc, err := tcpopt.Congestion(tc)
	if err != nil {
		return ""
	}
	return cc
}
