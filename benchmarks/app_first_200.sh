#!/usr/bin/env bash
# Seconds from `make app` to the first HTTP 200 on / (what a newcomer's browser needs), then the server is
# stopped (SIGTERM to its process group). Usage, one heavy job at a time on a shared machine:
#   flock /tmp/egx-cpu.lock benchmarks/app_first_200.sh EGX_HOME [PORT]
# EGX_HOME: a home with the samples built (copy one: never point it at a home you use), or one without
# workspaces/musique to time a first start; the server starts building what is missing in the background.
set -u
home=$1 port=${2:-8761}
cd "$(dirname "$0")/.."
t0=$(date +%s.%N)
EGX_HOME=$home setsid make app PORT="$port" > "$home/app_first_200.log" 2>&1 &
pid=$!
code=000
for _ in $(seq 1 4800); do
  code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/" || true)
  [ "$code" = 200 ] && break
  sleep 0.25
done
echo "first HTTP $code after $(echo "$(date +%s.%N) - $t0" | bc) s (EGX_HOME=$home)"
kill -TERM -- -"$pid" 2>/dev/null
wait "$pid" 2>/dev/null
