// Command rawserver is a deliberately small, hand-written MCP server for
// tests and benchmarks of mcpclient. Its first argument picks a
// misbehaviour; it speaks raw newline-delimited JSON-RPC so that it can
// break the protocol in ways a real SDK would not let it.
//
//	ok           well-behaved: tools echo, die, big, flood, stats
//	garbage      prints non-JSON lines on stdout around every answer, JSON
//	             logs that mention "jsonrpc", and text with no newline before it
//	crash        prints to stderr and exits 3 before answering
//	hang         never answers initialize and ignores SIGTERM
//	sleep=DUR    waits DUR before answering initialize
//	gate=FILE    waits until FILE exists before answering initialize (a
//	             server slow to start, for as long as a test wants)
//	stderrflood  writes 100000 stderr lines, then serves
//	grandchild   starts a child "sleep 300" in its group, then serves
//	asklate      like server-everything: asks for roots/list 300 ms after
//	             initialized, and at the end of stdin does not exit while
//	             that request is unanswered
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

type request struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

var (
	out       = bufio.NewWriter(os.Stdout)
	outMu     sync.Mutex
	mode      = "ok"
	listCalls int
)

func main() {
	if len(os.Args) > 1 {
		mode = os.Args[1]
	}
	switch {
	case mode == "crash":
		fmt.Fprintln(os.Stderr, "fatal: cannot open config file /nonexistent/config.toml")
		os.Exit(3)
	case mode == "hang":
		signal.Ignore(syscall.SIGTERM)
	case mode == "stderrflood":
		for i := range 100000 {
			fmt.Fprintf(os.Stderr, "flood line %d\n", i)
		}
	case mode == "grandchild":
		cmd := exec.Command("sleep", "300")
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Fprintf(os.Stderr, "grandchild pid %d\n", cmd.Process.Pid)
	}
	serve()
}

func serve() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 64<<20)
	for in.Scan() {
		var req request
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			fmt.Fprintf(os.Stderr, "bad request: %v\n", err)
			continue
		}
		if req.ID == nil {
			if mode == "asklate" && req.Method == "notifications/initialized" {
				askLate.Add(1)
				go func() {
					defer askLate.Done()
					time.Sleep(300 * time.Millisecond)
					write(map[string]any{"jsonrpc": "2.0", "id": "roots-1", "method": "roots/list"})
				}()
			}
			continue // a notification
		}
		if req.Method == "" { // a response: to roots/list
			rootsAnswered.Store(true)
			continue
		}
		handle(req)
	}
	if mode == "asklate" {
		askLate.Wait()
		if !rootsAnswered.Load() {
			fmt.Fprintln(os.Stderr, "stdin closed; still waiting for the answer to roots/list")
			time.Sleep(time.Hour) // as a Node server does: its request's timer keeps it alive
		}
	}
}

var (
	askLate       sync.WaitGroup
	rootsAnswered atomic.Bool
)

func handle(req request) {
	switch req.Method {
	case "initialize":
		initialize(req)
	case "tools/list":
		listCalls++
		reply(req.ID, map[string]any{"tools": tools()})
	case "tools/call":
		call(req)
	case "ping":
		reply(req.ID, map[string]any{})
	default:
		replyError(req.ID, -32601, "method not found: "+req.Method)
	}
}

func initialize(req request) {
	switch {
	case mode == "hang":
		time.Sleep(time.Hour)
	case strings.HasPrefix(mode, "sleep="):
		d, _ := time.ParseDuration(strings.TrimPrefix(mode, "sleep="))
		time.Sleep(d)
	case strings.HasPrefix(mode, "gate="):
		for {
			if _, err := os.Stat(strings.TrimPrefix(mode, "gate=")); err == nil {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	reply(req.ID, map[string]any{
		"protocolVersion": "2025-06-18",
		"capabilities":    map[string]any{"tools": map[string]any{"listChanged": true}},
		"serverInfo":      map[string]any{"name": "rawserver", "version": "1.0.0"},
	})
}

func tools() []any {
	obj := func(props map[string]any) map[string]any {
		return map[string]any{"type": "object", "properties": props}
	}
	return []any{
		map[string]any{"name": "echo", "description": "Echo the message", "inputSchema": obj(map[string]any{"message": map[string]any{"type": "string"}})},
		map[string]any{"name": "die", "description": "Exit in the middle of the call", "inputSchema": obj(nil)},
		map[string]any{"name": "big", "description": "Return a 50 MB text", "inputSchema": obj(nil)},
		map[string]any{"name": "flood", "description": "Send 10000 tools/list_changed notifications, then answer", "inputSchema": obj(nil)},
		map[string]any{"name": "stats", "description": "How many tools/list requests were received", "inputSchema": obj(nil)},
	}
}

func call(req request) {
	var p struct {
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
	}
	_ = json.Unmarshal(req.Params, &p)
	switch p.Name {
	case "echo":
		msg, _ := p.Arguments["message"].(string)
		replyText(req.ID, msg)
	case "die":
		fmt.Fprintln(os.Stderr, "panic: simulated crash in the middle of a call")
		os.Exit(2)
	case "big":
		replyText(req.ID, strings.Repeat("x", 50<<20))
	case "flood":
		for range 10000 {
			write(map[string]any{"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
		}
		replyText(req.ID, "flooded")
	case "stats":
		replyText(req.ID, fmt.Sprint(listCalls))
	default:
		reply(req.ID, map[string]any{"isError": true, "content": []any{map[string]any{"type": "text", "text": "no such tool: " + p.Name}}})
	}
}

func replyText(id json.RawMessage, text string) {
	reply(id, map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}})
}

func reply(id json.RawMessage, result any) {
	write(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
}

func replyError(id json.RawMessage, code int, msg string) {
	write(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
}

func write(msg any) {
	b, _ := json.Marshal(msg)
	outMu.Lock()
	defer outMu.Unlock()
	if mode == "garbage" {
		out.WriteString("Server is running... (this line is not JSON)\n")
		out.WriteString(`{"level":30,"msg":"a JSON log line, not JSON-RPC"}` + "\n")
		out.WriteString(`{"level":"info","msg":"handled a \"jsonrpc\" request"}` + "\n")
		out.WriteString(`[{"jsonrpc":"2.0", "id": 1, broken` + "\n")
		out.WriteString("Loading... ") // no newline: the message follows on this line
	}
	out.Write(b)
	out.WriteByte('\n')
	out.Flush()
}
