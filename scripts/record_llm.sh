#!/usr/bin/env bash
# Record real-LLM runs for the `recorded` LLM (replayable on any CPU), one question x method at a time.
#
#   scripts/record_llm.sh [WORKSPACE] [LLM] [METHODS] [QUESTION_IDS...]
#   make record-llm                      # demo questions, local 1.5B, bubblerag + sgrag + reg
#   make record-llm RECORD_WS=musique RECORD_IDS="id1 id2 ..."
#
# Each piece runs under `flock /tmp/egx-cpu.lock` (one heavy job at a time on a shared machine) and
# is saved as soon as it finishes, so a kill loses one piece; running the script again skips what
# the bundle already holds (egx record resumes) and re-asks nothing the LLM cache already got.
set -euo pipefail
cd "$(dirname "$0")/.."
WS="${1:-demo}"; LLM="${2:-local}"; METHODS="${3:-bubblerag,sgrag,reg}"
shift $(( $# < 3 ? $# : 3 ))
PY="${PY:-.venv/bin/python}"
IDS=("$@")
if [ ${#IDS[@]} -eq 0 ]; then
  # every question of the workspace (its questions file), by id
  mapfile -t IDS < <("$PY" - "$WS" <<'PYEOF'
import sys
from core.backends.registry import DEFAULT_EMBEDDER, get_embedder
from core.cli import resolve_workspace
from core.index.questions import load_questions
for q in load_questions(resolve_workspace(sys.argv[1], get_embedder(DEFAULT_EMBEDDER))):
    print(q.id)
PYEOF
)
fi
for id in "${IDS[@]}"; do
  for m in ${METHODS//,/ }; do
    flock /tmp/egx-cpu.lock "$PY" -m core.cli record --workspace "$WS" --llm "$LLM" --methods "$m" --only "$id" \
      ${RECORD_ARGS:-}
  done
done
