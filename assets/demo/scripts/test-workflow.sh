#!/bin/sh
# Demo runner for the testdeck demo workspace (stands in for seed 000's
# scripts/test-workflow.mjs). It does not run TypeScript: it reads the step()
# and assert() calls of each selected case file and writes a run folder of the
# raw log contract (seed 000 §5) slowly, so the timeline can be watched live.
#
# Filters (seed 000 §4): --domain D --layer L --suite S --group G (repeatable)
#                        --case C (repeatable) --runs N
# Repeated --group values are a path below the suite (testdeck passes a scope
# such as ai/backend/tools/terminal/live as --group terminal --group live): a
# case matches when its groups hold every one of them. Repeated --case values
# are alternatives.
# Live cases run only with --group live or --case naming them; temp cases only
# with --domain temp or --case. A case fails when its file holds the line
# "demo-outcome: failed" (deterministic, so tests can rely on the outcome).
# Only sh and coreutils are used.
set -eu

domain= layer= suite= groups= cases= runs=1 pace="${DEMO_RUNNER_PACE:-0.4}"
while [ $# -gt 0 ]; do
  case "$1" in
    --domain) domain=$2; shift 2 ;;
    --layer) layer=$2; shift 2 ;;
    --suite) suite=$2; shift 2 ;;
    --group) groups="$groups $2"; shift 2 ;;
    --case) cases="$cases $2"; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --domain=*) domain=${1#*=}; shift ;;
    --layer=*) layer=${1#*=}; shift ;;
    --suite=*) suite=${1#*=}; shift ;;
    --group=*) groups="$groups ${1#*=}"; shift ;;
    --case=*) cases="$cases ${1#*=}"; shift ;;
    --runs=*) runs=${1#*=}; shift ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "test-workflow: unknown argument: $1" >&2; exit 2 ;;
  esac
done
case "$runs" in ''|*[!0-9]*) echo "test-workflow: --runs needs a number" >&2; exit 2 ;; esac

