// Package transcript shows an agent's turn as it happens (narration, tool
// calls and their outcomes, one line each) and records it as the JSON
// transcript that `browseragent run --json` prints.
package transcript
