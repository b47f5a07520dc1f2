// Package certs makes throw-away TLS certificates for servers that were given
// none. They are self-signed ECDSA P-256 and list every name they will serve.
package certs

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"time"
)

// SelfSigned returns a certificate valid for a day for the given DNS names
// and IP addresses. localhost and 127.0.0.1 are always included.
func SelfSigned(names ...string) (tls.Certificate, error) {
	certPEM, keyPEM, err := SelfSignedPEM(names...)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.X509KeyPair(certPEM, keyPEM)
}

// SelfSignedPEM is SelfSigned in PEM form, for programs (nginx, node) that
// read certificate files.
func SelfSignedPEM(names ...string) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("certs: generating key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return nil, nil, fmt.Errorf("certs: serial: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "spdylab throw-away", Organization: []string{"spdylab"}},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
	}
	seen := map[string]bool{}
	for _, n := range append([]string{"localhost", "127.0.0.1", "::1"}, names...) {
		if n == "" || seen[n] {
			continue
		}
		seen[n] = true
		if ip := net.ParseIP(n); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, n)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, fmt.Errorf("certs: signing: %w", err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, fmt.Errorf("certs: encoding key: %w", err)
	}
	certPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	keyPEM = pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})
	return certPEM, keyPEM, nil
}

// WriteFiles writes a fresh self-signed pair to certFile and keyFile (mode 0600 for the key).
func WriteFiles(certFile, keyFile string, names ...string) error {
	c, k, err := SelfSignedPEM(names...)
	if err != nil {
		return err
	}
	if err := os.WriteFile(certFile, c, 0o644); err != nil {
		return fmt.Errorf("certs: %w", err)
	}
	if err := os.WriteFile(keyFile, k, 0o600); err != nil {
		return fmt.Errorf("certs: %w", err)
	}
	return nil
}
