package shell

import (
	"bytes"
	"fmt"
	"strings"

	prompt "github.com/c-bata/go-prompt"
)

// go-prompt treats every read from the terminal as one key: a pasted line
// that ends in a newline, or text and Enter arriving in one read, is inserted
// as text instead of submitted. keyReader splits raw terminal bytes into the
// tokens go-prompt expects (one key, one escape sequence, or a run of text)
// and turns bracketed pastes into text: a one-line paste ending in a newline
// is submitted, a multi-line paste becomes one placeholder that expands back
// into the whole text when the line is submitted, so it stays one message.

const (
	pasteStart = "\x1b[200~"
	pasteEnd   = "\x1b[201~"
)

// keyReader is not safe for concurrent use; ttyParser serialises access.
type keyReader struct {
	pending []byte   // bytes not yet tokenised (an incomplete sequence)
	inPaste bool     // between pasteStart and pasteEnd
	paste   []byte   // the paste so far
	queue   [][]byte // tokens ready for go-prompt
	pastes  *pasteStore
}

// feed adds raw bytes read from the terminal.
func (k *keyReader) feed(b []byte) {
	k.pending = append(k.pending, b...)
	for len(k.pending) > 0 {
		if !k.step() {
			return
		}
	}
}

// step consumes one token from pending; false means "need more bytes".
func (k *keyReader) step() bool {
	if k.inPaste {
		return k.stepPaste()
	}
	b := k.pending
	switch {
	case b[0] == 0x1b:
		return k.stepEscape()
	case b[0] < 0x20 || b[0] == 0x7f:
		k.push(b[:1])
		k.pending = b[1:]
		return true
	}
	n := 0
	for n < len(b) && b[n] >= 0x20 && b[n] != 0x7f && b[n] != 0x1b {
		n++
	}
	k.push(b[:n])
	k.pending = b[n:]
	return true
}

func (k *keyReader) stepEscape() bool {
	b := k.pending
	if bytes.HasPrefix(b, []byte(pasteStart)) {
		k.inPaste, k.paste = true, nil
		k.pending = b[len(pasteStart):]
		return true
	}
	if len(b) == 1 {
		// A lone ESC at the end of a read is the Escape key.
		k.push(b)
		k.pending = nil
		return true
	}
	n := escapeLen(b)
	if n == 0 {
		return false
	}
	seq := b[:n]
	k.pending = b[n:]
	if prompt.GetKey(seq) != prompt.NotDefined {
		k.push(seq)
	}
	// Sequences go-prompt does not know (Alt-keys, focus reports) would be
	// inserted as text; drop them.
	return true
}

// escapeLen is the length of the escape sequence at the start of b, or 0
// when it is incomplete.
func escapeLen(b []byte) int {
	switch b[1] {
	case '[':
		for i := 2; i < len(b); i++ {
			if b[i] >= 0x40 && b[i] <= 0x7e {
				return i + 1
			}
		}
		return 0
	case 'O':
		if len(b) < 3 {
			return 0
		}
		return 3
	}
	return 2
}

func (k *keyReader) stepPaste() bool {
	i := bytes.Index(k.pending, []byte(pasteEnd))
	if i < 0 {
		// Keep a tail that may be the start of pasteEnd split across reads.
		keep := len(pasteEnd) - 1
		if len(k.pending) <= keep {
			return false
		}
		cut := len(k.pending) - keep
		k.paste = append(k.paste, k.pending[:cut]...)
		k.pending = append([]byte(nil), k.pending[cut:]...)
		return false
	}
	k.paste = append(k.paste, k.pending[:i]...)
	k.pending = k.pending[i+len(pasteEnd):]
	k.inPaste = false
	k.pasted(string(k.paste))
	k.paste = nil
	return true
}

// pasted turns a finished paste into tokens.
func (k *keyReader) pasted(text string) {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	submit := strings.HasSuffix(text, "\n")
	text = strings.TrimRight(text, "\n")
	if strings.Contains(text, "\n") {
		k.push([]byte(k.pastes.add(text)))
		return
	}
	if clean := stripControls(text); clean != "" {
		k.push([]byte(clean))
	}
	if submit {
		k.push([]byte{'\r'})
	}
}

func (k *keyReader) push(tok []byte) {
	k.queue = append(k.queue, append([]byte(nil), tok...))
}

// next pops the next token.
func (k *keyReader) next() ([]byte, bool) {
	if len(k.queue) == 0 {
		return nil, false
	}
	t := k.queue[0]
	k.queue = k.queue[1:]
	return t, true
}

// stripControls removes control characters from pasted single-line text;
// a tab becomes a space so it is not taken for completion.
func stripControls(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t':
			return ' '
		case r < 0x20 || r == 0x7f:
			return -1
		}
		return r
	}, s)
}

// pasteStore keeps multi-line pastes behind placeholders until the line is
// submitted. It is used by the prompt goroutine only.
type pasteStore struct {
	texts map[string]string
	n     int
}

func (p *pasteStore) add(text string) string {
	if p.texts == nil {
		p.texts = map[string]string{}
	}
	p.n++
	ph := fmt.Sprintf("[pasted text #%d, %d lines]", p.n, strings.Count(text, "\n")+1)
	p.texts[ph] = text
	return ph
}

// expand replaces placeholders in line by their text and forgets them.
func (p *pasteStore) expand(line string) string {
	for ph, text := range p.texts {
		line = strings.ReplaceAll(line, ph, text)
	}
	p.texts = nil
	return line
}
