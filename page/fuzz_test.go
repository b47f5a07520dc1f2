package page

import (
	"encoding/json"
	"testing"
)

// FuzzParse: any input either fails with an error or yields a manifest
// whose every resource can be written at exactly its size, with each
// reference's URL at its offset. Run longer with
// go test ./page -run '^$' -fuzz FuzzParse -fuzztime 60s
func FuzzParse(f *testing.F) {
	for _, name := range []string{"pageC", "twitter", "generic:n=6,mean=2k,depth=2,domains=2"} {
		m, err := Generate(name, 2, 1, ShardRoundRobin)
		if err != nil {
			f.Fatal(err)
		}
		b, _ := json.Marshal(m)
		f.Add(b)
	}
	f.Add([]byte(`{"hosts":["a.test"],"resources":[{"id":0,"path":"/i.html","host":"a.test","size":200,"type":"html","content_type":"text/html","parent":-1,"discovery":{"kind":"root"}}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Parse(b)
		if err != nil {
			return
		}
		if m.TotalBytes() > 1<<24 {
			return // valid but too big to write in a fuzz iteration
		}
		for id, r := range m.Resources {
			c, err := m.Content(id)
			if err != nil {
				t.Fatalf("valid manifest, resource %d: %v", id, err)
			}
			if len(c) != r.Size {
				t.Fatalf("resource %d: %d bytes, want %d", id, len(c), r.Size)
			}
		}
		for id, r := range m.Resources {
			if r.Discovery.Kind != KindRef {
				continue
			}
			pc, _ := m.Content(r.Parent)
			url := m.RefURL(id)
			if end := r.Discovery.Offset + len(url); end > len(pc) || string(pc[r.Discovery.Offset:end]) != url {
				t.Fatalf("resource %d: URL not at offset %d of its parent", id, r.Discovery.Offset)
			}
		}
	})
}
