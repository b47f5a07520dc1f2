package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/spdylab/spdylab/spdy"
)

// fetch opens a new SPDY/3.1 session to addr and GETs the probe resource.
// It connects from 127.0.0.2: another client than the attacker (who uses
// 127.0.0.1), as a server's per-client limits tell them apart.
func fetch(addr string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}}
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(timeout))
	cc, err := spdy.NewClientConn(c, &spdy.ClientConfig{})
	if err != nil {
		return err
	}
	defer cc.Close()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+probePath, nil)
	if err != nil {
		return err
	}
	resp, err := cc.RoundTrip(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	n, err := io.Copy(io.Discard, resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK || n != probeSize {
		return fmt.Errorf("status %d, %d bytes", resp.StatusCode, n)
	}
	return nil
}

// probes counts fetches made while an attack runs.
type probes struct {
	ok, n    int
	firstErr error
}

func (p probes) String() string {
	s := "yes"
	if p.ok < p.n {
		s = "no"
	}
	s = fmt.Sprintf("%s (%d/%d)", s, p.ok, p.n)
	if p.firstErr != nil {
		s += fmt.Sprintf(": %v", p.firstErr)
	}
	return s
}

// probeDuring fetches the probe resource one second into the attack and
// then every two seconds, each with a 3 s timeout, until stop.
func probeDuring(addr string, stop <-chan struct{}) probes {
	var p probes
	wait := time.Second
	for {
		select {
		case <-stop:
			return p
		case <-time.After(wait):
		}
		p.n++
		if err := fetch(addr, 3*time.Second); err != nil {
			if p.firstErr == nil {
				p.firstErr = err
			}
		} else {
			p.ok++
		}
		wait = 2 * time.Second
	}
}

// servedAfter fetches the probe resource once the attacker is gone,
// trying for up to 10 s.
func servedAfter(addr string) string {
	start := time.Now()
	for {
		err := fetch(addr, 5*time.Second)
		took := time.Since(start)
		switch {
		case err == nil && took < time.Second:
			return "yes"
		case err == nil:
			return fmt.Sprintf("yes, after %.1f s", took.Seconds())
		case took > 10*time.Second:
			return fmt.Sprintf("no: %v", err)
		}
		time.Sleep(500 * time.Millisecond)
	}
}
