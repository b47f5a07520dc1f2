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

func TestCAIssuesLeavesOnlyItVerifies(t *testing.T) {
	ca, err := NewCA("spdylab test CA")
	if err != nil {
		t.Fatal(err)
	}
	c, err := ca.Issue("s3.spdylab.test")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Certificate) != 2 {
		t.Fatalf("chain has %d certificates, want leaf + CA", len(c.Certificate))
	}
	opts := x509.VerifyOptions{DNSName: "s3.spdylab.test", Roots: ca.Pool()}
	if _, err := c.Leaf.Verify(opts); err != nil {
		t.Errorf("leaf does not verify against its CA: %v", err)
	}
	other, err := NewCA("another CA")
	if err != nil {
		t.Fatal(err)
	}
	opts.Roots = other.Pool()
	if _, err := c.Leaf.Verify(opts); err == nil {
		t.Error("leaf verifies against a CA that did not issue it")
	}
	opts.Roots, opts.DNSName = ca.Pool(), "s4.spdylab.test"
	if _, err := c.Leaf.Verify(opts); err == nil {
		t.Error("leaf verifies for a name it does not list")
	}
}
