#!/usr/bin/env bash
# Peak memory and wall time of cairn on hostile inputs within the limits
# (SPEC §1: peak RSS under 48 MiB for any of them), next to `jq -c .` on
# the same file. It generates the inputs, then runs each binary on each,
# interleaved, and prints the median wall time of ROUNDS direct runs and
# the largest peak RSS of as many runs under GNU `time -v`.
#
#   scripts/mem.sh [ROUNDS [BIN...]]    (default: 3 rounds, a build of this tree)
#   e.g. git worktree add /tmp/old HEAD && (cd /tmp/old && CGO_ENABLED=0 go build -o /tmp/cairn-old ./cmd/cairn)
#        CGO_ENABLED=0 go build -o /tmp/cairn-new ./cmd/cairn
#        scripts/mem.sh 3 /tmp/cairn-old /tmp/cairn-new
#
# MEM_DIR=dir keeps the generated inputs there (and reuses them); MEM_ONLY
# ="string nested" runs only those inputs. The inputs:
#
#   string     one record of 16 MiB: an mcp_tool_call whose argument is one string
#   escaped    the same, the string all escapes (\n, \", \u00e9)
#   nested     one record of 16 MiB: an argument of sibling arrays nested 124 deep
#   nestobj    the same with objects ({"a":{"a":…}}) nested 124 deep
#   members    one record: an argument object of 1,000,000 members
#   inflight   49,997 mcp_tool_calls started, none completed
#   traj-top   a trajectory with 1,600,000 top-level members
#   traj-event a trajectory whose one event's input has 1,000,000 members
#   max        the realistic maximum export of scripts/gencodex (the control)
#
# and one object of about 16 MiB whose extra members have as many distinct
# short names as fit (about 1,960,000: every name of 1 to 4 printable
# characters, in counter order), the record otherwise valid:
#
#   codex-top2m     the top level of a codex mcp_tool_call record
#   codex-args2m    that call's arguments
#   claude-top2m    the top level of a Claude Code assistant record
#   claude-msg2m    that record's message object
#   traj-top2m      the top level of a trajectory
#   traj-payload2m  a trajectory event's tool_invocation payload
#
# and two Claude Code assistant records whose message content array fills
# about 16 MiB, past the 256 elements a checker locates:
#
#   claude-elems    about 8,380,000 elements, each the number 1
#   claude-blocks   about 620,000 text blocks, {"type":"text","text":""}
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
[ $# -gt 0 ] && shift
command -v jq >/dev/null || { echo "mem.sh needs jq (apt-get install -y jq)"; exit 2; }
[ -x /usr/bin/time ] || { echo "mem.sh needs GNU time at /usr/bin/time (apt-get install -y time)"; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ $# -eq 0 ]; then
  CGO_ENABLED=0 go build -trimpath -o "$tmp/cairn" ./cmd/cairn
  set -- "$tmp/cairn"
fi
dir=${MEM_DIR:-$tmp}
mkdir -p "$dir"

head='{"type":"thread.started","thread_id":"t"}
{"type":"turn.started"}'
tail='{"type":"turn.completed","usage":{"input_tokens":1,"cached_input_tokens":0,"output_tokens":1}}'
call='{"type":"item.completed","item":{"id":"item_0","type":"mcp_tool_call","server":"cairn-memory","tool":"memory_search","arguments":'
callEnd=',"result":null,"error":null,"status":"completed"}}'
# room for everything but the argument's repeated part, under 16 MiB
budget=$((16 * 1024 * 1024 - 1024))

# rep N STR: STR N times
# (strings go through the environment: awk -v would undo their escapes)
rep() { S=$2 awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++) printf "%s", ENVIRON["S"] }'; }

# codex1 NAME PREFIX UNIT SEP SUFFIX: one call whose argument is PREFIX,
# then UNIT repeated (SEP between) to fill the budget, then SUFFIX.
codex1() {
  local name=$1 prefix=$2 unit=$3 sep=$4 suffix=$5 f="$dir/$1.jsonl"
  [ -s "$f" ] && return
  local n=$(( budget / (${#unit} + ${#sep}) ))
  {
    printf '%s\n%s%s' "$head" "$call" "$prefix"
    U=$unit S=$sep awk -v n="$n" 'BEGIN { u = ENVIRON["U"]; s = ENVIRON["S"]
      for (i = 0; i < n; i++) printf "%s%s", (i ? s : ""), u }'
    printf '%s%s\n%s\n' "$suffix" "$callEnd" "$tail"
  } > "$f"
}

# names BYTES SKIP...: ,"NAME":0 for distinct short names until BYTES
# bytes are written. The names count up over the printable ASCII
# characters but the quote and the backslash (93 of them: 1 to 4
# characters make 75 million names), skipping the names SKIP (the
# object's own members).
names() {
  local bytes=$1; shift
  LC_ALL=C awk -v budget="$bytes" -v skip="$*" 'BEGIN {
    for (c = 33; c < 127; c++) if (c != 34 && c != 92) a[k++] = sprintf("%c", c)
    n = split(skip, s, " "); for (i = 1; i <= n; i++) skipped[s[i]] = 1
    len = 1; d[0] = 0
    for (total = 0; ; ) {
      name = ""; for (i = len - 1; i >= 0; i--) name = name a[d[i]]
      for (i = 0; i < len && ++d[i] == k; i++) d[i] = 0
      if (i == len) { d[len++] = 0 }
      if (name in skipped) continue
      m = ",\"" name "\":0"
      if (total + length(m) > budget) break
      printf "%s", m; total += length(m)
    } }'
}

gen() {
  codex1 string '{"scope":"project","query":"' 'ledger validation conventions ' '' '"}'
  codex1 escaped '{"scope":"project","query":"' '\n\"\u00e9\\' '' '"}'
  # root, item, arguments and the member's array are 4 levels: 120 more
  codex1 nested '{"scope":"project","deep":[' "$(rep 120 '[')$(rep 120 ']')" , ']}'
  codex1 nestobj '{"scope":"project","deep":[' "$(rep 120 '{"a":')0$(rep 120 '}')" , ']}'
  if [ ! -s "$dir/members.jsonl" ]; then
    {
      printf '%s\n%s' "$head" "$call"
      awk 'BEGIN { printf "{\"scope\":\"project\""; for (i = 0; i < 1000000; i++) printf ",\"k%07d\":%d", i, i % 10; printf "}" }'
      printf '%s\n%s\n' "$callEnd" "$tail"
    } > "$dir/members.jsonl"
  fi
  if [ ! -s "$dir/inflight.jsonl" ]; then
    {
      printf '%s\n' "$head"
      awk 'BEGIN { for (i = 0; i < 49997; i++)
        printf "{\"type\":\"item.started\",\"item\":{\"id\":\"item_%d\",\"type\":\"mcp_tool_call\",\"server\":\"cairn-memory\",\"tool\":\"memory_search\",\"arguments\":{\"scope\":\"project\",\"query\":\"query number %d of many\",\"limit\":10},\"result\":null,\"error\":null,\"status\":\"in_progress\"}}\n", i, i }'
      printf '%s\n' "$tail"
    } > "$dir/inflight.jsonl"
  fi
  local thead='{"schema_version":1,"session_id":"s","harness":"pi","project_root":"/p","started_at":"2026-10-07T00:00:00Z","ended_at":"2026-10-07T00:01:00Z"'
  local ttail='"capture":{"captured_at":"2026-10-07T00:01:00Z","omitted_reasoning_blocks":0,"omitted_unknown_records":0,"truncated":false}}'
  if [ ! -s "$dir/traj-top.json" ]; then
    {
      printf '%s' "$thead"
      # four base-36 digits name 1,679,616 members
      awk 'BEGIN { d = "0123456789abcdefghijklmnopqrstuvwxyz";
        for (i = 0; i < 1600000; i++) { n = i; s = "";
          for (k = 0; k < 4; k++) { s = substr(d, n % 36 + 1, 1) s; n = int(n / 36) }
          printf ",\"%s\":0", s } }'
      printf ',"events":[],%s\n' "$ttail"
    } > "$dir/traj-top.json"
  fi
  if [ ! -s "$dir/traj-event.json" ]; then
    {
      printf '%s,"events":[{"sequence":0,"kind":"tool_invocation","payload":{"call_id":"c0","tool_name":"memory_search","input":{"scope":"project"' "$thead"
      awk 'BEGIN { for (i = 0; i < 1000000; i++) printf ",\"k%07d\":%d", i, i % 10 }'
      printf '}}}],%s\n' "$ttail"
    } > "$dir/traj-event.json"
  fi
  [ -s "$dir/max.jsonl" ] || go run ./scripts/gencodex > "$dir/max.jsonl"

  # the 2M-name shapes: names fill what the rest of the file leaves
  local item='"item":{"id":"item_0","type":"mcp_tool_call","server":"cairn-memory","tool":"memory_search","arguments":{"scope":"project","query":"q"},"result":null,"error":null,"status":"completed"}'
  if [ ! -s "$dir/codex-top2m.jsonl" ]; then
    {
      printf '%s\n{"type":"item.completed",%s' "$head" "$item"
      names "$budget" type item
      printf '}\n%s\n' "$tail"
    } > "$dir/codex-top2m.jsonl"
  fi
  if [ ! -s "$dir/codex-args2m.jsonl" ]; then
    {
      printf '%s\n%s{"scope":"project"' "$head" "$call"
      names "$budget" scope
      printf '}%s\n%s\n' "$callEnd" "$tail"
    } > "$dir/codex-args2m.jsonl"
  fi
  # a Claude Code stream in the real CLI's shape (testdata/claude/real):
  # init, one assistant record with a text block, the result
  local cinit='{"type":"system","subtype":"init","cwd":"/p","session_id":"s","tools":["Bash"],"mcp_servers":[{"name":"cairn-memory","status":"connected"}],"model":"m","permissionMode":"default","uuid":"u0"}'
  local cmsg='"message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"Done."}],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}'
  local crest='"parent_tool_use_id":null,"session_id":"s","uuid":"u1"'
  local cresult='{"type":"result","subtype":"success","is_error":false,"duration_ms":1,"num_turns":1,"result":"Done.","session_id":"s","terminal_reason":"completed","uuid":"u2"}'
  if [ ! -s "$dir/claude-top2m.jsonl" ]; then
    {
      printf '%s\n{"type":"assistant",%s},%s' "$cinit" "$cmsg" "$crest"
      names "$budget" type message parent_tool_use_id session_id uuid
      printf '}\n%s\n' "$cresult"
    } > "$dir/claude-top2m.jsonl"
  fi
  if [ ! -s "$dir/claude-msg2m.jsonl" ]; then
    {
      printf '%s\n{"type":"assistant",%s' "$cinit" "$cmsg"
      names "$budget" id type role model content stop_reason stop_sequence usage
      printf '},%s}\n%s\n' "$crest" "$cresult"
    } > "$dir/claude-msg2m.jsonl"
  fi
  local cpre=${cmsg%%\"content\":*}
  local cpost=${cmsg#*\"content\":\[*\]}
  if [ ! -s "$dir/claude-elems.jsonl" ]; then
    {
      printf '%s\n{"type":"assistant",%s"content":[1' "$cinit" "$cpre"
      rep $(( (budget - 1024) / 2 )) ',1'
      printf ']%s},%s}\n%s\n' "$cpost" "$crest" "$cresult"
    } > "$dir/claude-elems.jsonl"
  fi
  if [ ! -s "$dir/claude-blocks.jsonl" ]; then
    local block='{"type":"text","text":""}'
    {
      printf '%s\n{"type":"assistant",%s"content":[%s' "$cinit" "$cpre" "$block"
      rep $(( (budget - 1024) / (${#block} + 1) )) ",$block"
      printf ']%s},%s}\n%s\n' "$cpost" "$crest" "$cresult"
    } > "$dir/claude-blocks.jsonl"
  fi
  if [ ! -s "$dir/traj-top2m.json" ]; then
    {
      printf '%s' "$thead"
      names "$budget" schema_version session_id harness project_root started_at ended_at events capture
      printf ',"events":[],%s\n' "$ttail"
    } > "$dir/traj-top2m.json"
  fi
  if [ ! -s "$dir/traj-payload2m.json" ]; then
    {
      printf '%s,"events":[{"sequence":0,"kind":"tool_invocation","payload":{"call_id":"c0","tool_name":"memory_search","input":{"scope":"project"}' "$thead"
      names "$budget" call_id tool_name input
      printf '}}],%s\n' "$ttail"
    } > "$dir/traj-payload2m.json"
  fi
}
gen

export CAIRN_EVAL=1
# seconds of one direct run of "$@", output discarded
wall() {
  local t0 t1
  t0=$EPOCHREALTIME
  "$@" >/dev/null 2>&1 || true
  t1=$EPOCHREALTIME
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f\n", b - a }'
}
# peak RSS in KiB of one run of "$@", from GNU time -v
rss() {
  /usr/bin/time -v -o "$tmp/t" "$@" >/dev/null 2>&1 || true
  awk -F': ' '/Maximum resident set size/ { print $2 }' "$tmp/t"
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

inputs=${MEM_ONLY:-"string escaped nested nestobj members inflight traj-top traj-event max
  codex-top2m codex-args2m claude-top2m claude-msg2m claude-elems claude-blocks traj-top2m traj-payload2m"}
printf '%-11s %9s  %-24s %9s %10s %6s %9s %10s\n' input bytes binary wall_s rss_KiB exit jq_s jq_rss_KiB
for name in $inputs; do
  case $name in
    traj-*) in="$dir/$name.json" flag=--trajectory ;;
    claude-*) in="$dir/$name.jsonl" flag=--claude-jsonl ;;
    *) in="$dir/$name.jsonl" flag=--codex-jsonl ;;
  esac
  : > "$tmp/j"; : > "$tmp/jr"
  for b in "$@"; do : > "$tmp/w.${b//\//_}"; : > "$tmp/r.${b//\//_}"; done
  for _ in $(seq "$rounds"); do
    for b in "$@"; do
      wall "$b" eval protocol "$flag" "$in" --json >> "$tmp/w.${b//\//_}"
      rss "$b" eval protocol "$flag" "$in" --json >> "$tmp/r.${b//\//_}"
    done
    wall jq -c . "$in" >> "$tmp/j"
    rss jq -c . "$in" >> "$tmp/jr"
  done
  j=$(median < "$tmp/j") jr=$(sort -n "$tmp/jr" | tail -n 1)
  for b in "$@"; do
    set +e; "$b" eval protocol "$flag" "$in" --json >/dev/null 2>&1; code=$?; set -e
    printf '%-11s %9d  %-24s %9s %10d %6d %9s %10d\n' "$name" "$(wc -c < "$in")" "$b" \
      "$(median < "$tmp/w.${b//\//_}")" "$(sort -n "$tmp/r.${b//\//_}" | tail -n 1)" "$code" "$j" "$jr"
  done
done
echo "(wall_s: median of $rounds direct runs; rss_KiB: the largest peak RSS of $rounds runs under time -v;"
echo " exit: cairn's exit status, 2 when the input is refused; 48 MiB = 49152 KiB)"
