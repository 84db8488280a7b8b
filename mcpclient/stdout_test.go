package mcpclient

import (
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestStdoutFilter(t *testing.T) {
	big := strings.Repeat("x", 300)
	tests := []struct {
		name, in string
		want     string
		logged   []string
	}{
		{
			name:   "messages pass, other lines are logged",
			in:     "Listening...\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n  \n{\"level\":30}\n[{\"jsonrpc\":\"2.0\",\"method\":\"x\"}]\r\n",
			want:   "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n[{\"jsonrpc\":\"2.0\",\"method\":\"x\"}]\n",
			logged: []string{"[stdout, not JSON-RPC] Listening...", `[stdout, not JSON-RPC] {"level":30}`},
		},
		{
			name: "oversized Go-style response: id first",
			in:   `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"` + big + `"}]}}` + "\n" + `{"jsonrpc":"2.0","id":8,"result":{}}` + "\n",
			want: `{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"message of 374 bytes exceeds the 200-byte limit; ask the tool for less"}}` + "\n" + `{"jsonrpc":"2.0","id":8,"result":{}}` + "\n",
		},
		{
			name: "oversized Node-style response: id last, an inner id ignored",
			in:   `{"result":{"content":[{"type":"text","text":"` + big + `","id":99}]},"jsonrpc":"2.0","id":"abc"}` + "\n",
			want: `{"jsonrpc":"2.0","id":"abc","error":{"code":-32603,"message":"message of 386 bytes exceeds the 200-byte limit; ask the tool for less"}}` + "\n",
		},
		{
			name:   "a JSON log line mentioning jsonrpc, broken JSON, and a cut last line are logged",
			in:     "{\"level\":\"info\",\"msg\":\"\\\"jsonrpc\\\" request\"}\n{\"jsonrpc\":\"2.0\",\"id\":1,\n{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}",
			logged: []string{`[stdout, not JSON-RPC] {"level":"info","msg":"\"jsonrpc\" request"}`, `[stdout, not JSON-RPC] {"jsonrpc":"2.0","id":1,`, `[stdout, not JSON-RPC] {"jsonrpc":"2.0","id":2,"result":{}}`},
		},
		{
			name:   "text without a newline before a message: the message is kept",
			in:     "Loading... {\"x\"{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}\n",
			want:   "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}\n",
			logged: []string{`[stdout, not JSON-RPC] Loading... {"x"`},
		},
		{
			name: "oversized Go-style response with an id inside the result: the top-level id",
			in:   `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"` + big + `","id":99}]}}` + "\n",
			want: `{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"message of 382 bytes exceeds the 200-byte limit; ask the tool for less"}}` + "\n",
		},
		{
			name: "oversized with escaped quotes and a string id",
			in:   `{"jsonrpc":"2.0","result":{"text":"` + big + `\"id\":5"},"id":"q\"1"}` + "\n",
			want: `{"jsonrpc":"2.0","id":"q\"1","error":{"code":-32603,"message":"message of 359 bytes exceeds the 200-byte limit; ask the tool for less"}}` + "\n",
		},
		{
			name: "oversized notification is dropped",
			in:   `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"` + big + `"}}` + "\n",
			want: "",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			log := newRingBuffer(10)
			got, err := io.ReadAll(newStdoutFilter(strings.NewReader(tc.in), log, 200))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.logged, log.Lines(), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("logged (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRingBuffer(t *testing.T) {
	r := newRingBuffer(3)
	r.readFrom(strings.NewReader("a\nb\r\nc\nd\n" + strings.Repeat("y", 70000) + "\ne"))
	lines := r.Lines()
	want := []string{"d", strings.Repeat("y", maxLogLine) + " …(line cut)", "e"}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := r.tail(2); got != want[1]+"\ne" {
		t.Errorf("tail = %.40q", got)
	}
}
