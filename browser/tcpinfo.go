package browser

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/spdylab/spdylab/probe"
)

// Chromium's sockets belong to its network service process, so TCP_INFO
// cannot be read with getsockopt from here. `ss -tinpO`, run where Chromium
// runs (inside the client namespace), reads the kernel's tcp_info for every
// socket through sock_diag; the sockets are picked by owning PID (Chromium's
// process group) and read before Chromium is killed, while its idle
// keep-alive connections still exist. Connections Chromium closed during the
// load are not counted.

type tcpSummary struct {
	infos   []probe.TCPInfo
	in, out int64
}

func (s *session) tcpInfo(ctx context.Context) (tcpSummary, error) {
	socks, err := s.chromiumSockets(ctx)
	if err != nil {
		return tcpSummary{}, err
	}
	var sum tcpSummary
	for _, sk := range socks {
		if s.skipSockets[sk.key()] {
			continue
		}
		sk.info.ConnID = len(sum.infos) + 1
		sum.infos = append(sum.infos, sk.info)
		sum.in += int64(sk.info.BytesRecv)
		sum.out += sk.bytesSent
	}
	return sum, nil
}

// chromiumSockets are Chromium's TCP sockets as ss shows them.
func (s *session) chromiumSockets(ctx context.Context) ([]ssSocket, error) {
	pids := map[int]bool{}
	for _, p := range groupPIDs(s.proc.cmd.Process.Pid) {
		pids[p] = true
	}
	if len(pids) == 0 {
		return nil, fmt.Errorf("Chromium is no longer running")
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	cmd := s.cmdr.Command(ctx, "ss", "-tinpHO")
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("running ss for TCP_INFO: %v", err)
	}
	socks, err := parseSS(out)
	if err != nil {
		return nil, err
	}
	var own []ssSocket
	for _, sk := range socks {
		if sk.ownedBy(pids) {
			own = append(own, sk)
		}
	}
	return own, nil
}

// ssSocket is one line of `ss -tinpO`.
type ssSocket struct {
	state     string
	local     string
	peer      string
	pids      []int
	bytesSent int64
	info      probe.TCPInfo
}

// key names the connection.
func (sk ssSocket) key() string { return sk.local + " " + sk.peer }

func (sk ssSocket) ownedBy(pids map[int]bool) bool {
	for _, p := range sk.pids {
		if pids[p] {
			return true
		}
	}
	return false
}

// knownCC are congestion control names ss prints as a bare word.
var knownCC = map[string]bool{"cubic": true, "reno": true, "bbr": true, "bbr2": true, "bbr3": true, "dctcp": true,
	"vegas": true, "westwood": true, "htcp": true, "bic": true, "highspeed": true, "hybla": true, "illinois": true,
	"lp": true, "nv": true, "scalable": true, "veno": true, "yeah": true, "cdg": true}

// parseSS reads `ss -tinpHO` output: one socket per line, "STATE RECV-Q
// SEND-Q LOCAL PEER users:((...)) [cc] key:value ...". Lines it cannot read
// are an error naming the line.
func parseSS(out []byte) ([]ssSocket, error) {
	var socks []ssSocket
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 5 {
			return nil, fmt.Errorf("ss output line %d: %d fields, want at least 5: %q", n, len(f), clip(line))
		}
		sk := ssSocket{state: f[0], local: f[3], peer: f[4]}
		if _, _, err := net.SplitHostPort(strings.Trim(sk.peer, "[]")); err != nil && !strings.Contains(sk.peer, "]:") {
			return nil, fmt.Errorf("ss output line %d: peer %q is not host:port", n, clip(sk.peer))
		}
		sk.info.Host = sk.peer
		sk.info.Local, sk.info.Peer = sk.local, sk.peer
		for _, tok := range f[5:] {
			if strings.HasPrefix(tok, "users:(") {
				sk.pids = append(sk.pids, ssPIDs(tok)...)
				continue
			}
			if knownCC[tok] {
				sk.info.CongestionCC = tok
				continue
			}
			k, v, ok := strings.Cut(tok, ":")
			if !ok {
				continue
			}
			if err := sk.set(k, v); err != nil {
				return nil, fmt.Errorf("ss output line %d: %s: %v", n, clip(tok), err)
			}
		}
		socks = append(socks, sk)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading ss output: %w", err)
	}
	return socks, nil
}

func (sk *ssSocket) set(k, v string) error {
	u32 := func(dst *uint32) error {
		x, err := strconv.ParseUint(v, 10, 32)
		*dst = uint32(x)
		return err
	}
	var err error
	switch k {
	case "bytes_acked":
		sk.info.BytesAcked, err = strconv.ParseUint(v, 10, 64)
	case "bytes_received":
		sk.info.BytesRecv, err = strconv.ParseUint(v, 10, 64)
	case "bytes_sent":
		sk.bytesSent, err = strconv.ParseInt(v, 10, 64)
	case "segs_out":
		err = u32(&sk.info.SegsOut)
	case "segs_in":
		err = u32(&sk.info.SegsIn)
	case "cwnd":
		err = u32(&sk.info.SndCwnd)
	case "retrans": // "cur/total"
		_, total, _ := strings.Cut(v, "/")
		v = total
		err = u32(&sk.info.Retransmits)
	case "rtt": // "srtt/rttvar" in ms
		a, b, _ := strings.Cut(v, "/")
		if sk.info.RTTms, err = strconv.ParseFloat(a, 64); err == nil && b != "" {
			sk.info.RTTVarms, err = strconv.ParseFloat(b, 64)
		}
	}
	if err != nil {
		return fmt.Errorf("bad %s value", k)
	}
	return nil
}

// ssPIDs reads the pids from users:(("name",pid=1,fd=2),("x",pid=3,fd=4)).
func ssPIDs(tok string) []int {
	var out []int
	for _, part := range strings.Split(tok, "pid=")[1:] {
		end := strings.IndexFunc(part, func(r rune) bool { return r < '0' || r > '9' })
		if end < 0 {
			end = len(part)
		}
		if p, err := strconv.Atoi(part[:end]); err == nil {
			out = append(out, p)
		}
	}
	return out
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}
