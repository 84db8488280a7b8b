// Package llmtest is a scripted OpenAI-compatible Chat Completions server for
// tests: the LLM is the only fake in browseragent's tests. It speaks real
// streaming SSE, splits text and tool-call arguments across chunks, sends
// keep-alive comments and an empty-choices usage chunk like real providers,
// and records every request for assertions.
//
// Script it with rules, "when the last message matches X, answer Y":
//
//	srv := llmtest.New(t,
//		llmtest.Rule{When: llmtest.LastUser("title"), Reply: llmtest.Call("web_fetch", `{"url":"http://127.0.0.1/"}`)},
//		llmtest.Rule{When: llmtest.LastTool("Example"), Reply: llmtest.Text("The title is Example.")},
//	)
//	// point the agent at srv.URL
package llmtest
