package browsercli

import _ "embed"

// Skill is the SKILL.md `browseragent browser skill` prints: what a coding
// agent needs to drive these commands and read the guard's answers.
//
//go:embed SKILL.md
var Skill string
