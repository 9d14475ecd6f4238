#!/usr/bin/env bash
# A short, real labledger session: a ledger in a temporary folder, one run's lifecycle recorded
# with `labledger emit`, then SQL over it. Every command here is what a user would type.
set -euo pipefail

work=$(mktemp -d "${TMPDIR:-/tmp}/labledger-demo.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
# Print each command as you would type it (quoted where needed), then run it.
quote() {
    local arg out=()
    for arg in "$@"; do
        if [[ $arg =~ ^[A-Za-z0-9_./:=@%+,-]+$ ]]; then out+=("$arg"); else out+=("'${arg//\'/\'\\\'\'}'"); fi
    done
    printf '%s' "${out[*]}"
}
show() { printf '\n$ %s\n' "$(quote "$@")"; "$@" 2>&1; }

show labledger init

# Rent a box (backfilled: it was rented this morning) and launch a run on it.
show labledger rent --profile runpod --instance box-a100 --price-per-hour 1.89 --currency USD \
    --at 2026-12-02T09:00:00Z
show labledger emit run.launched --run denoise-lr3e-4 --instance box-a100 \
    --data '{"command": ["python", "train.py", "--lr", "3e-4"], "host": "box-a100"}'

# Two checkpoints: real bytes, stored in the content-addressed store, then recorded.
for step in 1000 2000; do
    head -c 65536 /dev/urandom > "ckpt-$step.pth"
    show labledger checkpoint "ckpt-$step.pth" --run denoise-lr3e-4 --step $step \
        --metric psnr=3$((step / 1000)).4
done
show labledger emit run.exited --run denoise-lr3e-4 --set exit_code=0 --set duration_s=5400

# A second run that crashed.
show labledger emit run.launched --run denoise-lr1e-3 --instance box-a100 \
    --data '{"command": ["python", "train.py", "--lr", "1e-3"], "host": "box-a100"}'
show labledger emit run.exited --run denoise-lr1e-3 --set exit_code=1

show labledger sql "select run, state, exit_code, checkpoints, host, instance from runs order by run"
show labledger sql "select run, step, role, size, in_store, digest from checkpoints order by step"
show labledger log --run denoise-lr3e-4 --kind 'run.*'
show labledger check --deep
