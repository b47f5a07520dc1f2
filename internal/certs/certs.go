// Package certs makes throw-away TLS certificates for servers that were given
// none. They are self-signed ECDSA P-256 and list every name they will serve.
package certs

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"time"

	"github.com/spdylab/spdylab/internal/atomicfile"
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
	tmpl, err := leafTemplate(names)
	if err != nil {
		return nil, nil, err
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
	if err := atomicfile.Write(certFile, c); err != nil {
		return fmt.Errorf("certs: %w", err)
	}
	if err := atomicfile.WriteWith(keyFile, k, atomicfile.Options{Perm: 0o600}); err != nil {
		return fmt.Errorf("certs: %w", err)
	}
	return nil
}

// CA is a throw-away certificate authority for a lab: servers get leaves it
// issues (one per host, or one for many names), and clients trust the CA
// alone: the loader through Pool, Chromium through the CA's public key
// (--ignore-certificate-errors-spki-list, see package browser).
type CA struct {
	Cert *x509.Certificate
	key  *ecdsa.PrivateKey
}

// NewCA makes a CA valid for a day, named name.
func NewCA(name string) (*CA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("certs: generating CA key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return nil, fmt.Errorf("certs: serial: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: name, Organization: []string{"spdylab"}},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, fmt.Errorf("certs: signing CA: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("certs: parsing CA: %w", err)
	}
	return &CA{Cert: cert, key: key}, nil
}

// Issue returns a server certificate signed by ca for names (DNS names or
// IP addresses; localhost and 127.0.0.1 always included), with the CA in
// its chain.
func (ca *CA) Issue(names ...string) (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("certs: generating key: %w", err)
	}
	return ca.issue(key, names)
}

// IssueRSA is Issue with an RSA-2048 key, as 2012 servers had: RSA key
// exchange (TLS_RSA_*) needs one, since the client encrypts the premaster
// secret to the certificate's key.
func (ca *CA) IssueRSA(names ...string) (tls.Certificate, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("certs: generating RSA key: %w", err)
	}
	return ca.issue(key, names)
}

// issue signs a leaf for names and key with the CA.
func (ca *CA) issue(key crypto.Signer, names []string) (tls.Certificate, error) {
	tmpl, err := leafTemplate(names)
	if err != nil {
		return tls.Certificate{}, err
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, key.Public(), ca.key)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("certs: signing: %w", err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("certs: parsing leaf: %w", err)
	}
	return tls.Certificate{Certificate: [][]byte{der, ca.Cert.Raw}, PrivateKey: key, Leaf: leaf}, nil
}

// Pool is a pool holding only the CA, for tls.Config.RootCAs.
func (ca *CA) Pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(ca.Cert)
	return p
}

// PEM is the CA certificate in PEM form (for certutil, curl --cacert, ...).
func (ca *CA) PEM() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ca.Cert.Raw})
}

// leafTemplate is a day-long server certificate for names plus localhost,
// 127.0.0.1 and ::1.
func leafTemplate(names []string) (*x509.Certificate, error) {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return nil, fmt.Errorf("certs: serial: %w", err)
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
	return tmpl, nil
}
