// Package guard decides whether a tool call may run in the browser the agent
// drives. It holds the sensitive-site rules, the approval policy and its
// grants, the tabs the agent owns, the audit log and the marking of untrusted
// text.
//
// Every tool call — from the LLM, a slash command or a scripted subcommand —
// is described as a [Call] and judged by [Policy.Check] before it runs. The
// answer is a [Decision]: allow, ask the person, or deny, with a reason a
// person (and the LLM) can read. guard never prints and never talks to a
// browser: the caller supplies the live URL of the page a call acts on.
//
// guard imports nothing else from browseragent.
package guard
