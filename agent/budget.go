package agent

import (
	"fmt"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// elidedPrefix starts every message the budget has shortened, so it is never
// shortened twice.
const elidedPrefix = "[elided to save context"

// imagesLeftOut replaces tool images after the model refused images.
const imagesLeftOut = "[tool images left out: this model does not accept images]"

// estimateTokens guesses the tokens of a message without a tokenizer: about
// three bytes per token (English runs near four, code and CJK nearer two or
// three; overestimating only compacts a little early), plus per-message
// framing, plus a fixed cost per image.
func estimateTokens(m openai.ChatCompletionMessage) int {
	n := 4 + len(m.Content) + len(m.ReasoningContent)
	for _, p := range m.MultiContent {
		if p.Type == openai.ChatMessagePartTypeImageURL {
			n += imageTokens * 3
			continue
		}
		n += len(p.Text)
	}
	for _, c := range m.ToolCalls {
		n += len(c.ID) + len(c.Function.Name) + len(c.Function.Arguments) + 8
	}
	return n / 3
}

func estimateAll(msgs []openai.ChatCompletionMessage) int {
	total := 0
	for _, m := range msgs {
		total += estimateTokens(m)
	}
	return total
}

// fitContext shortens msgs in place until their estimate is at most limit.
// First, oldest first, tool results and tool images the model has already
// answered to become one-line summaries; then whole early exchanges are
// dropped. The system prompt (msgs[0]), the latest user message and the
// current step are never touched. It returns msgs and how many messages it
// changed.
func fitContext(msgs []openai.ChatCompletionMessage, limit int) ([]openai.ChatCompletionMessage, int) {
	total := estimateAll(msgs)
	if total <= limit {
		return msgs, 0
	}
	names := toolCallNames(msgs)
	protect := lastIndex(msgs, func(m openai.ChatCompletionMessage) bool { return m.Role == openai.ChatMessageRoleAssistant })
	changed := 0
	for i := 1; i < protect && total > limit; i++ {
		short, ok := summarize(msgs[i], names)
		if !ok {
			continue
		}
		total += estimateTokens(short) - estimateTokens(msgs[i])
		msgs[i] = short
		changed++
	}
	for total > limit {
		cut := nextExchange(msgs)
		if cut < 0 {
			break
		}
		total -= estimateAll(msgs[1:cut])
		changed += cut - 1
		msgs = append(msgs[:1], msgs[cut:]...)
	}
	return msgs, changed
}

// nextExchange returns the index of the second user text message after the
// system prompt, so msgs[1:i] is the oldest whole exchange; -1 when only the
// latest exchange is left.
func nextExchange(msgs []openai.ChatCompletionMessage) int {
	seen := 0
	for i := 1; i < len(msgs); i++ {
		if isUserText(msgs[i]) {
			seen++
			if seen == 2 {
				return i
			}
		}
	}
	return -1
}

// isUserText is a message the person wrote (not a tool-image carrier).
func isUserText(m openai.ChatCompletionMessage) bool {
	return m.Role == openai.ChatMessageRoleUser && m.MultiContent == nil &&
		!strings.HasPrefix(m.Content, elidedPrefix) && !strings.HasPrefix(m.Content, imagesLeftOut)
}

// summarize replaces a tool result or tool-image message by one line.
func summarize(m openai.ChatCompletionMessage, names map[string]string) (openai.ChatCompletionMessage, bool) {
	switch {
	case m.Role == openai.ChatMessageRoleTool && !strings.HasPrefix(m.Content, elidedPrefix):
		head := strings.Join(strings.Fields(m.Content), " ")
		if len(head) > 80 {
			head = head[:80]
		}
		m.Content = fmt.Sprintf("%s: earlier result of %s, %d chars, began %q. Call the tool again if you need it.]",
			elidedPrefix, names[m.ToolCallID], len(m.Content), strings.ToValidUTF8(head, ""))
		return m, true
	case m.Role == openai.ChatMessageRoleUser && m.MultiContent != nil:
		return openai.ChatCompletionMessage{Role: m.Role, Content: elidedPrefix + ": earlier tool images.]"}, true
	}
	return m, false
}

// toolCallNames maps tool-call ids to "name(args)" for summaries.
func toolCallNames(msgs []openai.ChatCompletionMessage) map[string]string {
	names := map[string]string{}
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			args := c.Function.Arguments
			if len(args) > 120 {
				args = args[:120] + "…"
			}
			names[c.ID] = c.Function.Name + " " + args
		}
	}
	return names
}

func lastIndex(msgs []openai.ChatCompletionMessage, f func(openai.ChatCompletionMessage) bool) int {
	for i := len(msgs) - 1; i >= 0; i-- {
		if f(msgs[i]) {
			return i
		}
	}
	return -1
}

// promptLimit is the estimate the messages may reach: the window minus the
// tool definitions and room for the answer.
func promptLimit(window, toolBytes int) int {
	reserve := min(window/8, 8192)
	return window - reserve - toolBytes/3
}
