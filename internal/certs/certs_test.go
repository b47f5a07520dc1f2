package certs

import (
	"crypto/x509"
	"testing"
)

func TestSelfSignedListsNames(t *testing.T) {
	c, err := SelfSigned("s1.spdylab.test", "10.9.0.2")
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(c.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"s1.spdylab.test", "localhost", "10.9.0.2", "127.0.0.1"} {
		if err := leaf.VerifyHostname(name); err != nil {
			t.Errorf("certificate does not cover %s: %v", name, err)
		}
	}
	if err := leaf.VerifyHostname("other.example"); err == nil {
		t.Error("certificate unexpectedly covers other.example")
	}
}
