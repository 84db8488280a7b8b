package mcpclient

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// defaultMaxMessageBytes caps one message from a stdio server. A larger
// response is replaced by a JSON-RPC error for the same request, so the
// call fails with a clear reason and the server stays usable.
const defaultMaxMessageBytes = 16 << 20

// stdoutFilter sits between a stdio server's stdout and the SDK's
// newline-delimited JSON reader. Servers print banners and logs on stdout
// by mistake; such lines would end the session, so they go to the stderr
// log instead. Oversized messages are discarded as described above.
type stdoutFilter struct {
	src     *bufio.Reader
	log     *ringBuffer
	max     int
	pending []byte
	line    []byte
	// onRequest, when set, is called for each request the server sends
	// (process.requested).
	onRequest func(jsonrpc.ID)
}

func newStdoutFilter(src io.Reader, log *ringBuffer, max int) *stdoutFilter {
	if max <= 0 {
		max = defaultMaxMessageBytes
	}
	return &stdoutFilter{src: bufio.NewReaderSize(src, 64*1024), log: log, max: max}
}

func (f *stdoutFilter) Read(p []byte) (int, error) {
	for len(f.pending) == 0 {
		msg, err := f.nextMessage()
		if err != nil {
			return 0, err
		}
		f.pending = msg
	}
	n := copy(p, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}

// nextMessage returns the next complete line that parses as a JSON-RPC
// message (or batch), newline included. Anything else is logged. Text a
// server printed without a newline before a message ("Loading…{"jsonrpc"…")
// is logged and the message after it kept.
func (f *stdoutFilter) nextMessage() ([]byte, error) {
	for {
		f.line = f.line[:0]
		size, id, err := f.readLine()
		if size > f.max {
			if msg := oversized(id, size, f.max); msg != nil {
				return msg, nil
			}
			continue
		}
		complete := len(f.line) > 0 && f.line[len(f.line)-1] == '\n'
		trimmed := bytes.TrimSpace(f.line)
		if len(trimmed) > 0 {
			if !complete { // the server ended mid-line: not a message
				f.log.addOutput("[stdout, not JSON-RPC] " + string(trimmed))
			} else if isJSONRPC(trimmed) {
				f.sawMessage(trimmed)
				return append(trimmed, '\n'), nil
			} else if prefix, msg, ok := salvage(trimmed); ok {
				f.log.addOutput("[stdout, not JSON-RPC] " + string(prefix))
				f.sawMessage(msg)
				return append(msg, '\n'), nil
			} else {
				f.log.addOutput("[stdout, not JSON-RPC] " + string(trimmed))
			}
		}
		if err != nil {
			return nil, err
		}
	}
}

// sawMessage tells onRequest about a request (not a notification, a
// response or a batch, which servers do not send unasked).
func (f *stdoutFilter) sawMessage(line []byte) {
	if f.onRequest == nil || line[0] != '{' {
		return
	}
	if msg, err := jsonrpc.DecodeMessage(line); err == nil {
		if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
			f.onRequest(req.ID)
		}
	}
}

// isJSONRPC says whether line is one JSON-RPC message, or a batch of them,
// as the SDK will decode it; a JSON log line ({"level":30,…}, or one that
// merely mentions "jsonrpc") is not.
func isJSONRPC(line []byte) bool {
	switch line[0] {
	case '{':
		_, err := jsonrpc.DecodeMessage(line)
		return err == nil
	case '[':
		var batch []json.RawMessage
		if json.Unmarshal(line, &batch) != nil || len(batch) == 0 {
			return false
		}
		for _, m := range batch {
			if _, err := jsonrpc.DecodeMessage(m); err != nil {
				return false
			}
		}
		return true
	}
	return false
}

// salvage finds a JSON-RPC message that ends line after some other text.
func salvage(line []byte) (prefix, msg []byte, ok bool) {
	for i, tries := 1, 0; i < len(line) && tries < 8; i++ {
		if line[i] != '{' && line[i] != '[' {
			continue
		}
		tries++
		if isJSONRPC(line[i:]) {
			return bytes.TrimSpace(line[:i]), line[i:], true
		}
	}
	return nil, nil, false
}

