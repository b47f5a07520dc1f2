package har

import (
	"strings"
	"testing"
)

func TestValidateNamesProblems(t *testing.T) {
	good := `{"log":{"version":"1.2","creator":{"name":"x","version":"1"},"pages":[{"startedDateTime":"2026-01-01T00:00:00.000Z","id":"p","title":"t","pageTimings":{"onContentLoad":1,"onLoad":2}}],
"entries":[{"pageref":"p","startedDateTime":"2026-01-01T00:00:00.000Z","time":6,
"request":{"method":"GET","url":"https://a/x","httpVersion":"HTTP/1.1","cookies":[],"headers":[],"queryString":[],"headersSize":-1,"bodySize":0},
"response":{"status":200,"statusText":"OK","httpVersion":"HTTP/1.1","cookies":[],"headers":[{"name":"a","value":"b"}],"content":{"size":1,"mimeType":"x"},"redirectURL":"","headersSize":-1,"bodySize":1},
"cache":{},"timings":{"blocked":-1,"dns":-1,"connect":3,"ssl":2,"send":1,"wait":1,"receive":1}}]}}`
	if err := Validate([]byte(good)); err != nil {
		t.Fatalf("valid HAR rejected: %v", err)
	}
	cases := map[string]struct{ from, to, want string }{
		"time sum":   {`"time":6`, `"time":9`, "log.entries[0] (https://a/x).time is 9 but its timings add up to 6"},
		"ssl":        {`"ssl":2`, `"ssl":5`, "ssl (5) exceeds connect (3)"},
		"negative":   {`"send":1`, `"send":-1`, "timings.send is -1, want >= 0"},
		"date":       {`"startedDateTime":"2026-01-01T00:00:00.000Z","time"`, `"startedDateTime":"yesterday","time"`, `startedDateTime is "yesterday"`},
		"missing":    {`"cache":{},`, ``, "(https://a/x).cache is missing"},
		"version":    {`"version":"1.2"`, `"version":"2"`, `log.version is "2"`},
		"pageref":    {`"pageref":"p"`, `"pageref":"q"`, `pageref "q" names no page`},
		"header":     {`{"name":"a","value":"b"}`, `{"name":"a"}`, "response.headers[0].value is missing"},
		"not json":   {`{"log"`, `{"lg"`, "log is missing"},
		"status":     {`"status":200`, `"status":"200"`, "response.status is not a number"},
		"onload":     {`"onLoad":2`, `"onLoad":-5`, "pageTimings.onLoad is -5"},
		"priority":   {`"pageref":"p",`, `"pageref":"p","_priority":true,`, "(https://a/x)._priority is not a number or a string"},
		"connection": {`"pageref":"p",`, `"pageref":"p","connection":123,`, "(https://a/x).connection is not a string"},
		"server ip":  {`"pageref":"p",`, `"pageref":"p","serverIPAddress":5,`, "(https://a/x).serverIPAddress is not a string"},
		"pushed":     {`"pageref":"p",`, `"pageref":"p","_pushed":1,`, "(https://a/x)._pushed is not a boolean"},
		"retries":    {`"pageref":"p",`, `"pageref":"p","_retries":1.5,`, "(https://a/x)._retries is not an integer"},
	}
	for name, c := range cases {
		bad := strings.Replace(good, c.from, c.to, 1)
		if bad == good {
			t.Fatalf("%s: replacement did not apply", name)
		}
		err := Validate([]byte(bad))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", name, err, c.want)
		}
	}
	if err := Validate([]byte("nope")); err == nil || !strings.Contains(err.Error(), "not JSON") {
		t.Errorf("non-JSON: %v", err)
	}
}
