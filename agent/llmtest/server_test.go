package llmtest

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func post(t *testing.T, srv *Server, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(srv.URL+"/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// sseLines returns the stream's lines, without the blank separators.
func sseLines(t *testing.T, r io.Reader) []string {
	t.Helper()
	var lines []string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if sc.Text() != "" {
			lines = append(lines, sc.Text())
		}
	}
	return lines
}

const userBody = `{"model":"m","stream":true,"messages":[{"role":"system","content":"s"},{"role":"user","content":"hello"}],
"tools":[{"type":"function","function":{"name":"web_fetch","parameters":{"type":"object"}}}]}`

func TestStreamLooksLikeAProvider(t *testing.T) {
	srv := New(t, Rule{When: LastUser("hello"), Reply: Reply{Text: "abcdef", Calls: []ToolCall{{Name: "web_fetch", Args: `{"url":"x"}`}}, ChunkSize: 3}})
	resp := post(t, srv, userBody)
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("Content-Type = %q", ct)
	}
	lines := sseLines(t, resp.Body)
	var got []string
	for _, l := range lines {
		if !strings.HasPrefix(l, "data: {") {
			got = append(got, l)
			continue
		}
		var c struct {
			Choices []struct {
				Delta        map[string]any `json:"delta"`
				FinishReason *string        `json:"finish_reason"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(strings.TrimPrefix(l, "data: ")), &c); err != nil {
			t.Fatalf("bad chunk %q: %v", l, err)
		}
		switch {
		case len(c.Choices) == 0:
			got = append(got, "usage")
		case c.Choices[0].FinishReason != nil:
			got = append(got, "finish:"+*c.Choices[0].FinishReason)
		case c.Choices[0].Delta["tool_calls"] != nil:
			b, _ := json.Marshal(c.Choices[0].Delta["tool_calls"])
			got = append(got, string(b))
		case c.Choices[0].Delta["role"] != nil:
			got = append(got, "role")
		default:
			got = append(got, "text:"+c.Choices[0].Delta["content"].(string))
		}
	}
	want := []string{
		"role", ": keep-alive", "text:abc", "text:def",
		`[{"function":{"arguments":"","name":"web_fetch"},"id":"call_1","index":0,"type":"function"}]`,
		`[{"function":{"arguments":"{\"u"},"index":0}]`,
		`[{"function":{"arguments":"rl\""},"index":0}]`,
		`[{"function":{"arguments":":\"x"},"index":0}]`,
		`[{"function":{"arguments":"\"}"},"index":0}]`,
		"finish:tool_calls", "usage", "data: [DONE]",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("stream (-want +got):\n%s", diff)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || reqs[0].Last().Content != "hello" || !cmp.Equal(reqs[0].Tools, []string{"web_fetch"}) || reqs[0].ToolsBytes == 0 {
		t.Errorf("recorded request = %+v", reqs)
	}
}

func TestRulesInOrderWithTimes(t *testing.T) {
	srv := New(t,
		Rule{When: Any(), Reply: Error(429, "7", "slow down"), Times: 1},
		Rule{When: Any(), Reply: Text("ok")},
	)
	first := post(t, srv, userBody)
	body, _ := io.ReadAll(first.Body)
	if first.StatusCode != 429 || first.Header.Get("Retry-After") != "7" || !strings.Contains(string(body), "slow down") {
		t.Errorf("first answer: %d %q %s", first.StatusCode, first.Header.Get("Retry-After"), body)
	}
	second := post(t, srv, strings.Replace(userBody, `"stream":true`, `"stream":false`, 1))
	var whole struct {
		Choices []struct {
			Message struct{ Content string } `json:"message"`
		} `json:"choices"`
	}
	if err := json.NewDecoder(second.Body).Decode(&whole); err != nil || len(whole.Choices) != 1 || whole.Choices[0].Message.Content != "ok" {
		t.Errorf("second answer: %+v, %v", whole, err)
	}
}

func TestParseRecordsParts(t *testing.T) {
	srv := New(t, Rule{When: AfterCall("browser_screenshot"), Reply: Text("seen")})
	body := `{"model":"m","stream":true,"messages":[
{"role":"user","content":"look"},
{"role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"browser_screenshot","arguments":"{}"}}]},
{"role":"tool","tool_call_id":"c1","content":"shot"},
{"role":"user","content":[{"type":"text","text":"Image:"},{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}}]}]}`
	sseLines(t, post(t, srv, body).Body)
	req := srv.Requests()[0]
	asst, img := req.Messages[1], req.Last()
	got := []any{asst.HasContent, asst.ToolCalls, img.Content, img.Images()}
	want := []any{true, []ToolCall{{ID: "c1", Name: "browser_screenshot", Args: "{}"}}, "Image:", []Part{{Type: "image_url", ImageURL: "data:image/png;base64,AAAA"}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