has_groups() { # $1 = the case's groups as /a/b/; true when it holds every --group
  for want in $groups; do
    case "$1" in */"$want"/*) ;; *) return 1 ;; esac
  done
  return 0
}

named() { # $1 = caseId; true when some --case names it
  for want in $cases; do
    [ "$want" = "$1" ] && return 0
  done
  return 1
}

# the case files, in a stable order
list_cases() {
  find tests -type f \( -name '*.test.ts' -o -name '*.test.tsx' -o -name '*.test.js' -o -name '*.test.mjs' \) \
    ! -path 'tests/harness/*' ! -path 'tests/fixtures/*' ! -path 'tests/logs/*' ! -path 'tests/report/*' | LC_ALL=C sort
}

selected() { # $1 = file; prints nothing, returns 0 when the filters select it
  file=$1
  rel=${file#tests/}
  scope=${rel%/*}
  [ "$scope" = "$rel" ] && scope=
  base=${rel##*/}
  id=${base%.test.*}
  d=${scope%%/*}
  rest=${scope#"$d"}; rest=${rest#/}
  if [ "$d" = temp ]; then
    # temp cases have no layer or suite: every folder below temp/ is a group
    l= s= g="/$rest/"
  else
    l=${rest%%/*}
    rest=${rest#"$l"}; rest=${rest#/}
    s=${rest%%/*}
    rest=${rest#"$s"}; rest=${rest#/}
    g="/$rest/"
  fi
  if [ -n "$cases" ]; then named "$id" || return 1; fi
  if [ -n "$domain" ]; then [ "$d" = "$domain" ] || return 1; fi
  if [ -n "$layer" ]; then [ "$l" = "$layer" ] || return 1; fi
  if [ -n "$suite" ]; then [ "$s" = "$suite" ] || return 1; fi
  if [ -n "$groups" ]; then has_groups "$g" || return 1; fi
  if [ -z "$cases" ]; then
    # live cases spend real model calls: only when --group live asks for them
    case "$g" in */live/*) case " $groups " in *" live "*) ;; *) return 1 ;; esac ;; esac
    [ "$d" = temp ] && [ "$domain" != temp ] && return 1
  fi
  return 0
}

now_ms() { # epoch milliseconds (GNU date); falls back to whole seconds
  ms=$(date -u +%s%3N)
  case "$ms" in *N) ms=$(( $(date -u +%s) * 1000 )) ;; esac
  echo "$ms"
}
iso_now() {
  t=$(date -u +%Y-%m-%dT%H:%M:%S.%3NZ)
  case "$t" in *N*) t=$(date -u +%Y-%m-%dT%H:%M:%S.000Z) ;; esac
  echo "$t"
}

emit() { # type name status id message data
  if [ -n "$4" ]; then idf=",\"id\":\"$4\""; else idf=; fi
  printf '{"ts":"%s","type":"%s","name":"%s","status":"%s"%s,"message":"%s","data":%s}\n' \
    "$(iso_now)" "$1" "$2" "$3" "$idf" "$5" "$6" >>"$dir/timeline.jsonl"
}

run_one() { # $1 = case file
  file=$1
  rel=${file#tests/}
  scope=${rel%/*}
  base=${rel##*/}
  id=${base%.test.*}
  layer_of=$(echo "$scope" | cut -d/ -f2)
  fails=no
  grep -q 'demo-outcome: failed' "$file" && fails=yes

  # the runId is YYYYMMDD-HHmmss-SSS and matches startedAt
  while :; do
    stamp=$(date -u '+%Y%m%d-%H%M%S-%3N %Y-%m-%dT%H:%M:%S.%3NZ %s%3N')
    case "$stamp" in *N*) stamp=$(date -u '+%Y%m%d-%H%M%S-000 %Y-%m-%dT%H:%M:%S.000Z %s000') ;; esac
    set -- $stamp
    run_id=$1 started=$2 t0=$3
    dir="tests/logs/$scope/$id/$run_id"
    [ -e "$dir" ] || break
    sleep 0.01
  done
  mkdir -p "$dir"
  : >"$dir/timeline.jsonl"
  echo "[runner] $scope/$id run $run_id started"

  if [ "$layer_of" = e2e ]; then driver=playwright target=electron; else driver=node-harness target=demo-runtime; fi
  model=null
  m=$(sed -n 's/^  model: "\([^"]*\)".*/\1/p' "$file" | head -n 1)
  [ -n "$m" ] && model="\"$m\""

  emit run run/start info "" "case $id started" "{\"runner\":\"scripts/test-workflow.sh\",\"file\":\"$file\"}"
  sleep "$pace"
  steps=0 asserts=0 errors=0 last_step=
  # step("s1", "name", ...) lines, in file order
  for s in $(sed -n 's/.*step("\([^"]*\)", "\([^"]*\)".*/\1|\2/p' "$file"); do
    sid=${s%%|*}; sname=${s#*|}
    emit step "$sname" ok "$sid" "step $sname done" "{\"durationMs\":300}"
    echo "  step $sid $sname ok"
    steps=$((steps + 1)); last_step=$sid
    sleep "$pace"
  done
  emit signal signal/console info "" "runner heartbeat" "{\"pid\":$$}"
  sleep "$pace"
  failed_assert=
  alist=$(sed -n 's/.*assert("\([^"]*\)", "\([^"]*\)".*/\1|\2/p' "$file")
  last_a=$(echo "$alist" | tail -n 1)
  for a in $alist; do
    aid=${a%%|*}; aname=${a#*|}
    if [ "$fails" = yes ] && [ "$a" = "$last_a" ]; then
      emit assertion "$aname" failed "$aid" "$aname did not hold" "{\"expected\":true,\"actual\":false}"
      echo "  assert $aid $aname FAILED"
      failed_assert=$aid
    else
      emit assertion "$aname" ok "$aid" "$aname held" "{\"expected\":true,\"actual\":true}"
      echo "  assert $aid $aname ok"
    fi
    asserts=$((asserts + 1))
    sleep "$pace"
  done

  # artifacts: e2e runs keep a trace; failed e2e runs add the failure
  # screenshot (bound by refs) and the HTML report (seed 000 §6)
  items=
  n_art=0
  add_item() { # id kind path stepId assertionId
    refs=
    [ -n "$4" ] && refs="\"stepId\":\"$4\""
    [ -n "$5" ] && refs="${refs:+$refs,}\"assertionId\":\"$5\""
    items="${items:+$items,}
    {\"id\":\"$1\",\"kind\":\"$2\",\"path\":\"$3\",\"refs\":{$refs}}"
    n_art=$((n_art + 1))
    emit artifact "artifact/$2" info "$1" "$2 written" "{\"path\":\"$3\"}"
  }
  tpl=tests/harness/demo-artifacts
  if [ "$layer_of" = e2e ]; then
    mkdir -p "$dir/artifacts"
    cp "$tpl/trace.zip" "$dir/artifacts/trace.zip"
    add_item trace trace artifacts/trace.zip "" ""
    if [ -n "$failed_assert" ]; then
      cp "$tpl/failure.png" "$dir/artifacts/failure.png"
      add_item failure-screenshot screenshot artifacts/failure.png "$last_step" "$failed_assert"
      mkdir -p "$dir/artifacts/playwright/report"
      cp "$tpl/report.html" "$dir/artifacts/playwright/report/index.html"
      add_item playwright-report playwright-report artifacts/playwright/report/index.html "" ""
    fi
  fi

  if [ -n "$failed_assert" ]; then status=failed end=failed; else status=passed end=ok; fi
  t1=$(now_ms)
  duration=$((t1 - t0))
  emit run run/finish "$end" "" "case $id $status" "{\"durationMs\":$duration}"

  printf '{"type":"session.started","sessionId":"%s"}\n{"type":"session.closed","state":"%s"}\n' \
    "$run_id" "$status" >"$dir/runtime-events.jsonl"
  printf '{\n  "schemaVersion": 4,\n  "items": [%s\n  ]\n}\n' "$items" >"$dir/artifacts.json"

  # meta.json last, through a temp file: its arrival means the run is over
  cat >"$dir/.meta.json.tmp" <<META
{
  "schemaVersion": 4,
  "runId": "$run_id",
  "caseId": "$id",
  "scope": "$scope",
  "status": "$status",
  "startedAt": "$started",
  "finishedAt": "$(iso_now)",
  "stats": {
    "durationMs": $duration,
    "steps": $steps,
    "assertions": $asserts,
    "errors": $errors,
    "artifacts": $n_art
  },
  "runtime": {
    "driver": "$driver",
    "target": "$target",
    "modelName": $model
  }
}
META
  mv "$dir/.meta.json.tmp" "$dir/meta.json"
  echo "[runner] $scope/$id $status ($duration ms)"
  [ "$status" = passed ]
}

files=$(list_cases)
chosen=
for f in $files; do
  if selected "$f"; then chosen="$chosen $f"; fi
done
if [ -z "$chosen" ]; then
  echo "test-workflow: no case matches the filters" >&2
  exit 1
fi
# seed 000 §4: an e2e request first runs the same domain's backend
if [ "$layer" = e2e ] && [ -z "$cases" ]; then
  pre=
  for f in $files; do
    if (layer=backend; suite=; groups=; selected "$f"); then pre="$pre $f"; fi
  done
  chosen="$pre$chosen"
fi

total=0 failed=0
i=0
while [ "$i" -lt "$runs" ]; do
  for f in $chosen; do
    total=$((total + 1))
    run_one "$f" || failed=$((failed + 1))
  done
  i=$((i + 1))
done
echo "[runner] $total run(s), $failed failed"
[ "$failed" -eq 0 ]
