package server

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spdylab/spdylab/page"
)

// loadManifest reads Config.Site, Config.Manifest, or Root/manifest.json when present:
// the content type and extra headers of every file, and (unless
// Config.PushMap is given) the push map of the "manifest" policy.
func (s *Server) loadManifest() error {
	if s.cfg.Site != nil {
		s.useManifest(s.cfg.Site)
		return nil
	}
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
	s.useManifest(m)
	return nil
}

// useManifest takes the content types, headers, recorded answers and (unless
// Config.PushMap is given) the push map from m.
func (s *Server) useManifest(m *page.Manifest) {
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
	if s.cfg.PushMap == nil { // a bench computes it once for all its servers
		s.pushMap = m.PushMap()
	}
	if s.cfg.DepsMap == nil {
		s.depsMap = m.DependencyMap()
	}
}
