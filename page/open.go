package page

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// A page spec names where a page comes from. It is one of
//
//	NAME                  a built-in generator (Names)
//	generic:KEY=VALUE,... a synthetic page (GenericHelp)
//	har:PATH[#PAGE]       a recorded page load, imported (ImportHARFile)
//	PATH                  a manifest file (IsManifestPath), or a folder
//	                      holding one (ManifestFile)
//
// and a study's page factor also takes dir:PATH, a folder of pages
// (ExpandSpec).
//
// Open is the one place that tells them apart; study files, `spdylab load`,
// `spdylab page`, the harness and the study's ETA all go through it.
const (
	GenericPrefix = "generic:"
	HARPrefix     = "har:"
)

// IsManifestPath is the one rule telling a manifest file from a page name:
// a spec without a source prefix that ends in .json or holds a path
// separator.
func IsManifestPath(spec string) bool {
	if strings.HasPrefix(spec, GenericPrefix) || strings.HasPrefix(spec, HARPrefix) || IsCorpusSpec(spec) {
		return false
	}
	return strings.HasSuffix(spec, ".json") || strings.ContainsRune(spec, filepath.Separator)
}

// splitHARSpec reads "har:PATH[#PAGE]": the recording and, for a file with
// several page loads, which one.
func splitHARSpec(spec string) (file, pageID string, err error) {
	file, pageID, _ = strings.Cut(strings.TrimPrefix(spec, HARPrefix), "#")
	if file == "" {
		return "", "", errors.New("har: spec names no file (want har:PATH or har:PATH#PAGE)")
	}
	return file, pageID, nil
}

func openHAR(spec string) (*Manifest, error) {
	file, pageID, err := splitHARSpec(spec)
	if err != nil {
		return nil, err
	}
	m, _, err := ImportHARFile(file, ImportOptions{Page: pageID})
	return m, err
}

// Open returns the page spec names. shards, seed and mode shape generated
// pages (built-in and generic) and are ignored for manifest files, which
// carry their own hosts.
func Open(spec string, shards int, seed int64, mode string) (*Manifest, error) {
	switch {
	case IsCorpusSpec(spec):
		return nil, errCorpusNotPage(spec)
	case strings.HasPrefix(spec, HARPrefix):
		return openHAR(spec)
	case IsManifestPath(spec) || isFolder(spec, ""):
		file, err := folderManifest(spec)
		if err != nil {
			return nil, err
		}
		return Load(file)
	case !strings.HasPrefix(spec, GenericPrefix) && !slices.Contains(Names(), spec):
		return nil, errUnknownPage(spec)
	}
	return Generate(spec, shards, seed, mode)
}

// isFolder reports whether spec, a bare word that is no built-in page,
// names an existing folder (taken from dir when relative): a user passes
// the folder `spdylab page import` wrote as it is.
func isFolder(spec, dir string) bool {
	if strings.HasPrefix(spec, GenericPrefix) || strings.HasPrefix(spec, HARPrefix) || IsCorpusSpec(spec) ||
		slices.Contains(Names(), spec) {
		return false
	}
	if !filepath.IsAbs(spec) && dir != "" {
		spec = filepath.Join(dir, spec)
	}
	fi, err := os.Stat(spec)
	return err == nil && fi.IsDir()
}

// folderManifest is the manifest file a manifest spec stands for: the
// path itself, or for a folder the manifest in it, which is what `page
// import` and `page gen` write. A folder without one is an error saying
// what was expected.
func folderManifest(path string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil || !fi.IsDir() {
		return path, nil // Load or the caller says what is wrong
	}
	file := filepath.Join(path, ManifestFile)
	if _, err := os.Stat(file); err != nil {
		return "", fmt.Errorf("folder %s holds no %s: want a page folder written by 'spdylab page import' or 'spdylab page gen', "+
			"or a manifest .json file (a folder of pages is %s%s, in a study)", path, ManifestFile, DirPrefix, path)
	}
	return file, nil
}

// SpecHelp lists the spellings of a page spec, one per line, for help
// texts (errors use UnknownPageHelp).
func SpecHelp() string {
	return fmt.Sprintf(`  NAME                    a built-in page: %s
  %sKEY=VALUE,...   a synthetic page ('spdylab page list' lists the keys)
  %sFILE.har[#PAGE]     a recorded page load ('spdylab record'), replayed over its own hosts
  DIR, DIR/%s  a page folder written by 'spdylab page import' or 'spdylab page gen'
  %sPATH                studies only: every page in a folder, one condition each
`, strings.Join(Names(), ", "), GenericPrefix, HARPrefix, ManifestFile, DirPrefix)
}

// errUnknownPage names every spelling a page may have, so a typo in one
// of them is recognised; spec is left out ("") where the caller names it.
func errUnknownPage(spec string) error {
	what := "unknown page"
	if spec != "" {
		what += " " + strconv.Quote(spec)
	}
	return fmt.Errorf("%s: a page is a built-in name (%s), %sKEY=VALUE,..., %sFILE.har, "+
		"a page folder DIR or DIR/%s, or in a study %sPATH (every page in a folder)",
		what, strings.Join(Names(), ", "), GenericPrefix, HARPrefix, ManifestFile, DirPrefix)
}

// CheckSpec validates a page spec without keeping the page and returns its
// canonical form: manifest paths become absolute (relative ones are taken
// from dir, "" = the current directory) and must exist; generic specs must
// build; names must be built-in.
func CheckSpec(spec, dir string) (string, error) {
	switch {
	case IsCorpusSpec(spec):
		return "", errCorpusNotPage(spec)
	case strings.HasPrefix(spec, HARPrefix):
		file, pageID, err := splitHARSpec(spec)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(file) && dir != "" {
			file = filepath.Join(dir, file)
		}
		abs, err := filepath.Abs(file)
		if err != nil {
			return "", err
		}
		canon := HARPrefix + abs
		if pageID != "" {
			canon += "#" + pageID
		}
		if _, err := openHAR(canon); err != nil {
			return "", err
		}
		return canon, nil
	case IsManifestPath(spec) || isFolder(spec, dir):
		p := spec
		if !filepath.IsAbs(p) && dir != "" {
			p = filepath.Join(dir, p)
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return "", err
		}
		if abs, err = folderManifest(abs); err != nil {
			return "", err
		}
		if _, err := os.Stat(abs); err != nil {
			return "", fmt.Errorf("manifest %s: %v", abs, err)
		}
		return abs, nil
	case strings.HasPrefix(spec, GenericPrefix):
		if _, err := Generate(spec, 1, 1, ""); err != nil {
			return "", err
		}
		return spec, nil
	case slices.Contains(Names(), spec):
		return spec, nil
	}
	return "", errUnknownPage("")
}

// Clone is a deep copy of m, for callers that change a page others share
// (the harness adds preload links to a page the runner caches).
// A nil manifest clones to nil.
func (m *Manifest) Clone() *Manifest {
	if m == nil {
		return nil
	}
	c := *m
	c.Hosts = slices.Clone(m.Hosts)
	c.Notes = slices.Clone(m.Notes)
	c.HostConnectMs = maps.Clone(m.HostConnectMs)
	c.Resources = slices.Clone(m.Resources)
	for i := range c.Resources {
		c.Resources[i].Headers = maps.Clone(m.Resources[i].Headers)
		c.Resources[i].RequestHeaders = maps.Clone(m.Resources[i].RequestHeaders)
	}
	return &c
}
