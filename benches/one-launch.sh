#!/bin/sh
# One runner process per launch (issue 40), timed: a generated vitest library
# of 13 case files (tests/bench/backend/<name>/) launched whole by
# `testdeck run bench/backend` beside `npx vitest run` of the same files, and,
# with PLAYWRIGHT=1, a scope of three Playwright specs (the adoption fixture
# `app`'s spec and two of its own) launched by `testdeck run web/e2e`.
# Interleaved, RUNS runs each (default 5); wall time in seconds, then medians.
#
#   benches/one-launch.sh [RUNS]
#
# TESTDECK: the binary (default target/release/testdeck, else target/debug);
# BEFORE: a folder holding another version of the runner's scripts
# (test-workflow.mjs, the reporters, lib/) timed as a third column; CHROMIUM_PATH:
# the Chromium for the Playwright part (default /usr/bin/chromium). Needs
# examples/realworld's node_modules installed.
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
bin=${TESTDECK:-$repo/target/release/testdeck}
[ -x "$bin" ] || bin=$repo/target/debug/testdeck
modules=$repo/examples/realworld/node_modules
runs=${1:-5}
[ -d "$modules" ] || { echo "one-launch: install examples/realworld's node_modules first" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# --- the library: 13 modules, 13 case files of 6 tests each -----------------
lib=$work/lib
mkdir -p "$lib/src"
ln -s "$modules" "$lib/node_modules"
cat > "$lib/package.json" <<'EOF'
{ "name": "bench-lib", "private": true, "type": "module", "scripts": { "test": "vitest run" } }
EOF
i=0
for name in clamp chunk words slug pad range sum unique zip pick group count wrap; do
  i=$((i + 1))
  cat > "$lib/src/$name.ts" <<EOF
// $name: a small helper of the bench library ($i of 13)
export function scale(x: number): number {
  return x * $i;
}
export function label(s: string): string {
  return \`\${s.trim().toLowerCase()}-$name\`;
}
export function series(n: number): number[] {
  return Array.from({ length: n }, (_, k) => k * $i);
}
export function total(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}
EOF
  dir=$lib/tests/bench/backend/$name
  mkdir -p "$dir"
  cat > "$dir/$name.test.ts" <<EOF
import { describe, expect, it } from 'vitest';
import { label, scale, series, total } from '../../../../src/$name';

describe('$name', () => {
  describe('numbers', () => {
    it('scales by $i', () => expect(scale(2)).toBe(2 * $i));
    it('scales zero to zero', () => expect(scale(0)).toBe(0));
    it('makes a series', () => expect(series(3)).toEqual([0, $i, 2 * $i]));
    it('sums a series', () => expect(total(series(4))).toBe(6 * $i));
  });
  describe('labels', () => {
    it('lowers and trims', () => expect(label('  A ')).toBe('a-$name'));
    it('keeps the name', () => expect(label('x').endsWith('$name')).toBe(true));
  });
});
EOF
done
(cd "$lib" && "$bin" init >/dev/null)

# --- the Playwright scope: three specs of the app fixture --------------------
app=$work/app
if [ "${PLAYWRIGHT:-0}" = 1 ]; then
  cp -R "$repo/tests/fixtures/adopt/app" "$app"
  ln -s "$modules" "$app/node_modules"
  (cd "$app" && "$bin" init >/dev/null)
  mkdir -p "$app/tests/web/e2e/search" "$app/tests/web/e2e/browse" "$app/tests/web/e2e/empty"
  mv "$app/src/e2e/search.spec.ts" "$app/tests/web/e2e/search/"
  # two more specs: the first three tests of the one there
  head -n 22 "$app/tests/web/e2e/search/search.spec.ts" > "$app/tests/web/e2e/browse/browse.spec.ts"
  echo '});' >> "$app/tests/web/e2e/browse/browse.spec.ts"
  cp "$app/tests/web/e2e/browse/browse.spec.ts" "$app/tests/web/e2e/empty/empty.spec.ts"
  export CHROMIUM_PATH="${CHROMIUM_PATH:-/usr/bin/chromium}"
  PLAYWRIGHT_BROWSERS_PATH=$work/no-browsers
  export PLAYWRIGHT_BROWSERS_PATH
  mkdir -p "$PLAYWRIGHT_BROWSERS_PATH"
fi

# the runner's scripts of this tree, or BEFORE's
use_scripts() {
  from=$2
  cp "$from/test-workflow.mjs" "$from/vitest-reporter.mjs" "$from/playwright-reporter.mjs" "$1/scripts/"
  cp "$from/lib/"*.mjs "$1/scripts/lib/"
}

now() { date +%s.%N; }
# time one command (its output dropped): the seconds it took; every case
# passes here, so a failure is said
timed() {
  t0=$(now)
  "$@" >"$work/out" 2>&1 || { echo "one-launch: failed: $*" >&2; tail -n 20 "$work/out" >&2; }
  t1=$(now)
  echo "$t0 $t1" | awk '{ printf "%.2f", $2 - $1 }'
}

median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

row() {
  label=$1; shift
  m=$(echo "$*" | median)
  echo "| $label | $* | $m |"
}

vitest_runs=; deck_runs=; before_runs=
pw_runs=; pwdeck_runs=; pwbefore_runs=
for k in $(seq "$runs"); do
  vitest_runs="$vitest_runs $(cd "$lib" && timed npx vitest run tests/bench)"
  use_scripts "$lib" "$repo/assets/init/scripts"
  rm -rf "$lib/tests/logs"
  deck_runs="$deck_runs $(timed "$bin" run --root "$lib" bench/backend)"
  if [ -n "${BEFORE:-}" ]; then
    use_scripts "$lib" "$BEFORE"
    rm -rf "$lib/tests/logs"
    before_runs="$before_runs $(timed "$bin" run --root "$lib" bench/backend)"
  fi
  if [ "${PLAYWRIGHT:-0}" = 1 ]; then
    use_scripts "$app" "$repo/assets/init/scripts"
    rm -rf "$app/tests/logs"
    pwdeck_runs="$pwdeck_runs $(timed "$bin" run --root "$app" web/e2e)"
    if [ -n "${BEFORE:-}" ]; then
      use_scripts "$app" "$BEFORE"
      rm -rf "$app/tests/logs"
      pwbefore_runs="$pwbefore_runs $(timed "$bin" run --root "$app" web/e2e)"
    fi
  fi
  echo "round $k done" >&2
done

echo "| | runs (s) | median (s) |"
echo "| --- | --- | --- |"
row '`npx vitest run tests/bench` (13 files)' $vitest_runs
row '`testdeck run bench/backend`' $deck_runs
[ -z "$before_runs" ] || row '`testdeck run bench/backend`, BEFORE' $before_runs
[ -z "$pwdeck_runs" ] || row '`testdeck run web/e2e` (3 specs)' $pwdeck_runs
[ -z "$pwbefore_runs" ] || row '`testdeck run web/e2e` (3 specs), BEFORE' $pwbefore_runs
