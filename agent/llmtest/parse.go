package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

type wireRequest struct {
	Model    string            `json:"model"`
	Stream   bool              `json:"stream"`
	Messages []json.RawMessage `json:"messages"`
	Tools    json.RawMessage   `json:"tools"`
}

type wireMessage struct {
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	ToolCalls []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
	ToolCallID string `json:"tool_call_id"`
}

type wirePart struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	ImageURL *struct {
		URL string `json:"url"`
	} `json:"image_url"`
}

func parseRequest(r *http.Request) (Request, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return Request{}, err
	}
	var wr wireRequest
	if err := json.Unmarshal(body, &wr); err != nil {
		return Request{}, fmt.Errorf("request body is not JSON: %w", err)
	}
	req := Request{Model: wr.Model, Stream: wr.Stream, Body: body, Header: r.Header.Clone(), ToolsBytes: len(wr.Tools)}
	if len(wr.Tools) > 0 {
		var tools []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		}
		if err := json.Unmarshal(wr.Tools, &tools); err != nil {
			return Request{}, fmt.Errorf("tools: %w", err)
		}
		for _, t := range tools {
			req.Tools = append(req.Tools, t.Function.Name)
		}
	}
	for i, raw := range wr.Messages {
		m, err := parseMessage(raw)
		if err != nil {
			return Request{}, fmt.Errorf("messages[%d]: %w", i, err)
		}
		req.Messages = append(req.Messages, m)
	}
	return req, nil
}

func parseMessage(raw json.RawMessage) (Message, error) {
	var wm wireMessage
	if err := json.Unmarshal(raw, &wm); err != nil {
		return Message{}, err
	}
	m := Message{Role: wm.Role, ToolCallID: wm.ToolCallID, HasContent: len(wm.Content) > 0 && string(wm.Content) != "null"}
	for _, c := range wm.ToolCalls {
		m.ToolCalls = append(m.ToolCalls, ToolCall{ID: c.ID, Name: c.Function.Name, Args: c.Function.Arguments})
	}
	if !m.HasContent {
		return m, nil
	}
	if wm.Content[0] == '"' {
		return m, json.Unmarshal(wm.Content, &m.Content)
	}
	var parts []wirePart
	if err := json.Unmarshal(wm.Content, &parts); err != nil {
		return Message{}, fmt.Errorf("content is neither a string nor parts: %w", err)
	}
	var text []string
	m.Parts = []Part{}
	for _, p := range parts {
		part := Part{Type: p.Type, Text: p.Text}
		if p.ImageURL != nil {
			part.ImageURL = p.ImageURL.URL
		}
		if p.Text != "" {
			text = append(text, p.Text)
		}
		m.Parts = append(m.Parts, part)
	}
	m.Content = strings.Join(text, "\n")
	return m, nil
}
