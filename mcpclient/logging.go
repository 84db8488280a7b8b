package mcpclient

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// LogLevels are the MCP (syslog) logging levels, least severe first.
var LogLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// HostLogger is the Logger of messages browseragent itself writes about a
// server (a declined elicitation, a refused sampling request).
const HostLogger = "browseragent"

// LogMessage is a notifications/message from a server, or a note of the
// host about it (Logger == HostLogger). It is kept with the server's
// stderr lines (Manager.Logs) and sent to Options.OnLog.
type LogMessage struct {
	Server string
	Level  string
	Logger string
	Text   string
}

// String is the line kept in the log: "[log LEVEL logger] text".
func (l LogMessage) String() string {
	if l.Logger == HostLogger {
		return fmt.Sprintf("[browseragent] %s", l.Text)
	}
	if l.Logger != "" {
		return fmt.Sprintf("[log %s %s] %s", l.Level, l.Logger, l.Text)
	}
	return fmt.Sprintf("[log %s] %s", l.Level, l.Text)
}

// onLog keeps a notifications/message with the stderr tail. It returns at
// once: OnLog runs on the host's queue.
func (s *server) onLog(_ context.Context, r *mcp.LoggingMessageRequest) {
	if r == nil || r.Params == nil {
		return
	}
	s.log(LogMessage{Server: s.name, Level: string(r.Params.Level), Logger: r.Params.Logger, Text: logText(r.Params.Data)})
}

// notice records a message of the host about this server.
func (s *server) notice(level, text string) {
	s.log(LogMessage{Server: s.name, Level: level, Logger: HostLogger, Text: text})
}

func (s *server) log(l LogMessage) {
	s.stderr.add(l.String())
	if fn := s.m.opts.OnLog; fn != nil {
		s.m.post(func() { fn(l) })
	}
}

// logText renders a log message's data: strings as they are, anything
// else as compact JSON.
func logText(data any) string {
	if s, ok := data.(string); ok {
		return s
	}
	b, err := json.Marshal(data)
	if err != nil {
		return fmt.Sprint(data)
	}
	return string(b)
}

// SetLogLevel asks server name to send log messages at level and above
// (logging/setLevel). The level is re-applied when the server restarts.
func (m *Manager) SetLogLevel(ctx context.Context, name, level string) error {
	level = strings.ToLower(level)
	if !contains(LogLevels, level) {
		return fmt.Errorf("unknown log level %q: use one of %s", level, strings.Join(LogLevels, ", "))
	}
	s, sess, err := m.session(name)
	if err != nil {
		return err
	}
	if caps := sess.InitializeResult().Capabilities; caps == nil || caps.Logging == nil {
		return fmt.Errorf("mcp server %q does not offer logging (its messages go to stderr: see its logs)", name)
	}
	cctx, cancel := context.WithTimeout(ctx, s.callTimeout())
	defer cancel()
	if err := sess.SetLoggingLevel(cctx, &mcp.SetLoggingLevelParams{Level: mcp.LoggingLevel(level)}); err != nil {
		return fmt.Errorf("mcp %s: set log level %s: %w", name, level, err)
	}
	h := m.hostInit()
	h.mu.Lock()
	if h.levels == nil {
		h.levels = map[string]string{}
	}
	h.levels[name] = level
	h.mu.Unlock()
	return nil
}