// readLine reads one line into f.line, keeping at most max bytes. Past
// that it keeps nothing more and only follows the JSON structure to find
// the message's own top-level "id", wherever it is (Go servers write it
// first, Node servers after the result; an "id" inside the result is not
// it).
func (f *stdoutFilter) readLine() (size int, id []byte, err error) {
	var sc *idScanner
	for {
		chunk, err := f.src.ReadSlice('\n')
		size += len(chunk)
		switch {
		case sc != nil:
			sc.feed(chunk)
		case size <= f.max:
			f.line = append(f.line, chunk...)
		default:
			sc = &idScanner{}
			sc.feed(f.line)
			sc.feed(chunk)
			f.line = f.line[:0]
		}
		if err != bufio.ErrBufferFull {
			if sc != nil {
				id = sc.id()
			}
			return size, id, err
		}
	}
}

// oversized builds the error response for a message that was too large;
// nil for a notification (no id), which is dropped.
func oversized(id []byte, size, max int) []byte {
	if id == nil {
		return nil
	}
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":"message of %d bytes exceeds the %d-byte limit; ask the tool for less"}}`+"\n", id, size, max)
}

// idScanner follows a JSON object byte by byte, keeping only the value of
// its top-level "id" member (a number or a string).
type idScanner struct {
	depth          int
	inStr, esc     bool
	awaitKey       bool   // the next string at depth 1 is a key
	inKey          bool   // reading a key at depth 1
	key            []byte // up to 3 bytes of it
	afterID        bool   // `"id":` seen, its value not started
	inValue        bool   // reading the id's value
	value          []byte
	found, tooLong bool
}

func (s *idScanner) id() []byte {
	if !s.found || s.tooLong {
		return nil
	}
	return s.value
}

func (s *idScanner) endNumber() {
	if s.inValue && !s.inStr {
		s.inValue, s.found = false, len(s.value) > 0
	}
}

func (s *idScanner) keep(c byte) {
	if len(s.value) >= 256 {
		s.tooLong = true
		return
	}
	s.value = append(s.value, c)
}

func (s *idScanner) feed(b []byte) {
	for _, c := range b {
		if s.inStr {
			if s.inValue {
				s.keep(c)
			}
			switch {
			case s.esc:
				s.esc = false
			case c == '\\':
				s.esc = true
			case c == '"':
				s.inStr = false
				if s.inKey {
					s.inKey = false
				} else if s.inValue {
					s.inValue, s.found = false, true
				}
			default:
				if s.inKey && len(s.key) < 3 {
					s.key = append(s.key, c)
				} else if s.inKey {
					s.key = append(s.key[:0], 'x', 'x', 'x')
				}
			}
			continue
		}
		switch c {
		case '"':
			s.inStr = true
			if s.depth == 1 {
				switch {
				case s.awaitKey:
					s.awaitKey, s.inKey, s.key = false, true, s.key[:0]
				case s.afterID && !s.found:
					s.afterID, s.inValue, s.value = false, true, append(s.value[:0], c)
				}
			}
		case '{', '[':
			s.afterID = false
			s.depth++
			if s.depth == 1 && c == '{' {
				s.awaitKey = true
			}
		case '}', ']':
			s.endNumber()
			s.depth--
		case ':':
			if s.depth == 1 && string(s.key) == "id" {
				s.afterID = true
			}
		case ',':
			s.endNumber()
			if s.depth == 1 {
				s.awaitKey, s.afterID = true, false
			}
		case ' ', '\t', '\r', '\n':
			s.endNumber()
		default:
			if s.depth == 1 && s.afterID && !s.found {
				s.afterID, s.inValue, s.value = false, true, s.value[:0]
			}
			if s.inValue {
				s.keep(c)
			}
		}
	}
}
