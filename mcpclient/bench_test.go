package mcpclient

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkCallStdio measures sequential tools/call round trips through
// the Manager to the minimal Go server over stdio. Compare with
// BenchmarkRawStdioRoundTrip (the same server, bare pipes): the difference
// is mcpclient's and the SDK's overhead per call.
func BenchmarkCallStdio(b *testing.B) {
	bin := rawServer(b)
	cfg := &Config{Servers: map[string]*ServerConfig{"bench": {Name: "bench", Command: bin, Args: []string{"ok"}}}}
	m := NewManager(cfg, nil)
	defer m.Close()
	m.Start(context.Background())
	if err := m.WaitReady(context.Background(), "bench"); err != nil {
		b.Fatal(err)
	}
	args := json.RawMessage(`{"message":"ping"}`)
	ctx := context.Background()
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		r, err := m.CallTool(ctx, "mcp__bench__echo", args)
		if err != nil || r.Text != "ping" {
			b.Fatalf("%v %+v", err, r)
		}
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "calls/s")
}

// BenchmarkSDKCallStdio is the go-sdk alone (mcp.CommandTransport, a bare
// ClientSession) against the same server: BenchmarkCallStdio minus this is
// what mcpclient itself adds per call.
func BenchmarkSDKCallStdio(b *testing.B) {
	ctx := context.Background()
	c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil)
	sess, err := c.Connect(ctx, &mcp.CommandTransport{Command: exec.Command(rawServer(b), "ok")}, &mcp.ClientSessionOptions{ProtocolVersion: defaultProtocolVersion})
	if err != nil {
		b.Fatal(err)
	}
	defer sess.Close()
	params := &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"message":"ping"}`)}
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		if _, err := sess.CallTool(ctx, params); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "calls/s")
}

// BenchmarkRawStdioRoundTrip is the baseline: one JSON-RPC line written to
// the server's stdin and one read back, no client library.
func BenchmarkRawStdioRoundTrip(b *testing.B) {
	cmd := exec.Command(rawServer(b), "ok")
	in, _ := cmd.StdinPipe()
	outPipe, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { in.Close(); cmd.Wait() }()
	out := bufio.NewReader(outPipe)
	b.ResetTimer()
	start := time.Now()
	for i := range b.N {
		fmt.Fprintf(in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"message":"ping"}}}`+"\n", i+1)
		if _, err := out.ReadBytes('\n'); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "calls/s")
}

// BenchmarkStartup starts five servers: four answer initialize after
// 300 ms, one after 20 s. It reports how long Start blocks (it should
// not) and when the four fast servers are ready: about 300 ms when they
// start in parallel, 1.2 s if they started one after another.
func BenchmarkStartup(b *testing.B) {
	bin := rawServer(b)
	cfg := &Config{Servers: map[string]*ServerConfig{}}
	fast := []string{"fast1", "fast2", "fast3", "fast4"}
	for _, n := range fast {
		cfg.Servers[n] = &ServerConfig{Name: n, Command: bin, Args: []string{"sleep=300ms"}}
	}
	cfg.Servers["slow"] = &ServerConfig{Name: "slow", Command: bin, Args: []string{"sleep=20s"}}
	var startDur, readyDur time.Duration
	for range b.N {
		m := NewManager(cfg, nil)
		t0 := time.Now()
		m.Start(context.Background())
		startDur += time.Since(t0)
		for _, n := range fast {
			if err := m.WaitReady(context.Background(), n); err != nil {
				b.Fatal(err)
			}
		}
		readyDur += time.Since(t0)
		if st := must(m.ServerStatus("slow")); st.State != StateStarting {
			b.Fatalf("slow server is %s", st.State)
		}
		b.StopTimer()
		m.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(startDur.Microseconds())/float64(b.N), "start-µs")
	b.ReportMetric(float64(readyDur.Milliseconds())/float64(b.N), "4-fast-ready-ms")
}
