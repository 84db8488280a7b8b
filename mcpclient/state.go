package mcpclient

import "errors"

// ServerState is where a server is in its lifecycle.
type ServerState int

const (
	StateStarting ServerState = iota // process started or connecting, not initialised yet
	StateReady                       // initialised; its tools are listed
	StateError                       // failed to start or died; Status.Err says why
	StateDisabled                    // "disabled": true in the config
	StateIdle                        // on demand (Options.OnDemand): starts on the first call that needs it
)

func (s ServerState) String() string {
	switch s {
	case StateStarting:
		return "starting"
	case StateReady:
		return "ready"
	case StateError:
		return "error"
	case StateDisabled:
		return "disabled"
	case StateIdle:
		return "idle"
	}
	return "unknown"
}

// Sentinel errors, for errors.Is.
var (
	errUnknownServer = errors.New("unknown MCP server")
	errUnknownTool   = errors.New("unknown MCP tool")
	errNotReady      = errors.New("MCP server not ready")
	errCallTimeout   = errors.New("MCP tool call timed out")
	errClosed        = errors.New("MCP manager closed")
)

// EventKind says what an Event reports.
type EventKind int

const (
	EventState            EventKind = iota // State (and Err) changed
	EventToolsChanged                      // the server's tool list was refreshed
	EventPromptsChanged                    // its prompt list was refreshed
	EventResourcesChanged                  // its resource list was refreshed
	EventResourceUpdated                   // resources/updated for URI
)

func (k EventKind) String() string {
	return [...]string{"state", "tools", "prompts", "resources", "resource-updated"}[k]
}

// Event is sent to Options.OnEvent, one at a time, from a goroutine of the
// manager that holds no lock: the handler may call the Manager.
type Event struct {
	Server string
	Kind   EventKind
	State  ServerState
	Err    error
	URI    string
}
