#!/usr/bin/env bash
# labledger quickstart: one complete, honest session on this machine, in about a minute, with no
# GPU and no network. Every line that starts with `laptop$` or `box$` is a real command, run as
# shown; its output is real, and the script stops if any exit status is not the expected one.
#
#   examples/quickstart/quickstart.sh          the box is a local folder that `pull` reads directly
#   examples/quickstart/quickstart.sh --ssh    the same session, pulling over SSH from 127.0.0.1
#
# Two folders in a temporary directory play two machines:
#   laptop/  your project, where the evidence must end up (its own ledger);
#   box/     the disk of a rented GPU box (its own ledger; labledger installed there too).
# The box trains two tiny PyTorch models (train.py beside this script), seals each run as a
# capsule; the laptop pulls the capsules and the box's ledger, verifies them, and only then is
# the box destroyed (here: its folder deleted). The session ends with SQL over the history.
#
# --ssh: pull over a real OpenSSH server on 127.0.0.1 serving box/. By default the script starts
# its own sshd (needs /usr/sbin/sshd and ssh-keygen): a throwaway host key and user key in the
# temporary directory, key authentication only, loopback only, stopped on exit. To use an sshd
# that is already running, set all three of
#   QUICKSTART_SSH_TARGET=USER@127.0.0.1:PORT   who to log in as, where
#   QUICKSTART_SSH_IDENTITY=FILE                a private key that sshd accepts for USER
#   QUICKSTART_SSH_HOST_KEY=FILE.pub            the server's public host key (to check the pin)
# The server must be able to read the temporary directory (same machine, same user).
#
# Other settings: QUICKSTART_WORK=DIR works in DIR (created, must not exist yet) and keeps it;
# QUICKSTART_KEEP=1 keeps the temporary directory. Needs `labledger` and a `python` with torch
# and pyarrow on PATH: `make demo` creates .venv with them and runs this script.
set -euo pipefail

mode=local
case "${1-}" in
    "") ;;
    --ssh) mode=ssh ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "usage: $0 [--ssh]" >&2; exit 2 ;;
esac
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# --- preflight: tools, and no ledger of yours in reach --------------------------------------------
for tool in labledger python; do
    command -v "$tool" >/dev/null || {
        echo "quickstart: '$tool' is not on PATH; run \`make demo\` (it creates .venv)" >&2; exit 1; }
done
python -c 'import importlib.util as u, sys; sys.exit(any(u.find_spec(m) is None for m in ("torch", "pyarrow")))' || {
    echo "quickstart: this python lacks torch or pyarrow; run \`make demo\`" >&2; exit 1; }
# LABLEDGER_ROOT and friends could point at a real project: this session must never write there.
while IFS= read -r name; do unset "$name"; done < <(compgen -e | grep '^LABLEDGER_' || true)

if [[ -n ${QUICKSTART_WORK-} ]]; then
    work=$QUICKSTART_WORK
    mkdir "$work"
    work=$(cd "$work" && pwd)
else
    work=$(mktemp -d "${TMPDIR:-/tmp}/labledger-quickstart.XXXXXX")
fi
sshd_pid=
cleanup() {
    if [[ -n $sshd_pid ]]; then kill "$sshd_pid" 2>/dev/null || true; wait "$sshd_pid" 2>/dev/null || true; fi
    if [[ -z ${QUICKSTART_WORK-} && -z ${QUICKSTART_KEEP-} ]]; then rm -rf "$work"; fi
}
trap cleanup EXIT
mkdir "$work/laptop" "$work/box"
cp "$here/train.py" "$here/paper.md" "$work/laptop/"

