package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"path/filepath"
	"strconv"

	"github.com/spdylab/spdylab/internal/atomicfile"
	"github.com/spdylab/spdylab/study/store"
)

// Files Build writes into an output directory.
const (
	HTMLFile = "report.html"
	CSVFile  = "conditions.csv"
	JSONFile = "conditions.json"
)

// Build rebuilds report.html, conditions.csv and conditions.json in dir
// from dir's store; for a study with walks, also walks.csv and walks.json.
func Build(dir string) (*Analysis, error) { return BuildWith(dir, Options{}) }

// BuildWith is Build with options (the metric gains are computed on).
func BuildWith(dir string, opt Options) (*Analysis, error) {
	st, err := store.OpenReader(dir)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	a, err := AnalyzeWith(st, opt)
	if err != nil {
		return nil, err
	}
	page, err := renderHTML(a, st)
	if err != nil {
		return nil, err
	}
	var csvBuf bytes.Buffer
	if err := writeCSV(&csvBuf, a); err != nil {
		return nil, err
	}
	js, err := json.MarshalIndent(conditionsJSON(a), "", "  ")
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{HTMLFile: page, CSVFile: csvBuf.Bytes(), JSONFile: append(js, '\n')}
	if len(a.Walks) > 0 {
		var walkCSV bytes.Buffer
		if err := writeWalksCSV(&walkCSV, a.Walks); err != nil {
			return nil, err
		}
		wj, err := json.MarshalIndent(walksJSON(a.Walks), "", "  ")
		if err != nil {
			return nil, err
		}
		files[WalksCSVFile], files[WalksJSONFile] = walkCSV.Bytes(), append(wj, '\n')
	}
	for name, data := range files {
		if err := atomicfile.Write(filepath.Join(dir, name), data); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// WriteWaterfall writes dir/waterfall-ID.html for one stored probe.
func WriteWaterfall(dir string, id int64) (string, error) {
	st, err := store.OpenReader(dir)
	if err != nil {
		return "", err
	}
	defer st.Close()
	p, err := st.ProbeByID(id)
	if err != nil {
		return "", err
	}
	svg, err := WaterfallPathSVG(p.Result.HAR, probeTitle(p), pathOf(p, nil))
	if err != nil {
		return "", fmt.Errorf("probe %d: %w", id, err)
	}
	out := filepath.Join(dir, fmt.Sprintf("waterfall-%d.html", id))
	doc := fmt.Sprintf("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>%s</title></head><body>%s</body></html>\n",
		template.HTMLEscapeString(probeTitle(p)), svg)
	return out, atomicfile.Write(out, []byte(doc))
}

func probeTitle(p store.Probe) string {
	r := p.Result
	c := r.Condition
	s := fmt.Sprintf("probe %d: %s, %s, %d shard(s), %s, rtt %s, loss %.2g%%, run %d",
		p.ID, c.Proto, c.Page, c.Shards, rateText(c.Link.DownBps, c.Link.UpBps), c.Link.RoundTrip(), 100*c.Link.LossDown, r.Run)
	if r.Failed {
		return s + " — FAILED: " + r.Error
	}
	return s + fmt.Sprintf(" — PLT %.0f ms, ToW %.0f ms", r.PLTms, r.ToWms)
}

func rateText(down, up int64) string {
	f := func(b int64) string {
		if b == 0 {
			return "∞"
		}
		return strconv.FormatFloat(float64(b)/1e6, 'g', 4, 64)
	}
	return f(down) + "/" + f(up) + " Mbit/s"
}
