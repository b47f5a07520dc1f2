package browser

import (
	"fmt"
	"net"
	"net/url"

	"github.com/spdylab/spdylab/page"
)

// PageTarget derives Options.URL and Options.Resolve for page m from the
// base URL each of its hosts is served at (the loader's Target.BaseURLs,
// harness.Bench.BaseURLs()): a base at an address ("https://10.200.1.2:443",
// "https://127.0.0.2:40123") maps the host name to that address and port; a
// base by name ("https://s1.spdylab.test:443", a bench with DNS) leaves the
// name to the namespace's resolver, and then Resolve is nil. The page URL
// keeps the host name (certificates, Host headers and the page's absolute
// references use it) with its base's port.
func PageTarget(m *page.Manifest, baseURLs map[string]string) (pageURL string, resolve map[string]string, err error) {
	if m == nil || len(m.Resources) == 0 {
		return "", nil, fmt.Errorf("browser: no page")
	}
	byName := 0
	resolve = map[string]string{}
	ports := map[string]string{}
	for _, h := range m.Hosts {
		base, ok := baseURLs[h]
		if !ok {
			return "", nil, fmt.Errorf("browser: no base URL for host %s", h)
		}
		u, err := url.Parse(base)
		if err != nil || u.Scheme != "https" || u.Hostname() == "" {
			return "", nil, fmt.Errorf("browser: base URL %q of %s is not https://HOST[:PORT]", base, h)
		}
		port := u.Port()
		if port == "" {
			port = "443"
		}
		ports[h] = port
		if net.ParseIP(u.Hostname()) == nil {
			if u.Hostname() != h {
				return "", nil, fmt.Errorf("browser: base URL %q of %s names another host", base, h)
			}
			byName++
			continue
		}
		resolve[h] = net.JoinHostPort(u.Hostname(), port)
	}
	if byName > 0 && byName < len(m.Hosts) {
		return "", nil, fmt.Errorf("browser: base URLs mix host names and addresses")
	}
	if byName > 0 {
		resolve = nil
	}
	root := m.Resources[0]
	host := root.Host
	if ports[host] != "443" {
		host = net.JoinHostPort(host, ports[host])
	}
	return "https://" + host + root.Target(), resolve, nil // with the root's query (a search page's)
}
