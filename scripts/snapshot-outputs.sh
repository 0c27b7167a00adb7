#!/usr/bin/env bash
# Usage (from the repo root): scripts/snapshot-outputs.sh OUTDIR
# Lowers every input with --target all --mcpu all under both profiles and moves the files to
# OUTDIR/<profile>/<input>/. The banner records the command line (with -o), so the files are
# written under the fixed relative path .snap/ first: then `diff -r BEFORE AFTER` is exact.
set -euo pipefail
out=${1:?outdir}; rm -rf .snap "$out"
for prof in isa sm90; do
  for f in /work/shared/ptx/*.ptx examples/*.ptx test/cases/*.ptx; do
    d=".snap/$prof/$(basename "$f" .ptx)"; mkdir -p "$d"
    npx tsx bin/ptx-lower.ts lower "$f" --target all --mcpu all --semantics "$prof" -o "$d" >"$d/stdout" 2>"$d/stderr" || echo "rc=$?" >"$d/rc"
  done
done
mkdir -p "$(dirname "$out")"; mv .snap "$out"
