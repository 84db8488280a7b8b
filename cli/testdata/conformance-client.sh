#!/bin/sh
# The MCP conformance suite's client: browseragent driven from its CLI as a
# person scripts it. The suite appends the server URL and names the
# scenario in $MCP_CONFORMANCE_SCENARIO (JSON extras in
# $MCP_CONFORMANCE_CONTEXT). $BROWSERAGENT is the binary; $BROWSER plays
# the person's browser (curl, following the authorization redirect).
set -u
url=$1
ba=${BROWSERAGENT:-browseragent}
scenario=${MCP_CONFORMANCE_SCENARIO:-}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# ctx KEY: a string field of the flat JSON context object.
ctx() { printf '%s' "${MCP_CONFORMANCE_CONTEXT:-}" | sed -n "s/.*\"$1\": *\"\([^\"]*\)\".*/\1/p"; }

# The server entry, as in any mcp.json; a client registered beforehand
# when the scenario hands one out, else the client's metadata document URL
# (used when the authorization server supports those).
# A machine client (the client-credentials extension) uses its id and
# secret without a browser.
oauth='"clientMetadataUrl": "https://conformance-test.local/client-metadata.json"'
grant=
case $scenario in auth/client-credentials-*) grant='"grant": "client_credentials", ' ;; esac
if [ -n "$(ctx client_secret)" ]; then
	oauth="$grant\"clientId\": \"$(ctx client_id)\", \"clientSecret\": \"$(ctx client_secret)\""
fi
cat >"$dir/mcp.json" <<JSON
{"mcpServers": {
  "chrome-devtools": {"disabled": true},
  "conf": {"type": "http", "url": "$url", "oauth": {$oauth}}
}}
JSON
mcp() { "$ba" mcp --mcp-config "$dir/mcp.json" "$@"; }

# call ARGS: mcp call; when the server asks for a (new) login, log in and
# call again, once.
call() {
	out=$(mcp call --yes "$@" 2>&1) && { printf '%s\n' "$out"; return 0; }
	printf '%s\n' "$out" >&2
	case $out in
	*"mcp login"*) mcp login conf && mcp call --yes "$@" ;;
	*) return 1 ;;
	esac
}

case $scenario in
initialize) mcp tools conf ;;
tools_call) call conf add_numbers '{"a": 2, "b": 3}' ;;
elicitation-sep1034-client-defaults) call --elicit accept conf test_client_elicitation_defaults '{}' ;;
sse-retry) call conf test_reconnection '{}' ;;
auth/client-credentials-*)
	mcp tools conf || exit 1
	call conf test-tool '{}'
	;;
auth/*)
	mcp login conf || exit 1
	mcp tools conf || exit 1
	call conf test-tool '{}'
	;;
*) echo "conformance-client.sh: unknown scenario '$scenario'" >&2; exit 2 ;;
esac
