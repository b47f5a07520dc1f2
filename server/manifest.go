package server

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spdylab/spdylab/page"
)

// loadManifest reads Config.Manifest, or Root/manifest.json when present:
// the content type and extra headers of every file, and (unless
// Config.PushMap is given) the push map of the "manifest" policy.
func (s *Server) loadManifest() error {
	p := s.cfg.Manifest
	explicit := p != ""
	if !explicit {
		if s.cfg.Root == "" {
			return nil
		}
		p = filepath.Join(s.cfg.Root, page.ManifestFile)
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			return nil
		}
	}
	m, err := page.Load(p)
	if err != nil {
		return fmt.Errorf("server: %w", err)
	}
	s.siteHosts = len(m.Hosts)
	s.meta = make(map[string]resourceMeta, len(m.Resources))
	for id, r := range m.Resources {
		if r.File == "" {
			s.meta[r.Path] = resourceMeta{ContentType: r.ContentType, Headers: r.Headers}
			continue
		}
		if s.replay == nil {
			s.replay = map[string]resourceMeta{}
		}
		rm := resourceMeta{ContentType: r.ContentType, Headers: r.Headers, File: r.File, Status: r.StatusCode()}
		if c := m.RedirectChild(id); c >= 0 {
			rm.Location = m.URL(c)
		}
		key := replayKey(r.Host, r.Target())
		if _, dup := s.replay[key]; !dup {
			s.replay[key] = rm
		}
	}
	s.pushMap = m.PushMap()
	return nil
}
