package loader

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/http2"

	"github.com/spdylab/spdylab/internal/certs"
	"github.com/spdylab/spdylab/page"
)

// site is a generated page written to a temporary directory.
type site struct {
	m   *page.Manifest
	dir string
}

func newSite(t testing.TB, name string, shards int) *site {
	t.Helper()
	m, err := page.Generate(name, shards, 7, "")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := m.WriteSite(dir); err != nil {
		t.Fatal(err)
	}
	return &site{m: m, dir: dir}
}

// hostStats counts what one test server saw.
type hostStats struct {
	mu       sync.Mutex
	conns    int
	open     int
	maxOpen  int
	requests map[string]int
	order    []string
	priority map[string]uint8 // SPDY priority each path was requested with (spdyServers)
}

func (s *hostStats) connState(_ net.Conn, st http.ConnState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch st {
	case http.StateNew:
		s.conns++
		s.open++
		s.maxOpen = max(s.maxOpen, s.open)
	case http.StateClosed, http.StateHijacked:
		s.open--
	}
}

func (s *hostStats) saw(path string) {
	s.mu.Lock()
	s.requests[path]++
	s.order = append(s.order, path)
	s.mu.Unlock()
}

// goServers starts one Go TLS server per manifest host on loopback, speaking
// the given ALPN protocols, all serving handler (nil = the site's files).
// It returns the target and per-host statistics.
func goServers(t testing.TB, st *site, alpn []string, handler func(host string, stats *hostStats) http.Handler) (Target, map[string]*hostStats) {
	t.Helper()
	cert, err := certs.SelfSigned(st.m.Hosts...)
	if err != nil {
		t.Fatal(err)
	}
	target := Target{Manifest: st.m, BaseURLs: map[string]string{}}
	stats := map[string]*hostStats{}
	for _, host := range st.m.Hosts {
		hs := &hostStats{requests: map[string]int{}}
		stats[host] = hs
		var h http.Handler
		if handler != nil {
			h = handler(host, hs)
		} else {
			files := fileHandler(st.dir)
			h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				hs.saw(r.URL.Path)
				files.ServeHTTP(w, r)
			})
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		srv := &http.Server{
			Handler:   h,
			ConnState: hs.connState,
			TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: alpn},
			ErrorLog:  quietLog(),
		}
		// Serve exactly the protocols asked for: net/http would add h2.
		srv.TLSNextProto = map[string]func(*http.Server, *tls.Conn, http.Handler){}
		for _, p := range alpn {
			if p == "h2" {
				if err := http2.ConfigureServer(srv, &http2.Server{}); err != nil {
					t.Fatal(err)
				}
				srv.TLSConfig.NextProtos = alpn
			}
		}
		go srv.ServeTLS(ln, "", "")
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			if srv.Shutdown(ctx) != nil {
				srv.Close()
			}
		})
		target.BaseURLs[host] = "https://" + ln.Addr().String()
	}
	return target, stats
}

// nginxServer runs nginx as a child process serving the site on one
// loopback port for every host, with http/1.1 and h2 by ALPN.
// nginxServer runs nginx (HTTPS and h2) over st; directives go into its
// server block.
func nginxServer(t testing.TB, st *site, directives ...string) Target {
	t.Helper()
	bin := "/usr/sbin/nginx"
	if _, err := os.Stat(bin); err != nil {
		if p, lerr := exec.LookPath("nginx"); lerr == nil {
			bin = p
		} else {
			t.Fatalf("nginx is not installed (%v); run scripts/deps.sh", err)
		}
	}
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := certs.WriteFiles(certFile, keyFile, st.m.Hosts...); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nginx binds it itself; the port is free again
	conf := fmt.Sprintf(`daemon off;
master_process off;
worker_processes 1;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log warn;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path %[1]s/body;
  proxy_temp_path %[1]s/proxy;
  fastcgi_temp_path %[1]s/fastcgi;
  uwsgi_temp_path %[1]s/uwsgi;
  scgi_temp_path %[1]s/scgi;
  types { text/html html; text/css css; application/javascript js; image/jpeg jpg; image/png png; image/gif gif; }
  default_type application/octet-stream;
  server {
    listen %[2]s ssl http2;
    ssl_certificate %[3]s;
    ssl_certificate_key %[4]s;
    ssl_protocols TLSv1.2 TLSv1.3;
    root %[5]s;
    %[6]s
  }
}
`, dir, addr, certFile, keyFile, st.dir, strings.Join(directives, "\n    "))
	confFile := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(confFile, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-c", confFile, "-p", dir, "-e", filepath.Join(dir, "error.log"))
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting nginx: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
	})
	// Ready when the port accepts connections.
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			break
		}
		select {
		case err := <-exited:
			log, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			t.Fatalf("nginx exited: %v\n%s%s", err, out.String(), log)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("nginx did not listen on %s: %v", addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	target := Target{Manifest: st.m, BaseURLs: map[string]string{}}
	for _, h := range st.m.Hosts {
		target.BaseURLs[h] = "https://" + addr
	}
	return target
}

// quietLog keeps the servers' complaints about connections the loader
// closes (at the end of a load, on purpose) out of the test output.
func quietLog() *log.Logger { return log.New(io.Discard, "", 0) }

// fileHandler serves dir's files by exact path (http.FileServer would
// redirect /index.html to /).
func fileHandler(dir string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f, err := os.Open(filepath.Join(dir, filepath.FromSlash(filepath.Clean("/"+r.URL.Path))))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil || fi.IsDir() {
			http.NotFound(w, r)
			return
		}
		http.ServeContent(w, r, fi.Name(), fi.ModTime(), f)
	})
}