# --- how each step is shown and run ---------------------------------------------------------------
# Print a command as typed (quoted where needed), run it, and check its exit status. Each side
# is its own folder and environment: `on box export NAME=VALUE` sets a variable for later box
# commands only, as it would in a shell on the box.
quote() {
    local arg out=()
    for arg in "$@"; do
        if [[ $arg =~ ^[A-Za-z0-9_./:=@%+,-]+$ ]]; then
            out+=("$arg")
        elif [[ $arg != *\'* ]]; then
            out+=("'$arg'")
        elif [[ $arg != *[\$\`\"\\!]* ]]; then
            out+=("\"$arg\"")
        else
            out+=("'${arg//\'/\'\\\'\'}'")
        fi
    done
    printf '%s' "${out[*]}"
}
env_laptop=() env_box=()
section() { printf '\n\n=== %s\n' "$*"; }
note() { printf '# %s\n' "$@"; }
# on SIDE [--exit N] CMD...: run CMD in SIDE's folder; the script stops unless it exits N (default 0).
on() {
    local side=$1 want=0 rc=0
    shift
    if [[ $1 == --exit ]]; then want=$2; shift 2; fi
    printf '\n%s$ %s\n' "$side" "$(quote "$@")"
    if [[ $1 == export ]]; then
        if [[ $side == box ]]; then env_box+=("$2"); else env_laptop+=("$2"); fi
        return 0
    fi
    local envs=()
    if [[ $side == box ]]; then envs=(${env_box[@]+"${env_box[@]}"}); else envs=(${env_laptop[@]+"${env_laptop[@]}"}); fi
    (cd "$work/$side" && env ${envs[@]+"${envs[@]}"} "$@") 2>&1 || rc=$?
    if ((rc != 0)); then printf '[exit %d]\n' "$rc"; fi
    if ((rc != want)); then
        printf 'quickstart: expected exit %d, got %d, from: %s\n' "$want" "$rc" "$(quote "$@")" >&2
        exit 1
    fi
}

# --- SSH: our own sshd, or the one named by QUICKSTART_SSH_* --------------------------------------
ssh_flags=()
if [[ $mode == ssh ]]; then
    ssh_dir=$work/ssh
    mkdir "$ssh_dir"
    : >"$ssh_dir/ssh_config"  # no ~/.ssh/config aliases or jump hosts: this session is self-contained
    if [[ -n ${QUICKSTART_SSH_TARGET-} ]]; then
        : "${QUICKSTART_SSH_IDENTITY:?QUICKSTART_SSH_TARGET needs QUICKSTART_SSH_IDENTITY too}"
        : "${QUICKSTART_SSH_HOST_KEY:?QUICKSTART_SSH_TARGET needs QUICKSTART_SSH_HOST_KEY too}"
        absolute() { printf '%s/%s' "$(cd "$(dirname "$1")" && pwd)" "$(basename "$1")"; }
        ssh_login=$QUICKSTART_SSH_TARGET
        identity=$(absolute "$QUICKSTART_SSH_IDENTITY") host_key=$(absolute "$QUICKSTART_SSH_HOST_KEY")
    else
        sshd_bin=$(command -v sshd || echo /usr/sbin/sshd)
        [[ -x $sshd_bin ]] && command -v ssh-keygen >/dev/null || {
            echo "quickstart: --ssh needs an OpenSSH server (/usr/sbin/sshd, ssh-keygen:" \
                "apt-get install openssh-server) or QUICKSTART_SSH_TARGET" >&2; exit 1; }
        ssh-keygen -q -t ed25519 -N '' -C quickstart-host -f "$ssh_dir/host_ed25519"
        ssh-keygen -q -t ed25519 -N '' -C quickstart-user -f "$ssh_dir/id_ed25519"
        cp "$ssh_dir/id_ed25519.pub" "$ssh_dir/authorized_keys"
        port=$(python -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
        cat >"$ssh_dir/sshd_config" <<EOF
Port $port
ListenAddress 127.0.0.1
HostKey $ssh_dir/host_ed25519
PidFile $ssh_dir/sshd.pid
AuthorizedKeysFile $ssh_dir/authorized_keys
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
StrictModes no
UsePAM no
Subsystem sftp internal-sftp
LogLevel ERROR
EOF
        [[ $(id -u) != 0 ]] || mkdir -p /run/sshd  # sshd's privilege separation directory
        "$sshd_bin" -D -e -f "$ssh_dir/sshd_config" >"$ssh_dir/sshd.log" 2>&1 &
        sshd_pid=$!
        for _ in $(seq 150); do
            if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then break; fi
            kill -0 "$sshd_pid" 2>/dev/null || break
            sleep 0.1
        done
        (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || {
            echo "quickstart: sshd did not start:" >&2; cat "$ssh_dir/sshd.log" >&2; exit 1; }
        # Paths as the laptop's commands see them (they run in laptop/).
        ssh_login=$(id -un)@127.0.0.1:$port identity=../ssh/id_ed25519
        host_key=../ssh/host_ed25519.pub
    fi
    ssh_flags=(--identity "$identity" --ssh-config ../ssh/ssh_config)
fi
# Where the laptop pulls a run's capsule from: the sealed capsule folder on the box. The pull
# also finds the box's ledger above it (box/.labledger) and merges it in.
# pull_from RUN sets `args`.
pull_from() {
    if [[ $mode == ssh ]]; then
        args=(--from "$ssh_login:$work/box/export/$1" "${ssh_flags[@]}")
    else
        args=(--from-dir "../box/export/$1")
    fi
}

printf 'labledger quickstart (%s): laptop = %s/laptop, box = %s/box\n' "$mode" "$work" "$work"
started=$SECONDS

# ==================================================================================================
section "1. A project on the laptop, a rented box with labledger on it"
note "The laptop's ledger records the rent; the box keeps its own ledger, merged in by each pull."
on laptop labledger init
if [[ $mode == ssh ]]; then
    on laptop labledger rent --profile local --instance box1 --host "${ssh_login}"
else
    on laptop labledger rent --profile local --instance box1
fi
note "Push the code (on a real box: git pull, rsync or scp)."
on laptop cp train.py ../box/
note "A real box's hostname names its ledger segment; this one shares the laptop's machine."
on box export LABLEDGER_WRITER=box1
on box labledger init

# ==================================================================================================
section "2. Train on the box: two seeds, each sealed as a capsule"
note "labledger run records launch, heartbeats and exit; train.py records its checkpoints itself."
for seed in 0 1; do
    on box labledger run --run "mlp-s$seed" --instance box1 --heartbeat 1 -- \
        python train.py --seed "$seed"
    on box labledger close "active/mlp-s$seed" --run "mlp-s$seed" --export-root export
done

# ==================================================================================================
section "3. Bring the results home; only then destroy the box"
note "Nothing is pulled yet, so the teardown is refused and nothing is recorded or run."
on laptop --exit 3 labledger teardown --instance box1 --yes -- rm -rf ../box
[[ -d $work/box/export ]]  # the box survived the refused teardown

if [[ $mode == ssh ]]; then
    pull_from mlp-s0
    note "First contact: the box's host key is unknown, so the pull refuses it."
    on laptop --exit 1 labledger pull --run mlp-s0 --instance box1 "${args[@]}"
    note "Compare the fingerprint with the one the provider shows (here: the server's key file)."
    on laptop ssh-keygen -lf "$host_key"
    on laptop labledger pull --run mlp-s0 --instance box1 "${args[@]}" --accept-new-host-key
    # The pinned key is the server's own.
    (cd "$work/laptop" && grep -qF "$(awk '{print $2}' "$host_key")" .labledger/known_hosts)
    note "Pinned in .labledger/known_hosts: later pulls need no flag."
else
    pull_from mlp-s0
    on laptop labledger pull --run mlp-s0 --instance box1 "${args[@]}"
fi
note "The pull merged the box's ledger: the gate now knows mlp-s1 ran there and was not pulled."
on laptop --exit 3 labledger gate teardown --instance box1
pull_from mlp-s1
on laptop labledger pull --run mlp-s1 --instance box1 "${args[@]}"
on laptop labledger verify-pull mlp-s0
on laptop labledger verify-pull mlp-s1
on laptop labledger gate teardown --instance box1
note "The approval is bound to the gate's state; the command is the provider's destroy."
on laptop labledger teardown --instance box1 --yes -- rm -rf ../box
on laptop --exit 1 test -e ../box
on laptop labledger teardown --instance box1 --confirm-absent --method listing \
    --evidence "test -e ../box: exit 1 (the folder is gone)"
note "Observed gone, so the meter stopped: the confirmation also recorded instance.released."

# ==================================================================================================
section "4. The paper's numbers: from the verified store, bound to claims, reconciled"
note "The box is gone: the test metrics are restored from the store, verified on the way."
on laptop labledger sql "select run, path, digest from pulls where ok and path like '%/metrics.json'
    order by run"
for run in mlp-s0 mlp-s1; do
    digest=$(cd "$work/laptop" && labledger sql --format csv \
        "select digest from pulls where run = '$run' and ok and path like '%/metrics.json'" | tail -n 1)
    on laptop labledger cas get "$digest" -o "results/$run/metrics.json"
done
on laptop cat results/mlp-s0/metrics.json
# The author writes the numbers into the paper (paper.md is a template beside this script).
python - "$work/laptop" <<'EOF'
import json, re, sys
from pathlib import Path

laptop = Path(sys.argv[1])
def value(match):
    metrics = json.loads((laptop / "results" / match[1] / "metrics.json").read_text())
    number = metrics[match[2]]
    return f"{number * 100:.1f}%" if match[3] else f"{number:.3f}"
paper = laptop / "paper.md"
text = re.sub(r"<!-- A template:.*?-->\n\n", "", paper.read_text(), flags=re.S)
paper.write_text(re.sub(r"\{\{([\w.-]+):(\w+)(%?)\}\}", value, text))
EOF
on laptop cat paper.md
note "Claims bind each number to the bytes it came from: the value is read from the stored"
note "metrics.json, never typed. Accuracy is a fraction; the paper shows it as a percentage."
on laptop labledger claim add C1 --run mlp-s0 --metric accuracy --from heldout/metrics.json \
    --split test --unit fraction --statement "seed-0 test accuracy" --paper-anchor "Section 1"
on laptop labledger claim add C2 --run mlp-s1 --metric accuracy --from heldout/metrics.json \
    --split test --unit fraction --statement "seed-1 test accuracy" --paper-anchor "Section 1"
on laptop labledger claim add C3 --run mlp-s0 --metric loss --from heldout/metrics.json \
    --split test --alias cross-entropy --statement "seed-0 test cross-entropy"
on laptop labledger claim list
note "EVIDENCE.json: every claim with its digests, event ids and disclosures from the ledger."
on laptop labledger evidence -o EVIDENCE.json
on laptop python -c "import json; c = json.load(open('EVIDENCE.json'))['claims'][0]; \
print(c['id'], c['evidence'][0]['value'], '|', c['disclosure'])"
note "The paper agrees with the evidence (95.5% is 0.955 shown at one decimal of a percent)."
on laptop labledger reconcile paper.md
note "Someone 'rounds up' a number by hand: reconcile names the file, line and column."
on laptop sed -i 's/<!-- claim:C1 -->[0-9.]*%/<!-- claim:C1 -->96.5%/' paper.md
on laptop --exit 3 labledger reconcile paper.md
note "EVIDENCE.json still matches the ledger: the drift is in the prose, not the evidence."
on laptop labledger evidence --check

# ==================================================================================================
section "5. The history, in SQL"
on laptop labledger sql "select run, state, exit_code, checkpoints_stored as stored,
    checkpoints_verified as verified, instance from runs order by run"
on laptop labledger sql "select run, role, step, round((metrics->>'val_loss')::double, 4) as val_loss,
    in_store, verified, left(digest, 19) as digest from checkpoints order by run, role"
on laptop labledger sql "select run, expected, pulled, checkpoints, verified, verdict
    from pull_verified order by run"
on laptop labledger sql "select kind, count(*) filter (where writer = 'box1') as on_box,
    count(*) filter (where writer <> 'box1') as on_laptop from events group by kind order by min(ts)"
on laptop labledger instances
on laptop labledger check --deep

printf '\nquickstart: done in %d s; every step exited as expected.\n' "$((SECONDS - started))"
if [[ -n ${QUICKSTART_WORK-} || -n ${QUICKSTART_KEEP-} ]]; then
    printf 'quickstart: kept %s\n' "$work"
fi
