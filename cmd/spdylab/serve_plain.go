package main

import (
	"fmt"

	"github.com/spdylab/spdylab/probe"
)

// servePlainProtocol is what --plain asks the server to speak without
// TLS: any protocol over TCP, written as every command writes it
// (probe.ParseProtocol), as the server's ALPN token (server.ServePlain:
// https and h2 share a listener that answers HTTP/1.1 and h2c, as a
// plaintext bench's port 80 does). "" serves TLS.
func servePlainProtocol(v string) (string, error) {
	if v == "" {
		return "", nil
	}
	p, err := probe.ParseProtocol(v)
	if err != nil {
		return "", err
	}
	if p.Transport != probe.TransportTCP || !p.PlainTCPOption {
		return "", fmt.Errorf("%s does not run over plain TCP (want %s)", p.Name, probe.OneOf(plainTCPProtocols()))
	}
	return p.ALPN, nil
}

// plainTCPProtocols are the protocols serve --plain takes.
func plainTCPProtocols() []string {
	var names []string
	for _, p := range probe.Protocols {
		if p.Transport == probe.TransportTCP && p.PlainTCPOption {
			names = append(names, p.Name)
		}
	}
	return names
}
