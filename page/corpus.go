package page

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// DirPrefix names a corpus: "dir:PATH" stands for every page in a folder,
// one page spec each (ExpandSpec). It is a list of pages, not a page, so
// Open and CheckSpec refuse it; a study expands it into one factor value
// per page.
const DirPrefix = "dir:"

// CorpusPlaceholder is the corpus a built-in study leaves to its user:
// "dir:$PAGES" becomes the folder given with `spdylab run STUDY --pages DIR`.
const CorpusPlaceholder = DirPrefix + "$PAGES"

// ErrNoCorpus says a spec names the user's corpus (CorpusPlaceholder) but
// no folder was given.
var ErrNoCorpus = errors.New("this needs a folder of real pages: give --pages DIR " +
	"(recordings FILE.har from `spdylab record URL -o FILE.har`, or pages imported " +
	"with `spdylab page import FILE.har -o DIR/NAME`)")

// CorpusHelp tells what a corpus folder may hold, for errors and usage.
const CorpusHelp = "*.har recordings, manifest *.json files, and imported pages (sub-folders holding " + ManifestFile + ")"

// IsCorpusSpec reports whether spec names a folder of pages.
func IsCorpusSpec(spec string) bool { return strings.HasPrefix(spec, DirPrefix) }

// CorpusPageVar names one page of the user's corpus: "har:$PAGES/NAME.har"
// is NAME.har of the folder --pages gives. A study that needs a few small
// recordings (to stay within its time) names them so, where dir:$PAGES
// would take every page of the folder.
const CorpusPageVar = "$PAGES/"

// IsCorpusPage reports whether spec names one page of the user's corpus.
func IsCorpusPage(spec string) bool { return strings.Contains(spec, CorpusPageVar) }

// ExpandSpec turns one page spec into the page specs it stands for: a
// "dir:PATH" corpus becomes one canonical spec per page in the folder (see
// CorpusDir), the placeholder "dir:$PAGES" the pages of corpus (ErrNoCorpus
// when corpus is ""), "…$PAGES/NAME" corpus's page NAME (the same), and any
// other spec itself. Relative paths are taken
// from dir ("" = the current directory).
func ExpandSpec(spec, dir, corpus string) ([]string, error) {
	if IsCorpusPage(spec) {
		if corpus == "" {
			return nil, ErrNoCorpus
		}
		abs, err := filepath.Abs(corpus)
		if err != nil {
			return nil, err
		}
		return []string{strings.Replace(spec, CorpusPageVar, abs+string(filepath.Separator), 1)}, nil
	}
	if !IsCorpusSpec(spec) {
		return []string{spec}, nil
	}
	folder := strings.TrimPrefix(spec, DirPrefix)
	if spec == CorpusPlaceholder {
		if corpus == "" {
			return nil, ErrNoCorpus
		}
		folder = corpus
	} else if folder == "" {
		return nil, errors.New("dir: spec names no folder (want dir:PATH)")
	} else if !filepath.IsAbs(folder) && dir != "" {
		folder = filepath.Join(dir, folder)
	}
	return CorpusDir(folder)
}

// CorpusDir lists the pages of a corpus folder as canonical page specs,
// sorted by file name: "har:ABS" for every *.har file, ABS for every
// *.json file (a manifest) and for every sub-folder holding a manifest
// (what `spdylab page import` writes). Other files are ignored. A missing
// folder, or one without a page, is an error. The pages themselves are
// checked when opened (CheckSpec), so a bad recording names its file.
func CorpusDir(folder string) ([]string, error) {
	abs, err := filepath.Abs(folder)
	if err != nil {
		return nil, err
	}
	ents, err := os.ReadDir(abs)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("corpus folder %s: %v", abs, err)
	}
	type entry struct{ name, spec string }
	var pages []entry
	for _, e := range ents {
		p := filepath.Join(abs, e.Name())
		switch {
		case e.IsDir():
			m := filepath.Join(p, ManifestFile)
			if st, err := os.Stat(m); err == nil && st.Mode().IsRegular() {
				pages = append(pages, entry{e.Name(), m})
			}
		case strings.HasPrefix(e.Name(), "."):
			// editor and OS droppings (.DS_Store, .x.har.swp)
		case strings.HasSuffix(e.Name(), ".har"):
			pages = append(pages, entry{e.Name(), HARPrefix + p})
		case strings.HasSuffix(e.Name(), ".json"):
			pages = append(pages, entry{e.Name(), p})
		}
	}
	if len(pages) == 0 {
		return nil, fmt.Errorf("corpus folder %s holds no page (want %s)", abs, CorpusHelp)
	}
	sort.Slice(pages, func(i, j int) bool { return pages[i].name < pages[j].name })
	specs := make([]string, len(pages))
	for i, e := range pages {
		specs[i] = e.spec
	}
	return specs, nil
}

func errCorpusNotPage(spec string) error {
	return fmt.Errorf("%q is a folder of pages, not one page: use it as a study's page factor "+
		"(page = [%q]), or name one of its pages", spec, spec)
}

// DisplayName is a short name for a page spec in tables and legends: a
// recording's or manifest's file name without extension, an imported
// page's folder, a built-in or generic spec itself.
func DisplayName(spec string) string {
	switch {
	case strings.HasPrefix(spec, HARPrefix):
		file, pageID, _ := strings.Cut(strings.TrimPrefix(spec, HARPrefix), "#")
		name := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
		if pageID != "" {
			name += "#" + pageID
		}
		return name
	case IsManifestPath(spec):
		if filepath.Base(spec) == ManifestFile {
			return filepath.Base(filepath.Dir(spec))
		}
		return strings.TrimSuffix(filepath.Base(spec), filepath.Ext(spec))
	}
	return spec
}

// HasOwnHosts reports whether the page a spec names carries its own hosts
// (a recording or a manifest) rather than being spread over as many as the
// caller asks (a generated page): a bench for it has the page's hosts, so a
// shard count does not apply to it.
func HasOwnHosts(spec string) bool {
	return strings.HasPrefix(spec, HARPrefix) || IsManifestPath(spec)
}
