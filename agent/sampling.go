package agent

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	openai "github.com/sashabaranov/go-openai"

	"github.com/browseragent/browseragent/mcpclient"
	"github.com/browseragent/browseragent/media"
)

// defaultSampleMaxTokens caps a sampling answer when the server asks for
// no limit.
const defaultSampleMaxTokens = 1024

// Sample answers an MCP server's sampling/createMessage with one
// non-streamed chat completion on the configured LLM (no tools). The
// server's model preferences are hints only: the configured model
// answers. Without an LLM it returns mcpclient.ErrNoLLM with the reason.
func Sample(ctx context.Context, s Settings, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
	if !s.Enabled() {
		return nil, fmt.Errorf("%w: %s", mcpclient.ErrNoLLM, s.Why())
	}
	if p == nil || len(p.Messages) == 0 {
		return nil, errors.New("sampling request has no messages")
	}
	req, err := sampleRequest(s, p)
	if err != nil {
		return nil, err
	}
	tr := &transport{base: http.DefaultTransport, noAuth: s.APIKey == "", sleep: sleepCtx}
	resp, err := newClient(s, tr).CreateChatCompletion(ctx, req)
	if err != nil {
		return nil, describeLLMError(s, err)
	}
	if len(resp.Choices) == 0 {
		return nil, fmt.Errorf("LLM at %s returned no answer", s.BaseURL)
	}
	c := resp.Choices[0]
	model := resp.Model
	if model == "" {
		model = s.Model
	}
	return &mcp.CreateMessageResult{
		Content:    &mcp.TextContent{Text: c.Message.Content},
		Model:      model,
		Role:       "assistant",
		StopReason: stopReason(c.FinishReason),
	}, nil
}

func sampleRequest(s Settings, p *mcp.CreateMessageParams) (openai.ChatCompletionRequest, error) {
	req := openai.ChatCompletionRequest{Model: s.Model, MaxTokens: int(p.MaxTokens), Stop: p.StopSequences, Temperature: float32(p.Temperature)}
	if req.MaxTokens <= 0 {
		req.MaxTokens = defaultSampleMaxTokens
	}
	if p.SystemPrompt != "" {
		req.Messages = append(req.Messages, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleSystem, Content: p.SystemPrompt})
	}
	for i, m := range p.Messages {
		msg, err := sampleMessage(s, m)
		if err != nil {
			return req, fmt.Errorf("sampling message %d: %w", i+1, err)
		}
		req.Messages = append(req.Messages, msg)
	}
	return req, nil
}

// sampleMessage converts one message: text as is, an image as an image
// part of a user message (the only place Chat Completions takes one).
func sampleMessage(s Settings, m *mcp.SamplingMessage) (openai.ChatCompletionMessage, error) {
	role := openai.ChatMessageRoleUser
	if m.Role == "assistant" {
		role = openai.ChatMessageRoleAssistant
	}
	switch c := m.Content.(type) {
	case *mcp.TextContent:
		return openai.ChatCompletionMessage{Role: role, Content: c.Text}, nil
	case *mcp.ImageContent:
		if role != openai.ChatMessageRoleUser || !s.Images {
			return openai.ChatCompletionMessage{Role: role, Content: mcpclient.ContentText(c)}, nil
		}
		url, ok := prepareImage(media.Image{MIME: c.MIMEType, Data: c.Data})
		if !ok {
			return openai.ChatCompletionMessage{Role: role, Content: mcpclient.ContentText(c)}, nil
		}
		return openai.ChatCompletionMessage{Role: role, MultiContent: []openai.ChatMessagePart{
			{Type: openai.ChatMessagePartTypeImageURL, ImageURL: &openai.ChatMessageImageURL{URL: url}},
		}}, nil
	case nil:
		return openai.ChatCompletionMessage{}, errors.New("no content")
	}
	return openai.ChatCompletionMessage{Role: role, Content: mcpclient.ContentText(m.Content)}, nil
}

func stopReason(f openai.FinishReason) string {
	switch f {
	case openai.FinishReasonLength:
		return "maxTokens"
	case openai.FinishReasonStop, "":
		return "endTurn"
	}
	return string(f)
}
