"""The agent tool hook: judge a coding agent's shell command before it runs.

Accepted payloads (JSON on stdin; a command found in any of these places is judged, all of
them together when several hold one)::

    Claude Code PreToolUse   {"tool_name": "Bash", "tool_input": {"command": "..."}, "cwd": "..."}
    Gemini CLI BeforeTool    {"tool_name": "run_shell_command", "tool_input": {"command": "..."}}
    Codex / generic          {"command": ["bash", "-lc", "..."]} or {"command": "..."}
    generic tool call        {"tool": "...", "args": {"command": ...}}  (also "arguments",
                             "input", "params"; a list command is joined with shlex)

An agent's file tool (Claude Code's Write, Edit, MultiEdit, NotebookEdit; Gemini CLI's
write_file, replace) is judged as the shell write it amounts to (`file_tool_write`: ``tee
PATH``, ``sed -i '' PATH``), and so is Codex's ``apply_patch`` (its patch in
``tool_input.command``, or run by a shell script: `patch_writes`, one write per file of it).
Another payload without a command (Read, Glob, ...) is never judged.

Judgment: the command line is cut into the simple commands it runs (`shell_words`: chains,
quotes, wrappers, ``bash -c``, ``eval``, substitutions, ssh's remote command). One is
**destructive** when it matches a shell pattern of any profile (``shell-patterns``), a pattern
of ``.labledger/hook.toml`` or a built-in (provider CLIs with options before the verb, provider
REST/GraphQL/SDK calls, a computed command word before a destroy verb), when it runs ``rm -r``
or ``kill`` on a recorded box through ssh, or when it deletes (``rm``, ``find -delete``,
``git clean -d``, ``mv``, ``git worktree remove|move``, ``tar --remove-files``, ``rsync
--delete`` or ``--remove-source-files``, a cloud storage tool's deleting sync or move,
`cloud_sync`; a Python program's removes and moves, `python_deletes`; ``rmtree(`` in
another program's text; a container's paths under a bind are the host's) the project's
``.labledger/`` (but its cache), another project's ``.labledger/`` (`_other_homes`), an
``export-roots`` entry of hook.toml or a recorded capsule
(the folder, above it or inside it; a ``find -name`` above it counts when a test passes for
something it holds now; a delete whose paths are computed counts when what may feed it names
one: its own pipeline and the line's other pipelines but those that only print, `_Feeds`;
or lists a folder holding one whole, `_Listing`). What a ``git clean`` removes of a protected
folder it reaches is asked of real git, read-only (`_GitClean`: ignored and tracked files
stay), the one program run for a delete; fail closed when git cannot answer. A ``git stash
-u|-a`` removes what it stashes: the clean it runs (`_stash_clean_args`); any stash but ``-k``
also removes the staged files HEAD does not hold (`_stash_staged_target`, asked of git
read-only). A computed ``-C``/``--work-tree`` stands for every repository the line may reach
(`_repository_tops`); a computed word of a clean or a stash for the worst it may be
(`_worst_clean`: an option removing everything, a pathspec reaching the whole work tree).
A git alias of ``clean`` is judged as the clean (`shell_words` expands the aliases it can
read: config files, ``-c``, an earlier ``git config alias.X`` of the line); a git
subcommand that cannot be read (computed, appended by xargs, a possible alias whose config
an earlier command may change, `_may_change_git_config`, or that the command's own config
cannot say: `_unread_git_subcommand`) as a clean of its whole repository git is not asked
about.
``git rm`` deletes from the work tree (but ``--cached``, ``-n``: `_git_removed`), ``git mv``
takes its sources away (`_git_moved`). A patch applied (``git apply``, ``patch``:
`_patch_targets`) deletes and edits the files its headers name (`patch_files`), read from
the line where it holds them (a here-document, one ``cat > FILE <<EOF`` wrote earlier on
it); a patch file that is not there and that nothing earlier on the line may write changes
nothing (git and the shell refuse it); one that cannot be read here (a pipe, a file an
earlier command writes) may change any file where it applies. A ``git stash drop`` or
``clear`` loses what the entries it drops hold that the work tree does not (`_GitDropped`),
and what a ``git stash`` before it on the line stashes (`_stash_drop_targets`). A ``git
merge``, ``cherry-pick``, ``rebase`` or ``pull`` overwrites the ignored files here that the
other history adds (git refuses over local changes and untracked files, not over ignored
ones: `_GitMerged`, asked read-only; a pull's upstream as fetched already).

**Writes** are judged as deleting what they destroy would be (`_writes`, `_write_refused`):
the files the shell opens for a redirection (``>``, ``>|``, ``&>``, ``N>``, ``>&FILE``;
``>>``, ``&>>``, ``<>`` append; at a word's start or after a word it ends, ``x>f``; not
``/dev/null`` nor a descriptor), where ``cp``/``mv``/``ln``/``install`` land (``-t DIR``,
``--target-directory``, a last operand that is a folder: ``DIR/NAME``; ``cp -n``, ``ln``
without ``-f`` never replace a file; ``scp`` too), what ``cp -r``, ``scp -r`` and ``rsync``
copy (a file of the source landing on one of the same name: the source is walked,
`_tree_hit`; ``rsync --ignore-existing`` only adds), ``dd of=``, ``tee`` and ``sponge``
(``-a``: an append), ``truncate``, in-place editors (``sed -i``, ``perl -i``, ``gawk -i
inplace``). A quoted ``>`` is text (``grep '>' seqs.fa``: `_quote_masks`); a path through a
symbolic link counts where it leads too (`_linked`), one with several names (a hard link) as
its name in a protected folder (`_hard_link_twin`); making a hard link of a protected file
(``ln`` without ``-s``, ``cp -l``: `_hard_link_sources`) counts as the write that destroys it
(a later write through the link would). What counts:

- ``.labledger/`` (but its cache) is written by labledger alone: any write into it, an append
  (a line appended to a segment breaks its hash chain, bytes appended to an object its
  digest) and a new file (a forged segment or object) too. Its settings as well
  (``config.toml``, ``hook.toml``, ``capsule.toml``, ``profiles/``, `_SETTINGS`): a person
  edits them, in their own editor. hook.toml's export roots and patterns, the profiles'
  destroy verbs and the capsule rules are the rules the agent is judged by: an agent that
  rewrote them would lift its own protections (empty ``export-roots``, then delete
  ``results``), as one recording its own teardown approval would (`person_decisions`); and an
  overwritten config.toml makes every reader refuse the ledger.
- a recorded capsule: a write that destroys a file it holds now (truncates, overwrites,
  replaces, edits in place) is judged as deleting the capsule (`_refused`: allowed when its
  stored copy verifies); an append or a new file destroys nothing and passes (a run writes its
  logs into its capsule).
- an export root: the same, but always refused, as its delete.

A computed target (``> $F``, ``cp x "$D"/y``, the ``{}`` of ``find -exec`` or ``xargs -I{}``,
files xargs appends) is first read with the line's literal assignments of its variables
(``F=x; : > $F``); else it counts as a computed delete does (what may feed it names the
folder: `_Feeds`, `_Mentions`), for the ledger whatever the write, for a capsule or an export
root only a write that destroys (whether the file exists cannot be told: fail closed; a sealed
capsule is written to after its run only by mistake); one whose fixed folder part lies
elsewhere lands there (``ls capsules/c2 | xargs cp -t ../backup``). Nothing on ``python
train.py >> "$LOG"`` or ``> "$OUT/train.log"`` ties them to a protected folder: they pass. A
placeholder other than ``{}`` (``xargs -I F``) is read as a literal name. Downloads write
their file (``curl -o``/``-O``, ``wget -O``, ``wget -N``/``-r`` into ``-P DIR``: `_curl_writes`,
`_wget_writes`); an archive unpacked (``tar -x``, ``unzip -o``, ``7z x``) writes its members where
their names are read (a zip or tar that is a regular file here: `_unpacked`,
`archive_members`), else files whose names are not known into its folder (``-C``, ``-d``,
``-o``: `_Write.inside`): any file there may be overwritten, the ledger's any at all;
unpacked above a protected folder it passes.
A git command that writes tracked files back over the work tree (``git checkout [TREE] --
PATH``, ``git restore``, ``git reset --hard``, a switch, ``git checkout-index -f``, ``git
read-tree --reset -u``: `_git_rewrite`) overwrites the
protected files git says it changes (`_GitRewrite`, asked read-only: ``git diff
--name-only``, before the ledger is read: `_rewrite_may_reach`); a ``git reset --hard``
deletes too what a ``git add`` earlier on its line stages (`_reset_added_target`). Not
judged: writes in text that cannot be read as commands (`TOO_DEEP`), the members of an
archive unpacked above a protected folder that cannot be read here (`_unpacked`). Judging fails
(an unreadable ledger): the console script blocks a write that may count (`looks_destructive`
asks `_writes_here`), as it blocks a delete. Every line of the ledger is read and verified
only for a write that may count (`_writes_here`: into the ledger, computed, or destroying a
file in an export root or a folder a ``capsule.sealed`` line names, those lines read alone):
``python train.py > train.log`` onto a log there already costs a search of the ledger's
text, not a read of every event.

The arguments of text-handling commands (``git``, ``grep``, ``echo``,
...) are text, but what a runner among them starts (``uv run``, ``docker exec``, ``find
-exec``, ``labledger run --``) is a command of its own, and so is the program text they run
(``sed 's/x/CMD/e'``, ``awk -f prog.awk``'s ``system()``, a git alias from a config file:
`shell_words` reads those files from the payload's cwd); a here-document is data unless a
shell, ssh or an interpreter reads it as its program. Text that cannot be read as commands (a
script nested too deep; the line of a ``sed -f``/``awk -f`` whose file cannot be read here) is
destructive when it matches a pattern or names ssh and then a command destroying a box's files
or processes (every live instance counts), and deletes when it holds a delete word. The
profiles' patterns are loaded only when a command could match one of them (`PatternSet`): most
commands never pay for it.

A labledger command that records a person's decision about a teardown (``teardown --override``
or ``--confirm-absent``, ``release``, an ``emit``/``ingest`` of ``teardown.*`` or
``instance.released``) is always blocked (`person_decisions`): the agent must not approve its
own destroy.

A destructive command is mapped to recorded instances by the words of that simple command only
(an id, the last ``-``/``_`` part of an id, or a recorded host); one that names none, or whose
words are computed when it runs, stands for every live instance. It is **allowed** only when
every instance it stands for passes the teardown gate now, or has a ``teardown.approved`` bound
to exactly the gate's current state (an override approval counts: it is recorded). A released
(or confirmed absent) instance is not gated. Deleting a capsule is allowed when its objects
verify in the local store; ``.labledger/`` (but its cache) and export roots are never deleted
(nor written: **Writes**). A Python program's write onto a path it writes out
(`python_deletes.python_writes`: ``open(P, "w")``, ``os.replace(SRC, P)``, ``torch.save(x,
P)``, ...) is judged as a shell write is (`_writes_onto`): any write into ``.labledger/`` but
its cache, its settings included; in a capsule or an export root, replacing or changing a
file there now (a new file, or an append, loses nothing). A line whose programs' writes can
destroy nothing, whatever is recorded (new files, appends outside the ledger:
`_writes_may_destroy`), is passed without reading the ledger, as ``ls`` is. The program of a
local script (``python FILE``, ``python -m pkg.mod``, ``torchrun FILE``, ``accelerate launch
FILE``, ...) is read from its file (`shell_words`):
its deletes and writes are judged as ``python -c``'s, its strings feed its computed deletes.
So is a local shell script's (``bash job.sh``, ``./job.sh``, ``source job.sh``, ``sbatch
job.sh``): its commands judged as typed, each named in a reason by its line of the script
(`_said`); a computed delete or write of it is fed by its own text and the line that runs it.
Corrupt objects found while judging are recorded (``object.quarantined``), as ``gate teardown``
records them: the only event the hook writes.

Paths are compared as written and as they really are: a protected folder counts by its real
path too (`_protected_places`: ``runs`` linked to a scratch disk, ``rm -rf
/scratch/me/runs/exp1``), and a target where its links lead (`_expand`: ``rm L/config.toml``
with ``L`` linked to ``.labledger``; its own name followed only with a trailing slash).

Invariants: the line is parsed once per judgment, in linear time (a line that defines git
aliases is read up to three times: `shell_words.simple_commands`; each command's words are
read once more for what it writes, `_writes`; a walk of a folder on disk stops at
`_WALK_LIMIT` entries); the computed deletes and writes of a line share what feeds them
(`_Feeds`: one text per line past `_FEEDS_APART_LIMIT` commands), read once per text, so a
generated line of thousands of them is judged in a fraction of a second; a line over
`MAX_COMMAND_CHARS` is blocked unread; paths are compared absolute (a relative payload ``cwd``
is taken from the hook's own working folder); ``.labledger/hook.toml`` is validated (unknown
keys, wrong types and bad regexes raise `HookConfigError`).

This module never exits: `labledger hook` maps a :class:`Verdict` to exit 0 or 2, and blocks on
any exception raised while a destructive command is judged (fail closed).
"""

from __future__ import annotations

import functools
import itertools
import json
import os
import re
import shlex
import stat
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from labledger.reconcile.cloud_sync import CLOUD_TOOLS, cloud_deleted, cloud_writes

if TYPE_CHECKING:
    from labledger.reconcile.archive_members import Read, Unpack

_PROVIDER_HOSTS = r"(vast\.ai|runpod\.(io|ai)|lambdalabs\.com|lambda\.ai|paperspace\.(com|io))"
# the hosts of the providers' APIs themselves (not their documentation sites: a page at
# docs.runpod.io/.../pods/podId/stop describes a stop, fetching it stops nothing)
_PROVIDER_API_HOSTS = (r"((rest|api)\.runpod\.(io|ai)|(console|cloud)\.vast\.ai/api"
                       r"|cloud\.lambda(labs\.com|\.ai)/api|api\.paperspace\.(com|io))")
# words of a command apart: blanks, or the quotes and comma between the items of a list
# (`['sky', 'down', 'c1']` in a Python one-liner)
_WORDS_APART = r"""(?:\s+|['"]\s*,\s*['"])"""
BUILTIN_PATTERNS = (
    # Provider CLIs as the command word, with any options before the verb (`vastai --raw
    # destroy ...`) and any punctuation between words (`['vastai', 'destroy', 'instance']` in
    # a Python one-liner). Each is linear: one anchored `.*?` at most.
    r"(^|\W)(vastai|vast\.py)\W+(.*?\W)?(destroy|stop|recycle)\W+instances?\b",
    r"(^|\W)runpodctl\W+(.*?\W)?(remove|rm|stop|terminate|delete)\W+pods?\b",
    r"(^|\W)runpodctl\W+(.*?\W)?pods?\W+(remove|rm|stop|terminate|delete)\b",
    r"^kubectl\s.*?\bdelete\b",
    # general clouds, where a box recorded under generic-ssh may live: SkyPilot (`sky down|stop
    # CLUSTER`, the SDK's `sky.down(`), `gcloud [beta] compute instances delete|stop|suspend
    # NAME`, `aws ec2 terminate-instances|stop-instances --instance-ids ID` (boto3's
    # `terminate_instances(` is an SDK call below), `az vm delete|deallocate|stop --name NAME`
    # (words apart by blanks, or quoted items of a list: a path `az/vm/stop.py`, a file
    # `az.tgz vm/delete` or prose "blue sky, down" is none of these commands)
    rf"(^|[^\w.-])sky{_WORDS_APART}(down|stop)(?![\w./-])",
    r"\bsky\.(down|stop)\s*\(",
    rf"(^|[^\w.-])gcloud{_WORDS_APART}(.*?{_WORDS_APART})?compute{_WORDS_APART}instances"
    rf"{_WORDS_APART}(delete|stop|suspend)(?![\w./-])",
    # Cloud TPU VMs: `gcloud compute tpus tpu-vm delete|stop NAME`, the older `gcloud compute
    # tpus delete|stop`, `gcloud compute tpus queued-resources delete` (with --force, its TPUs)
    rf"(^|[^\w.-])gcloud{_WORDS_APART}(.*?{_WORDS_APART})?compute{_WORDS_APART}tpus"
    rf"{_WORDS_APART}((tpu-vm|queued-resources){_WORDS_APART})?(delete|stop)(?![\w./-])",
    rf"(^|[^\w.-])aws{_WORDS_APART}(.*?{_WORDS_APART})?ec2{_WORDS_APART}"
    r"(terminate|stop)-instances(?![\w./-])",
    rf"(^|[^\w.-])az{_WORDS_APART}(.*?{_WORDS_APART})?vm{_WORDS_APART}"
    r"(delete|deallocate|stop)(?![\w./-])",
    r"^scancel\b",
    # provider APIs: REST (any client), GraphQL, Python SDKs
    r"instance-operations/terminate\b",
    # (the method in any case after -X: RFC 9110 makes it case-sensitive, so a conforming
    # server refuses `delete`, but whether a provider's server or proxy does cannot be read
    # here: fail closed)
    r"^(curl|wget|http|https|xh)\b(?=.*((-X\s*|--request[= ]|--method[= ])(?i:DELETE|PUT)"
    r"|\s(DELETE|PUT))\b)"
    r"(?=.*" + _PROVIDER_HOSTS + r")",
    r"\b(requests|httpx|session|s)\.(delete|put)\s*\((?=.*" + _PROVIDER_HOSTS + r")",
    r"\b(podTerminate|podStop)\b",
    # a provider API URL whose path ends in a stop or destroy action, whatever the method
    # (RunPod's REST `POST /v1/pods/ID/stop`, Paperspace's old `/machines/ID/destroyMachine`)
    r"(?<![\w.-])" + _PROVIDER_API_HOSTS + r"/[^\s'\"]*/(stop|terminate|destroy\w*)\b",
    # SDK calls (vast.ai's `VastAI().stop_instance(ID=...)`, `destroy_instances(ids=...)`)
    r"\b(terminate_pod|stop_pod|delete_pod|(destroy|stop|recycle|terminate)_instances?)\s*\(",
    # a command word computed when it runs (`V=vastai; $V destroy ...`), an alias hiding one
    r"^[^\s$`]*[$`]\S*\s+(\S+\s+)?(destroy|terminate|delete|remove|rm|stop|recycle)(\s|$)",
    r"^alias\s.*\b(vastai|runpodctl|kubectl|scancel|pspace|paperspace|shutdown|poweroff|halt"
    r"|reboot)\b",
    # power off or reboot with options before the verb, or by runlevel (0 halt, 6 reboot,
    # 1/s single user: every service stopped)
    r"^systemctl\s+(\S+\s+)*?(poweroff|halt|reboot|kexec|rescue|emergency)(\s|$)",
    r"^(telinit|init)\s+(-\S+\s+)*[016sS](\s|$)",
)
# Provider CLIs: run with words computed when it runs (`vastai $(echo destroy) ...`,
# `... | xargs vastai`), what they do cannot be read, so they count as destroying.
_PROVIDER_CLIS = {"vastai", "vast.py", "runpodctl", "pspace", "paperspace", "lambda"}
# General clouds' CLIs, whose verb may be computed: `sky $V mycluster`, `echo down x | xargs
# sky`, `az vm $V ...`, `aws ec2 $OP ...`, `gcloud compute instances $V ...` count as
# destroying; a computed word elsewhere does not (`sky launch -c $NAME`, `aws s3 cp "$CKPT"
# s3://b/`, `gcloud compute ssh "$VM"`: a fixed word on the way already left the destroy's
# path). The value: what each word from the command word to its destroy verb may be, and the
# global options that take a value (skipped with it: `aws --profile "$P" s3 ls`).
_VERB_PATHS: dict[str, tuple[tuple[frozenset[str], ...], frozenset[str]]] = {
    "sky": ((frozenset({"down", "stop"}),), frozenset()),
    "az": ((frozenset({"vm"}), frozenset({"delete", "deallocate", "stop"})),
           frozenset({"--subscription", "--output", "-o", "--query"})),
    "aws": ((frozenset({"ec2"}), frozenset({"terminate-instances", "stop-instances"})),
            frozenset({"--region", "--profile", "--output", "--endpoint-url", "--query",
                       "--color", "--ca-bundle", "--cli-read-timeout", "--cli-connect-timeout",
                       "--cli-binary-format"})),
    # (`compute instances delete NAME`, `compute tpus [tpu-vm|queued-resources] delete NAME`:
    # the words after a verb are the TPU's verbs, any word there that is no verb passes)
    "gcloud": ((frozenset({"compute"}), frozenset({"instances", "tpus"}),
                frozenset({"delete", "stop", "suspend", "tpu-vm", "queued-resources"}),
                frozenset({"delete", "stop"})),
               frozenset({"--project", "--account", "--configuration", "--verbosity",
                          "--format", "--billing-project", "--impersonate-service-account",
                          "--flags-file", "--flatten", "--filter", "--trace-token", "--zone",
                          "--region"})),
}
_GCLOUD_TRACKS = {"alpha", "beta", "preview"}  # `gcloud beta compute ...`: not a verb word
# CLIs that print their help for `-h`/`--help` (or a first word `help`) instead of acting
# (`_asks_for_help`); those built on argparse never take `-h` as an option's value
_HELP_CLIS = {*_PROVIDER_CLIS, *_VERB_PATHS, "kubectl"}
_ARGPARSE_CLIS = {"vastai", "vast.py", "aws", "az", "gcloud"}
_AWS_HELP_AFTER = {"ec2", "terminate-instances", "stop-instances"}  # `aws ec2 ... help`
# Commands whose arguments are text, not actions: a commit message, a search, an echo that
# names `vastai destroy instance` destroys nothing (unless a shell reads it: see shell_words).
_DATA_COMMANDS = {
    "git", "grep", "egrep", "fgrep", "rg", "ag", "ack", "sed", "awk", "gawk", "echo", "printf",
    "man", "less", "more", "cat", "head", "tail", "pytest", "jq", "yq", "tee", "wc", "sort",
    "uniq", "diff", "touch", "mkdir", "code", "vim", "vi", "nano", "emacs", "gh", "tldr",
    "apropos", "which", "type", "whereis", "history", "ls", "find", "locate", "help", "info",
    "pip", "uv", "npm", "cargo", "make", "docker", "labledger",
}
# (the programs some of these run are judged as commands of their own: `uv run CMD`, `docker
# exec C CMD`, `find -exec CMD ;`, `labledger run -- CMD` (see shell_words); `make` runs the
# recipes of a file written beforehand, like `bash cleanup.sh`; labledger's own decisions
# are judged by `person_decisions`)
# Run through ssh on a box, these destroy what it holds (its results, its processes).
_REMOTE_DESTRUCTIVE = {"kill", "pkill", "killall", "rm", "shred", "truncate", "unlink",
                       "rmdir", "dd", "mkfs", "wipefs"}
# Run through ssh, these power off or reboot that box (on a machine the ledger does not know,
# they are not this project's concern, like `_REMOTE_DESTRUCTIVE`)
_POWER_COMMANDS = {"shutdown", "poweroff", "halt", "reboot", "systemctl", "init", "telinit"}
# ... and these, with these first words: the sessions a training runs in
_REMOTE_KILL_VERBS = {"tmux": {"kill-server", "kill-session", "kill-pane", "kill-window"},
                      "screen": {"-X", "-wipe"}}
# Events that record a person's decision about a teardown: an agent recording one (through
# `labledger teardown --override/--confirm-absent`, `release`, `emit`, `ingest`) would be
# approving its own destroy, or hiding the instance from the gate.
_DECISION_KINDS = re.compile(r"^(teardown\.\w+|instance\.released)$")
_DECISION_TEXT = re.compile(r"teardown\.\w+|instance\.released")
# a kind word computed when it runs (`$KIND`, `{}` of find or xargs, a brace or a glob)
_COMPUTED_KIND = re.compile(r"[$`{}*?\[\]]")
# a command word computed when it runs (`r$(echo unpod)ctl`, `ru${X}npodctl`) followed by one
# of these within two words: it counts as destroying (what it runs cannot be read)
_DESTROY_VERBS = {"destroy", "terminate", "delete", "remove", "rm", "stop", "recycle"}
# Matching hook.toml's patterns (user regexes, which may backtrack exponentially) gets this
# many seconds per judgment in all; past it the command is blocked (fail closed), well before
# the agent's hook timeout would kill the hook (and let the command run).
USER_PATTERN_BUDGET_S = 2.0
# A command line longer than this is not judged (blocked): the agent's hook timeout must not
# run out while it is read (parsing is linear: 8 MiB takes seconds).
MAX_COMMAND_CHARS = 8 * 1024 * 1024
# Walking a protected folder to see whether a `find -name` reaches into it: past this many
# entries the answer is "cannot tell" (blocked).
_WALK_LIMIT = 200_000
_QUOTE_LIMIT = 160  # a command quoted in a message is shortened past this
# the delete calls of a program in another language than Python, searched in its text: R's
# `unlink(`, PHP's, Lua's `os.remove(`; node's `fs.rmSync(`, `fs.rm(`, `rimraf`, fs-extra's
# `remove`/`emptyDir`; Ruby's `FileUtils.rm_rf`, `File.delete`; Perl's `rmtree`/`remove_tree`,
# `unlink "f"`; Julia's `rm(` (an `rmdir` of an empty folder destroys nothing: left out)
_DELETE_CALLS = re.compile(
    r"\b(rmtree|os\.remove|os\.unlink|unlink|remove)\s*\("
    r"|\b(rmSync|rmdirSync|unlinkSync|rimraf(?:Sync)?|removeSync|emptyDirSync|rmtree"
    r"|remove_tree|rm_rf|rm_r|rm_f|remove_dir|remove_entry(?:_secure)?)\b"
    r"|\b(?:fs|fsp|fse|promises|FileUtils|File|Files)\s*\.\s*(?:rm|rmdir|delete|unlink|remove"
    r"|emptyDir)\b|\bunlink\s+[\"'$@]|(?<![\w$-])rm\s*\(|\.rmdir\s*\(")
# Whole-line matching is for hook.toml patterns spanning commands; beyond this it is skipped
# (a pattern's backtracking on a long line could outlast the agent's hook timeout).
_WHOLE_LINE_LIMIT = 8192
_DELETE_WORD = re.compile(r"\b(rm|shred|unlink|rmtree|find|mv|clean)\b")
# in text that cannot be read as commands: a way to a box, then a command destroying there
_OPAQUE_REMOTE = re.compile(r"(?<![\w.-])(ssh|autossh|mosh|rsync)(?![\w.-])")
_OPAQUE_REMOTE_DESTROY = re.compile(
    r"(?<![\w.-])(" + "|".join(sorted(_REMOTE_DESTRUCTIVE)) + r"|kill-server|kill-session"
    r"|kill-pane|kill-window|rmtree)(?![\w.-])|--delete|--remove-source-files|\bscreen\s+-X\b")
_COMMAND_KEYS = ("tool_input", "args", "arguments", "input", "params", "parameters")


class HookInputError(ValueError):
    """The payload is not JSON or holds no recognisable shape."""


@dataclass
class Verdict:
    allowed: bool
    destructive: bool = False
    reasons: list[str] = field(default_factory=list)

    def message(self) -> str:
        return "labledger: blocked: " + "; ".join(self.reasons)


def _as_command(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, list) and value and all(
            isinstance(v, str | int | float) and not isinstance(v, bool) for v in value):
        words = [str(v) for v in value]
        writes = patch_writes(words[1]) if len(words) == 2 and os.path.basename(
            words[0]) in ("apply_patch", "applypatch") else None
        if writes is not None:
            return writes  # Codex's patch tool run as argv
        # Codex sends argv, usually ["bash", "-lc", SCRIPT]: the script is what runs.
        if len(words) >= 3 and words[1] in ("-c", "-lc", "-ic") and \
                os.path.basename(words[0]) in ("bash", "sh", "zsh", "dash"):
            return words[2]
        return shlex.join(words)
    return None


def extract_command(payload: Any) -> tuple[str | None, str | None]:
    """(command, cwd) from a hook payload; command None when the tool runs no shell command.

    Every command the payload holds in a known place is judged (joined by newlines: a
    harmless top-level ``command`` does not hide a destructive ``tool_input.command``). A
    payload in no known shape is judged by the text of all its strings when that text looks
    destructive (an agent's new shape must not let a destroy through unseen)."""
    if not isinstance(payload, Mapping):
        raise HookInputError("the hook payload is not a JSON object")
    cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) else None
    found: list[str] = []
    written = file_tool_write(payload)
    if written is not None:
        found.append(written)
    top = _as_command(payload.get("command"))
    if top is not None:
        found.append(top)
    patch = _patch_input(payload)
    if patch is not None:
        found.append(patch)
    for key in _COMMAND_KEYS:
        inner = payload.get(key)
        if isinstance(inner, Mapping):
            command = _as_command(inner.get("command") or inner.get("cmd"))
            if command is not None:
                found.append(command)
            if isinstance(inner.get("cwd"), str) and cwd is None:
                cwd = inner["cwd"]
        elif isinstance(inner, str) and key == "tool_input":
            found.append(inner)  # a tool whose whole input is the command line
    if found:
        # (a Codex patch, the apply_patch tool's command or one a script runs: its writes)
        return "\n".join(_apply_patch_commands(c) for c in found), cwd
    text = "\n".join(_strings(payload))
    if text and looks_destructive(text, cwd):
        return text, cwd
    return None, cwd


# An agent's file tools, by the shell write each amounts to (Claude Code: Write, Edit,
# MultiEdit, NotebookEdit, with ``file_path``/``notebook_path``; Gemini CLI: write_file,
# replace, with ``file_path``): a whole file written is ``tee PATH`` (a new file, or one
# replaced), an edit ``sed -i '' PATH`` (a file changed in place)
_FILE_TOOLS = {"Write": "tee", "write_file": "tee", "Edit": "sed -i ''",
               "MultiEdit": "sed -i ''", "NotebookEdit": "sed -i ''", "replace": "sed -i ''"}
_FILE_PATH_KEYS = ("file_path", "notebook_path")


def file_tool_write(payload: Mapping[str, Any]) -> str | None:
    """The shell write an agent's file tool call amounts to (`_FILE_TOOLS`), judged as that
    command is: the Edit tool on ``.labledger/hook.toml`` as ``sed -i '' .labledger/hook.toml``
    (a shell write onto the ledger's settings is refused: an agent whose file tools were not
    judged could lift its own protections with them). None for any other payload."""
    tool = payload.get("tool_name")
    inner = payload.get("tool_input")
    if not isinstance(tool, str) or tool not in _FILE_TOOLS or not isinstance(inner, Mapping):
        return None
    path = next((inner[k] for k in _FILE_PATH_KEYS if isinstance(inner.get(k), str)), None)
    if not path:
        return None
    return f"{_FILE_TOOLS[tool]} {shlex.quote(path)}"


# Codex's apply_patch (codex-rs/apply-patch/src/parser.rs): a patch between `*** Begin Patch`
# and `*** End Patch` (markers padded with blanks allowed), each file under one header
_PATCH_BEGIN, _PATCH_END = "*** Begin Patch", "*** End Patch"
_PATCH_HEADERS = {"*** Add File: ": "tee", "*** Delete File: ": "rm -f",
                  "*** Update File: ": "sed -i ''"}
_PATCH_MOVE = "*** Move to: "
# `apply_patch <<'EOF' ... EOF` or `apply_patch 'PATCH'` in a shell script (Codex runs either
# form itself when the model asks its shell tool for it)
_APPLY_PATCH_HEREDOC = re.compile(
    r"""(?<![\w.-])(?:apply_patch|applypatch)\s*<<-?\s*(['"]?)(\w+)\1[ \t]*\n(.*?)\n[ \t]*\2"""
    r"""[ \t]*(?=\n|$)""", re.S)
_APPLY_PATCH_QUOTED = re.compile(
    r"""(?<![\w.-])(?:apply_patch|applypatch)\s+(?:'([^']*)'|"([^"\\$`]*)")""", re.S)


def patch_writes(patch: str) -> str | None:
    """The shell writes a Codex ``apply_patch`` patch amounts to, one line each: ``*** Add
    File: P`` as ``tee P`` (it overwrites a file there: codex's scenario
    011_add_overwrites_existing_file), ``*** Delete File: P`` as ``rm -f P``, ``*** Update
    File: P`` as ``sed -i '' P``, followed by ``*** Move to: D`` as ``mv P D`` (the file
    leaves P and replaces D: scenario 010_move_overwrites_existing_destination). None when
    ``patch`` is no patch (its first line is not ``*** Begin Patch``)."""
    lines = patch.strip().split("\n")  # (as codex cuts it: str::lines, not at a form feed)
    if lines and lines[0].strip() in ("<<EOF", "<<'EOF'", '<<"EOF"'):
        lines = lines[1:-1]  # the heredoc markers codex's lenient parser strips
    if not lines or lines[0].strip() != _PATCH_BEGIN:
        return None
    commands: list[str] = []
    for k, line in enumerate(lines):
        line = line.strip()
        for header, command in _PATCH_HEADERS.items():
            if line.startswith(header) and line[len(header):].strip():
                path = line[len(header):].strip()
                after = lines[k + 1].strip() if k + 1 < len(lines) else ""
                if command.startswith("sed") and after.startswith(_PATCH_MOVE):
                    commands.append(f"mv {shlex.quote(path)} "
                                    f"{shlex.quote(after[len(_PATCH_MOVE):].strip())}")
                else:
                    commands.append(f"{command} {shlex.quote(path)}")
    return "\n".join(commands) if commands else ":"


def _patch_input(payload: Mapping[str, Any]) -> str | None:
    """The writes of an ``apply_patch`` tool call whose patch is not its ``command``: its
    function-call arguments ``{"input": PATCH}`` (also ``patch``), as another harness may pass
    them on."""
    inner = payload.get("tool_input")
    if payload.get("tool_name") != "apply_patch" or not isinstance(inner, Mapping):
        return None
    text = next((inner[k] for k in ("input", "patch") if isinstance(inner.get(k), str)), None)
    return None if text is None else patch_writes(text)


def _apply_patch_commands(text: str) -> str:
    """``text`` with each Codex patch it holds read as the shell writes it amounts to
    (`patch_writes`): the whole text when it is a patch (the ``apply_patch`` tool's
    ``tool_input.command``), else each ``apply_patch <<'EOF'`` here-document or quoted patch
    of a script, replaced in place by a group of its writes (so that a ``cd DIR &&`` before
    it counts)."""
    if "*** Begin Patch" not in text:
        return text
    whole = patch_writes(text)
    if whole is not None:
        return whole

    def group(patch: str | None) -> str | None:
        writes = patch_writes(patch or "")
        return None if writes is None else "{ " + writes.replace("\n", "; ") + "; }"

    text = _APPLY_PATCH_HEREDOC.sub(lambda m: group(m.group(3)) or m.group(0), text)
    return _APPLY_PATCH_QUOTED.sub(
        lambda m: group(m.group(1) if m.group(1) is not None else m.group(2)) or m.group(0),
        text)


def _strings(value: Any) -> list[str]:
    """Every string a decoded JSON value holds, at any depth (walked without recursion: a
    command nested deeper than any limit is still found)."""
    found: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            found.append(item)
        elif isinstance(item, Mapping):
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, list):
            stack.extend(reversed(item))
    return found


def parse_payload(raw: bytes) -> tuple[str | None, str | None]:
    try:
        payload = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise HookInputError(f"the hook payload is not JSON ({exc})") from None
    except RecursionError:
        raise HookInputError("the hook payload is nested too deep to read") from None
    return extract_command(payload)


# --- patterns ---------------------------------------------------------------------------------
class PatternSet:
    """The destroy patterns a judgment searches: the built-ins, every profile's
    ``shell-patterns`` and ``.labledger/hook.toml``'s ``patterns``.

    Loading the profiles (importing their loader and validating every file) is most of the
    hook's own start-up, and most commands never need them: a command whose arguments are
    text (``ls``, ``git status``) is never searched, and most others match no pattern. So the
    profiles are loaded only when a command could match one of their patterns: first every
    ``pattern`` string of every profile file is read with tomllib alone (no validation) and
    searched; only a command one of them matches, or profile files that cannot be read that
    way, load (and validate: a broken profile raises) the profiles. The strings read are a
    superset of the patterns the loaded profiles hold (a user's file replacing a shipped one
    only adds), so a command none of them matches matches no loaded pattern either."""

    def __init__(self, home: Path | None, user: list[str]) -> None:
        self.home = home
        self.user = user  # hook.toml's (searched within the judgment's time budget)
        self._profiles: list[str] | None = None
        self._candidates: list[re.Pattern[str]] | None = None
        self._read_candidates = False

    def profile_patterns(self) -> list[str]:
        """The loaded profiles' shell patterns (loaded now if they were not)."""
        if self._profiles is None:
            from labledger.profiles.loader import load_profiles

            user_dir = self.home / "profiles" if self.home is not None else None
            self._profiles = [p.pattern for loaded in load_profiles(user_dir).values()
                              for p in loaded.profile.shell_patterns]
            for pattern in self._profiles:
                re.compile(pattern)
        return self._profiles

    def all(self) -> list[str]:
        return [*BUILTIN_PATTERNS, *self.profile_patterns(), *self.user]

    def found_in(self, text: str) -> bool:
        """Whether a pattern is found in ``text`` (hook.toml's searched within the time
        budget): the built-ins and hook.toml's first, then the profiles' (loaded only when
        one of their pattern strings is found)."""
        if any(re.search(p, text) for p in BUILTIN_PATTERNS) or \
                matching_patterns(text, self.user, self.user):
            return True
        if self._profiles is None and not self._may_match(text):
            return False
        return any(re.search(p, text) for p in self.profile_patterns())

    def _may_match(self, text: str) -> bool:
        if not self._read_candidates:
            self._read_candidates = True
            self._candidates = _profile_pattern_strings(self.home)
        return self._candidates is None or any(c.search(text) for c in self._candidates)


def _profile_pattern_strings(home: Path | None) -> list[re.Pattern[str]] | None:
    """Every ``shell-patterns`` ``pattern`` string of every profile file, shipped and the
    user's (``home/profiles/*.toml``, as the loader finds them), compiled; read with tomllib
    alone, without validating the files. None when a file cannot be read that way (not TOML,
    a pattern that is not a string or does not compile...): the profiles must be loaded."""
    import importlib.util
    import tomllib

    try:
        spec = importlib.util.find_spec("labledger.profiles")
        folders = [Path(f) for f in (spec.submodule_search_locations or [])] if spec else []
        if not folders:
            return None
        files = [f for folder in folders for f in sorted(folder.iterdir())
                 if f.name.endswith(".toml") and f.is_file()]
        if home is not None and (home / "profiles").is_dir():
            files += sorted((home / "profiles").glob("*.toml"))
        found: list[re.Pattern[str]] = []
        for path in files:
            entries = tomllib.loads(path.read_text(encoding="utf-8")).get("shell-patterns", [])
            if not isinstance(entries, list):
                return None
            for entry in entries:
                if not isinstance(entry, dict) or not isinstance(entry.get("pattern"), str):
                    return None
                found.append(re.compile(entry["pattern"]))
        return found
    except (OSError, ValueError, re.error, ImportError):  # ValueError: TOML, UTF-8 errors
        return None


@dataclass
class HookConfig:
    patterns: PatternSet
    export_roots: list[str]

    @property
    def user_patterns(self) -> list[str]:  # hook.toml's (also in patterns)
        return self.patterns.user


class HookConfigError(ValueError):
    """``.labledger/hook.toml`` is not what the hook reads: the message names the file, the key
    and its line. The caller fails closed (a destructive command is blocked)."""


_CONFIG_KEYS = {"patterns": "a list of regexes (strings, or tables with a `pattern` string)",
                "export-roots": "a list of folders (strings)"}
_PATTERN_TABLE_KEYS = {"pattern", "note", "effect"}


def load_config(home: Path | None) -> HookConfig:
    """Built-in patterns, every profile's shell patterns and ``.labledger/hook.toml``::

        patterns = ['\\bmy-cloud\\s+kill\\b']     # more regexes (Python syntax)
        export-roots = ["/data/results"]          # `rm -r` of these is always blocked

    hook.toml is read now, and raises when it is not TOML or holds an unknown key, a value of
    the wrong type or a regex that does not compile (`HookConfigError`: the caller fails
    closed on what it can still match); the profiles are loaded when a command could match
    one of their patterns (`PatternSet`), and a broken one raises then.
    """
    roots: list[str] = []
    user: list[str] = []
    if home is not None and (home / "hook.toml").is_file():
        user, roots = _read_hook_toml(home / "hook.toml")
    return HookConfig(patterns=PatternSet(home, user), export_roots=roots)


def _read_hook_toml(path: Path) -> tuple[list[str], list[str]]:
    """(patterns, export roots) of hook.toml, each checked: a typo must not silently turn a
    protection off, and a string where a list belongs must not be read letter by letter."""
    import tomllib

    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise HookConfigError(f"{path}: not UTF-8 text ({exc})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise HookConfigError(f"{path}: not valid TOML ({exc})") from None

    def fail(key: str, problem: str) -> HookConfigError:
        return HookConfigError(f"{path}{_line_of(text, key)}: {problem}")

    for key in data:
        if key not in _CONFIG_KEYS:
            known = ", ".join(sorted(_CONFIG_KEYS))
            raise fail(key, f"unknown key {key!r} (known: {known})")
    patterns: list[str] = []
    raw_patterns = data.get("patterns", [])
    if not isinstance(raw_patterns, list):
        raise fail("patterns", f"`patterns` must be {_CONFIG_KEYS['patterns']}, not "
                               f"{type(raw_patterns).__name__}")
    for n, item in enumerate(raw_patterns):
        if isinstance(item, Mapping):
            extra = set(item) - _PATTERN_TABLE_KEYS
            if extra or not isinstance(item.get("pattern"), str):
                raise fail("patterns", f"`patterns` entry {n}: a table needs a `pattern` "
                                       f"string (and may have note, effect); got keys "
                                       f"{sorted(item)}")
            item = item["pattern"]
        if not isinstance(item, str):
            raise fail("patterns", f"`patterns` entry {n} must be a regex string, not "
                                   f"{type(item).__name__} ({item!r})")
        try:
            re.compile(item)
        except re.error as exc:
            raise fail("patterns", f"`patterns` entry {n} ({item!r}) is not a valid "
                                   f"regex: {exc}") from None
        if re.search(item, "") is not None:
            raise fail("patterns", f"`patterns` entry {n} ({item!r}) matches the empty "
                                   "string, so it would match (and block) every command")
        patterns.append(item)
    raw_roots = data.get("export-roots", [])
    if not isinstance(raw_roots, list) or not all(isinstance(r, str) and r for r in raw_roots):
        raise fail("export-roots", f"`export-roots` must be {_CONFIG_KEYS['export-roots']}, "
                                   f"got {raw_roots!r}")
    return patterns, list(raw_roots)


def _line_of(text: str, key: str) -> str:
    """``: line N`` where ``key`` is set in the TOML text (empty when it cannot be found)."""
    m = re.search(r"^[ \t]*[\"']?" + re.escape(key) + r"[\"']?[ \t]*=", text, re.M)
    return f": line {text.count(chr(10), 0, m.start()) + 1}" if m else ""


def matching_patterns(command: str, patterns: Iterable[str],
                      bounded: Collection[str] = ()) -> list[str]:
    """The patterns found in ``command``; those in ``bounded`` (hook.toml's) are searched
    within the judgment's time budget (`PatternTimeout` past it)."""
    return [p for p in patterns
            if (_bounded_search(p, command) if p in bounded else re.search(p, command))]


class PatternTimeout(Exception):
    """A hook.toml pattern ran past `USER_PATTERN_BUDGET_S`: the command cannot be judged."""

    def __init__(self, pattern: str) -> None:
        super().__init__(pattern)
        self.pattern = pattern


class _Budget:
    left = USER_PATTERN_BUDGET_S  # seconds of hook.toml pattern matching left (per judgment)


def _bounded_search(pattern: str, text: str) -> bool:
    """``re.search`` stopped by SIGALRM when the budget runs out (re's matching loop checks
    for signals as it runs, so a catastrophic backtrack is interrupted). Outside the main
    thread no timer can be set: the search runs unbounded."""
    import signal
    import threading
    import time

    if threading.current_thread() is not threading.main_thread() or \
            not hasattr(signal, "setitimer"):
        return re.search(pattern, text) is not None
    if _Budget.left <= 0:
        raise PatternTimeout(pattern)

    def expire(_signum: int, _frame: Any) -> None:
        raise PatternTimeout(pattern)

    previous = signal.signal(signal.SIGALRM, expire)
    start = time.monotonic()
    signal.setitimer(signal.ITIMER_REAL, _Budget.left)
    try:
        return re.search(pattern, text) is not None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous if previous is not None else signal.SIG_DFL)
        _Budget.left -= time.monotonic() - start


@dataclass
class _Destroy:
    """One simple command that destroys or stops something, and what names its target."""

    context: str
    dynamic: bool
    why: str
    remote: bool = False  # run on a box through ssh: about a recorded instance, or none
    destination: list[str] | None = None  # that ssh's destination (an alias, maybe) and -F/-o
    # run through ssh, it acts on that box itself (its files, processes, power), not on a
    # provider account: on a machine the ledger does not know, it is not this project's
    on_box: bool = False


def destructive_commands(command: str, patterns: PatternSet | Iterable[str],
                         user_patterns: Iterable[str] = (),
                         parsed: list[Any] | None = None) -> list[_Destroy]:
    """The simple commands of ``command`` (`shell_words`; ``parsed`` when already cut) that
    match a pattern, run a provider CLI with computed words, or destroy something on a box
    through ssh or rsync; the whole line when only it matches a hook.toml pattern (one
    spanning several commands). ``patterns``: a `PatternSet` (its profiles loaded only when
    a command could match them) or the pattern strings."""
    from labledger.reconcile.shell_words import TOO_DEEP, normalize_line, simple_commands

    user = set(user_patterns)
    if isinstance(patterns, PatternSet):
        matches = patterns.found_in
    else:
        strings = list(patterns)

        def matches(text: str) -> bool:
            return bool(matching_patterns(text, strings, user))

    found: list[_Destroy] = []
    helps: list[str] = []  # the provider CLIs asked for their help: they only print
    for cmd in simple_commands(command) if parsed is None else parsed:
        if _asks_for_help(cmd.argv):
            helps.append(cmd.text)
            continue
        if cmd.name == TOO_DEEP:
            # a script that cannot be read (nested too deep, or a program file: `sed -f`):
            # a destroy when its text matches a pattern or runs a deleting command through
            # ssh; it names no instance it can be trusted on (dynamic: every live one)
            if matches(cmd.argv[1]) or _opaque_remote_destroy(cmd.argv[1]):
                found.append(_Destroy(cmd.context, True, cmd.text))
            continue
        computed_destroy = _computed_word_destroys(cmd.argv)
        if cmd.remote:
            on_box = cmd.opaque or _destroys_on_the_box(cmd)
            if on_box or computed_destroy or matches(cmd.text) or _gcloud_destroys(cmd.argv):
                found.append(_Destroy(cmd.context, cmd.dynamic, cmd.text, remote=True,
                                      destination=cmd.destination,
                                      on_box=on_box or cmd.name in _POWER_COMMANDS))
            continue
        remote_target = _rsync_remote_delete(cmd.argv)
        if remote_target is not None:  # `rsync --delete ./empty/ box:/root/runs/`
            found.append(_Destroy(cmd.context, cmd.dynamic, cmd.text, remote=True,
                                  destination=[remote_target], on_box=True))
            continue
        if (cmd.name in _PROVIDER_CLIS and cmd.dynamic) or computed_destroy or \
                _computed_verb(cmd):
            found.append(_Destroy(cmd.context, True, cmd.text))
            continue
        if cmd.name in _DATA_COMMANDS:
            continue
        if matches(cmd.text) or _gcloud_destroys(cmd.argv):
            found.append(_Destroy(cmd.context, cmd.dynamic, cmd.text))
    if not found:
        whole = normalize_line(command)
        if len(whole) <= _WHOLE_LINE_LIMIT and matching_patterns(whole, user, user) and \
                not any(matching_patterns(text, user, user) for text in helps):
            found.append(_Destroy(whole, bool(re.search(r"[$`]", whole)), whole))
    return found


def _asks_for_help(argv: list[str]) -> bool:
    """A provider CLI asked for its help, which it prints instead of acting: ``-h`` or
    ``--help`` as a word of its own before ``--`` (``pspace machine stop --help``), or
    ``help`` as its first word (``gcloud help compute instances delete``, cobra's
    ``runpodctl help remove pod``; a CLI without that command refuses it: nothing runs
    either), or after the operation for aws (``aws ec2 terminate-instances help``). An
    argparse CLI (vastai, aws, az, gcloud) never takes ``-h`` as an option's value (it
    refuses the command); for the others (click, cobra, cliffy) the word before it must not
    be an option that may take it as its value (``--name -h``). A word computed before it
    may be any of those: no help (fail closed)."""
    name = os.path.basename(argv[0]) if argv else ""
    if name not in _HELP_CLIS:
        return False
    words = _without_redirections(argv[1:])
    words = words[:words.index("--")] if "--" in words else words
    if words[:1] == ["help"] or (name == "aws" and any(
            w == "help" and before in _AWS_HELP_AFTER
            for before, w in zip(words, words[1:], strict=False))):
        return True
    for i, word in enumerate(words):
        if "$" in word or "`" in word:
            return False
        if word not in ("-h", "--help"):
            continue
        before = words[i - 1] if i else ""
        if name in _ARGPARSE_CLIS or not before.startswith("-") or "=" in before or \
                before in ("-h", "--help"):
            return True
    return False


# bash(1) REDIRECTION: an optional fd number or {varname}, then `<`, `>`, `>>`, `>|`, `<>`,
# `&>`, `&>>`, `>&`, `<&` or `<<<`; its target is the rest of the word or, when none, the next
_REDIRECTION = re.compile(r"^(\d+|\{\w+\})?(<<<|&>>?|>>|>\||>&|<&|<>|>|<)(.*)$", re.S)


def _without_redirections(words: list[str]) -> list[str]:
    """``words`` less the redirections and their targets (``> -h``, ``2>--help``, ``2>&1``):
    the shell opens those files, the command never sees them. A quoted ``'>'`` is taken
    out too (the words come unquoted): a help flag after it is missed and the command
    judged, the safe side."""
    kept: list[str] = []
    skip_next = False
    for word in words:
        if skip_next:
            skip_next = False
            continue
        m = _REDIRECTION.match(word)
        if m is None:
            kept.append(word)
        elif not m.group(3):
            skip_next = True  # `> -h`: the target is the next word
    return kept


def _opaque_remote_destroy(text: str) -> bool:
    """Text that cannot be read as commands (a script nested too deep, a line whose program
    file cannot be read) names ssh (mosh, rsync) and, after it, a command that destroys what a
    box holds (`_REMOTE_DESTRUCTIVE`, a session kill, ``rsync --delete``): it may run that on
    a box. Linear: the first remote word is found once, the destroying word searched after
    it."""
    first = _OPAQUE_REMOTE.search(text)
    return first is not None and _OPAQUE_REMOTE_DESTROY.search(text, first.end()) is not None


def _computed_word_destroys(argv: list[str]) -> bool:
    """A command word computed when it runs (``$V``, ``r$(echo unpod)ctl``, ``ru${X}npodctl``,
    backticks) followed, within two words, by a destroy verb: what it runs cannot be read,
    and it reads like a destroy."""
    return bool(argv) and ("$" in argv[0] or "`" in argv[0]) and any(
        w in _DESTROY_VERBS for w in argv[1:3])


def _computed_verb(cmd: Any) -> bool:
    """A CLI of `_VERB_PATHS` whose verb is computed when it runs, or appended by xargs: a
    computed word (or the end of the words, with xargs appending) where a word of the
    destroy's path goes, every fixed word before it on that path."""
    spec = _VERB_PATHS.get(cmd.name)
    if spec is None or not cmd.dynamic:
        return False
    path, valued = spec
    words: list[str] = []
    args = iter(cmd.argv[1:])
    for word in args:
        if len(words) > len(path):
            break
        if word.startswith("-"):
            if word in valued:
                next(args, None)  # its value
            continue
        words.append(word)
    if cmd.name == "gcloud" and words[:1] and words[0] in _GCLOUD_TRACKS:
        words = words[1:]
    for step, word in zip(path, words, strict=False):
        if "$" in word or "`" in word:
            return True
        if word not in step:
            return False
    return cmd.appended and len(words) < len(path)


def _gcloud_destroys(argv: list[str]) -> bool:
    """``gcloud … compute … instances … delete|stop|suspend`` or ``… tpus … [tpu-vm|
    queued-resources] … delete|stop`` with flags between its group words (calliope reads a
    flag wherever it stands: ``gcloud compute --project p instances delete vm1``,
    ``tpu-vm --quiet delete``): its words less the flags (``--flag=VALUE``, and the next
    word after a flag of `_VERB_PATHS` known to take one) and a release track."""
    if not argv or os.path.basename(argv[0]) != "gcloud":
        return False
    valued = _VERB_PATHS["gcloud"][1]
    words: list[str] = []
    args = iter(argv[1:])
    for word in args:
        if word == "--":
            break
        if word.startswith("-"):
            if word in valued:
                next(args, None)
            continue
        words.append(word)
    if words[:1] and words[0] in _GCLOUD_TRACKS:
        words = words[1:]
    if words[:1] != ["compute"] or len(words) < 3:
        return False
    if words[1] == "instances":
        return words[2] in ("delete", "stop", "suspend")
    if words[1] == "tpus":
        verb = words[3] if words[2] in ("tpu-vm", "queued-resources") and len(words) > 3 \
            else words[2]
        return verb in ("delete", "stop")
    return False


def _destroys_on_the_box(cmd: Any) -> bool:
    """Run on a box (through ssh), ``cmd`` deletes its files or kills its processes or the
    sessions they run in."""
    from labledger.reconcile.python_deletes import python_deletes

    return cmd.name in _REMOTE_DESTRUCTIVE or bool(
        _DELETE_CALLS.search(cmd.text + "\n" + cmd.context)) or (
        cmd.program is not None and any(not d.moves for d in python_deletes(cmd.program))) or (
        cmd.name == "find" and ("-delete" in cmd.argv or "-exec" in cmd.argv)) or bool(
        _REMOTE_KILL_VERBS.get(cmd.name, set()) & set(cmd.argv[1:]))


def _rsync_remote_delete(argv: list[str]) -> str | None:
    """The ``[user@]host`` of an ``rsync --delete`` whose destination is on another machine
    (it deletes there what the source lacks); None for anything else."""
    if not argv or os.path.basename(argv[0]) != "rsync" or not any(
            a.startswith("--delete") or a == "--remove-source-files" for a in argv[1:]) or \
            _dry_run(argv[1:]):
        return None
    paths = [a for a in argv[1:] if not a.startswith("-")]
    if not paths:
        return None
    target = paths[-1] if any(a.startswith("--delete") for a in argv[1:]) else paths[0]
    if target.startswith("rsync://"):
        return target[len("rsync://"):].split("/", 1)[0]
    host, colon, _ = target.partition(":")
    return host if colon and host and "/" not in host else None


def person_decisions(parsed: list[Any], command: str, base: Path) -> list[str]:
    """Reasons to refuse the labledger commands of the line that record a person's decision
    about a teardown: an override or a confirmation (`teardown --override`,
    `--confirm-absent`), a release, or such an event emitted or ingested. The hook exists so
    that an agent cannot approve its own destroy."""
    reasons: list[str] = []
    for cmd in parsed:
        args = _labledger_args(cmd.argv)
        if args is None:
            continue
        what = _decision_of(args, cmd, command, base)
        if what is not None:
            reasons.append(
                f"`{_quoted(cmd.argv)}` {what}: that is a person's decision, not an agent's. "
                "Ask a person to run it in their own terminal (an agent's hook does not see it)")
    return reasons


def _labledger_args(argv: list[str]) -> list[str] | None:
    """The arguments of a labledger command (``labledger ...``, ``python -m labledger ...``),
    global options dropped; None for any other command."""
    from labledger.reconcile.shell_words import skip_options

    if not argv:
        return None
    name = os.path.basename(argv[0])
    if name == "labledger":
        args = argv[1:]
    elif re.match(r"^python[0-9.]*$", name) and "-m" in argv[1:-1] and \
            argv[argv.index("-m") + 1].split(".")[0] == "labledger":
        args = argv[argv.index("-m") + 2:]
    else:
        return None
    return skip_options(args, _value_options(None), 0)


@functools.cache
def _value_options(sub: str | None) -> frozenset[str]:
    """The options of ``labledger SUB`` (None: of ``labledger`` itself) that take a value,
    read from its click command (imported only now, when a labledger command is judged), so
    that what follows one is never read as the event kind or the file (``--attach FILE``)."""
    import importlib

    import click

    from labledger.ledger.cli import COMMANDS, cli

    command: click.Command = cli
    if sub is not None:
        module, attribute, _ = COMMANDS[sub]
        command = getattr(importlib.import_module(module), attribute)
    found: set[str] = set()
    for param in command.params:
        if isinstance(param, click.Option) and not param.is_flag and not param.count:
            found.update(param.opts)
    return frozenset(found)


def _decision_of(args: list[str], cmd: Any, command: str, base: Path) -> str | None:
    """What the labledger command ``args`` records that only a person may (None: nothing)."""
    sub, rest = (args[0], args[1:]) if args else ("", [])
    if "--" in rest:  # `teardown ... -- CMD`: CMD's words are not teardown's options
        rest = rest[:rest.index("--")]
    if sub == "teardown":
        for word in rest:
            if word == "--override" or word.startswith("--override="):
                return "records an override approval of a teardown the gate may refuse"
            if word == "--confirm-absent":
                return "records that the instance is gone (teardown.confirmed, its release)"
    if sub == "release":
        return "records the release of an instance (it would leave the teardown gate)"
    if sub == "emit":
        from labledger.reconcile.shell_words import skip_options

        kind = skip_options(rest, _value_options("emit"), 0)[:1]
        if kind and _DECISION_KINDS.match(kind[0]):
            return f"records a {kind[0]} event"
        # only the kind matters: `--set step=$STEP` computes a value, not what is recorded;
        # xargs may append the kind itself
        if not kind or _COMPUTED_KIND.search(kind[0]) or cmd.appended:
            return "records an event whose kind cannot be read here"
    if sub == "ingest":
        return _ingest_decision(rest, cmd, command, base)
    return None


def _ingest_decision(rest: list[str], cmd: Any, command: str, base: Path) -> str | None:
    """`labledger ingest FILE|-`: refused when what it reads may hold a teardown decision or
    a release, or cannot be read here (a file written later in the line, a pipe)."""
    from labledger.reconcile.shell_words import skip_options

    source = (skip_options(rest, _value_options("ingest"), 0) or ["-"])[0]
    if cmd.dynamic:
        return "ingests events read when it runs, which may record a teardown decision"
    if source == "-":
        # its stdin is readable only when it is a here-document in this line
        if "<<" not in command or "|" in command:
            return "ingests events from stdin, which cannot be read here"
        text = command
    else:
        path = _resolve(base, source)
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return f"ingests {path}, which cannot be read now (written later?)"
    if _DECISION_TEXT.search(text):
        return "ingests teardown.* or instance.released events"
    return None


# a redirection's operator as a word of its own (`> f`, `2>> f`): shown as written, unquoted
_BARE_REDIRECTION = re.compile(r"(\d+|\{\w+\})?(&>>?|>>|>\||>&|<>|>|<)(&?\d+-?|&-)?")


def _quoted(argv: list[str]) -> str:
    """The command as written (quotes as needed, none around a redirection's operator),
    shortened when very long."""
    text = " ".join(a if _BARE_REDIRECTION.fullmatch(a) else shlex.quote(a) for a in argv)
    return text if len(text) <= _QUOTE_LIMIT else text[:_QUOTE_LIMIT - 1] + "…"


def _said(cmd: Any) -> str:
    """The command as a message quotes it (`_quoted`), with where it stands when a shell
    script the line runs holds it: ``rm -rf capsules/c2`, line 4 of `job.sh`` (the message
    closes the quote)."""
    said = _quoted(cmd.argv)
    origin = getattr(cmd, "origin", None)
    if not origin:
        return said
    script, line = origin
    return f"{said}`, line {line} of `{script}" if line else f"{said}`, in `{script}"


def _deleted(argv: list[str]) -> tuple[list[str], list[tuple[str, str]]] | None:
    """What a simple command deletes here: (paths, the find tests limiting it to some names:
    ``(test, pattern)``, none: everything), or None when it deletes nothing. ``rm`` (any),
    ``find ... -delete|-exec rm``, ``git clean -d`` (and ``git stash -u|-a``: `_clean_args_of`),
    ``mv`` (its sources leave their place),
    ``tar --remove-files``, ``rsync --delete`` (the destination), ``rsync
    --remove-source-files`` (its sources), a cloud storage tool's deleting sync or move
    (`cloud_sync`)."""
    name = os.path.basename(argv[0]) if argv else ""
    args = argv[1:]
    if name in ("gio", "gvfs") and args[:1] in (["trash"], ["remove"], ["rm"], ["move"],
                                                ["mv"]):
        name, args = f"gio-{args[0]}", args[1:]
    if name in ("rm", "shred", "unlink", *_OTHER_REMOVERS) or name in (
            "gio-trash", "gio-remove", "gio-rm"):
        return _operands(args), []
    if name in ("gio-move", "gio-mv"):  # its sources leave their place, as mv's do
        return _operands(args)[:-1], []
    if name in ("kioclient", "kioclient5", "kioclient6", "kde-cp") and args[:1] in (
            ["move"], ["mv"], ["remove"], ["rm"]):
        paths = _operands(args[1:])
        return (paths[:-1] if args[0] in ("move", "mv") else paths), []
    if name in _RENAMERS:  # each file named leaves its place (`rename 's/c2/c3/' capsules/c2`)
        return _operands(args)[1:], []
    if name == "mmv":  # `mmv FROM TO`: what FROM matches (mmv's own `*`, read as a glob)
        return _operands(args)[:1], []
    if name == "zip" and _zip_moves(args):  # `zip -m`: the files zipped are deleted after
        return _operands(args)[1:], []
    if name in ("7z", "7za", "7zr", "7zz") and any(a.lower() == "-sdel" for a in args):
        return [a for a in args if not a.startswith("-")][2:], []
    if name == "find" and ("-delete" in args or (
            any(a in ("-exec", "-execdir", "-ok", "-okdir") for a in args) and any(
            os.path.basename(a) in ("rm", "shred", "unlink") for a in args))):
        starts: list[str] = []
        for a in args:
            if a.startswith(("-", "(", "!")):
                break
            starts.append(a)
        return starts or ["."], _find_name_tests(args)
    if name == "git":
        where, rest = _git_where(args)
        if rest[:1] == ["rm"]:
            return _git_removed(where, rest[1:])
        if rest[:1] == ["mv"]:
            return _git_moved(where, rest[1:])
        if rest[:1] == ["worktree"] and rest[1:2] in (["remove"], ["move"]):
            return _git_worktree_left(where, rest[2:])
        clean = _clean_args_of(rest)
        if clean is None:
            return None
        flags, _, paths = _git_clean(_worst_clean(clean))
        if "n" in flags:
            return None
        # where git cannot be asked (`_GitClean`), a pathspec with magic (`:!src`, `:/`) or a
        # wildcard (git's `*` crosses `/`) may reach anything in the repository: its folder
        # stands for it
        if any(_git_magic(p) for p in paths):
            paths = []
        return [os.path.join(folder, p) for folder in where for p in paths or ["."]], []
    if name == "mv":
        paths = [a for a in args if not a.startswith("-")]
        return paths[:-1], []
    if name in CLOUD_TOOLS:  # `rclone sync remote:runs ./capsules`, `aws s3 mv ./runs s3://b`
        cloud = cloud_deleted(name, args)
        return (cloud, []) if cloud else None
    if name == "tar" and "--remove-files" in args:
        return [a for a in args if not a.startswith("-")][1:], []
    if name == "rsync" and not _dry_run(args):
        paths = [a for a in args if not a.startswith("-")]
        deletes = any(a.startswith("--delete") for a in args)
        deleted = [paths[-1]] if deletes and paths and ":" not in paths[-1] else []
        if any(a in ("--remove-source-files", "--remove-sent-files") for a in args):
            # the files it sent leave the sending side, as mv's sources do
            deleted += [p for p in paths[:-1] if not _remote_path(p)]
            deletes = True
        return (deleted, []) if deletes else None
    return None


# tools that delete what they are named, as rm does: trash-cli's and macOS's trash (the file
# leaves its place for a trash can an agent never empties back), secure-delete's srm and wipe
_OTHER_REMOVERS = ("trash", "trash-put", "rmtrash", "gomi", "srm", "wipe", "sdel")
# perl's rename (`rename EXPR FILES`; Debian's `rename`, `prename`, `file-rename`) and
# util-linux's (`rename FROM TO FILES`): the files after the first operand are moved away
_RENAMERS = ("rename", "prename", "file-rename", "perl-rename", "rename.ul")


def _operands(args: list[str]) -> list[str]:
    """The words of ``args`` that are no option (all after ``--``)."""
    paths, seen_end = [], False
    for a in args:
        if a == "--" and not seen_end:
            seen_end = True
        elif seen_end or not a.startswith("-"):
            paths.append(a)
    return paths


def _zip_moves(args: list[str]) -> bool:
    """``zip`` is told to delete what it zips: ``-m``/``--move``, alone or in a bundle of
    flags (``-rm``, ``-9mr``; zip 3.0's bundles take no value but ``-b``, ``-n``, ``-t``,
    ``-tt``, ``-x``, ``-i``, ``-P``, ``-Z``, ``-O`` last, so an ``m`` before them counts)."""
    for a in args:
        if a == "--move":
            return True
        if a.startswith("-") and not a.startswith("--"):
            flags = re.split(r"[bntxiPZOAU]", a[1:], maxsplit=1)[0]
            if "m" in flags:
                return True
    return False


# git-rm(1) options that take a value (``--pathspec-from-file=F`` too: the paths are in F)
_GIT_RM_VALUES = {"--pathspec-from-file"}


def _git_removed(where: list[str], args: list[str]
                 ) -> tuple[list[str], list[tuple[str, str]]] | None:
    """What ``git rm ARGS`` deletes from the work tree (git-rm(1): "remove files from the
    working tree and from the index"): None with ``--cached`` (the index only) or
    ``-n``/``--dry-run``. A pathspec with a wildcard (git's ``*`` crosses ``/``, as find's
    ``-path`` does) limits a delete of the folder it runs in, as find's tests do; one with
    magic (``:/``, ``:!x``) or read from a file may reach anything there. Whether git tracks
    the files is not asked: an untracked one makes git refuse, nothing is deleted."""
    paths: list[str] = []
    ended, unread = False, False
    for a in args:
        if ended or not a.startswith("-") or a == "-":
            paths.append(a)
        elif a in ("--", "--end-of-options"):
            ended = True
        elif a == "--cached" or a == "--dry-run" or (
                not a.startswith("--") and "n" in a[1:]):
            return None
        elif a.split("=", 1)[0] in _GIT_RM_VALUES:
            unread = True
    if unread or any(p.startswith(":") for p in paths):
        return list(where), []
    if any(_git_magic(p) for p in paths):
        # each pathspec as find's -path test of the folders git runs in (a literal one
        # matches itself: with -r, what is below it too)
        return list(where), [("-path", os.path.normpath(p)) for p in paths] + [
            ("-path", os.path.join(os.path.normpath(p), "*")) for p in paths]
    # (in the folder it runs in: each path as written, a computed one judged by what feeds
    # it, as rm's is: `git rm $(git ls-files --deleted)`)
    return [p if folder == "." else os.path.join(folder, p) for folder in where
            for p in paths], []


def _git_moved(where: list[str], args: list[str]
               ) -> tuple[list[str], list[tuple[str, str]]] | None:
    """What ``git mv ARGS`` takes out of its place: its sources, as ``mv``'s (git-mv(1):
    "the source must exist", tracked; ``git mv capsules/c2 x`` moved a tracked capsule
    away, tried with git 2.39; an untracked one makes git refuse, which is not asked). None
    with ``-n``/``--dry-run``."""
    operands, _, flags = _options(args, ())
    if flags & {"n", "--dry-run"}:
        return None
    return [p if folder == "." else os.path.join(folder, p) for folder in where
            for p in operands[:-1]], []


def _git_worktree_left(where: list[str], args: list[str]
                       ) -> tuple[list[str], list[tuple[str, str]]] | None:
    """What ``git worktree remove|move WORKTREE ...`` takes out of its place: the worktree,
    everything in it. git-worktree(1): remove refuses a tree with untracked or changed files
    (without ``--force``), but IGNORED files are not its concern: tried with git 2.39,
    ``git worktree remove exp1`` deleted a worktree's ignored ``.labledger/`` without a word,
    and ``git worktree remove .`` the one it ran in. ``move`` takes it all elsewhere, as
    ``mv`` does. WORKTREE as written; `_worktree_places` reads it as git does."""
    operands = _options(args, _GIT_WORKTREE_VALUES)[0]
    if not operands:
        return None
    return [_git_join(folder, operands[0]) for folder in where], []


_GIT_WORKTREE_VALUES = {"--reason"}  # (of `lock`; remove and move take no valued option)


def _worktree_places(cmd: Any, bases: list[Path]) -> list[str] | None:
    """The worktree a ``git worktree remove|move WORKTREE`` names, from each working folder,
    as git reads the name (builtin/worktree.c ``find_worktree``): first as the unique
    worktree whose path ends in it at a folder's edge (``exp1`` for ``../exp1``, from
    anywhere in the repository), then as a path. git is asked which worktrees there are
    (``git worktree list --porcelain -z``, read-only); a name that is neither names none and
    git refuses it (``is not a working tree``): nothing. Where git cannot be asked, the name
    as written. None for any other command."""
    if cmd.name != "git" or cmd.remote:
        return None
    where, rest = _git_where(cmd.argv[1:])
    if rest[:1] != ["worktree"] or rest[1:2] not in (["remove"], ["move"]):
        return None
    operands = _options(_without_redirections(rest[2:]), _GIT_WORKTREE_VALUES)[0]
    if not operands:
        return None
    places: list[str] = []
    for base in bases:
        folder = _resolve(base, where[0])
        name = _known_folders(operands[0], base)
        if _COMPUTED_WORD.search(name) or _COMPUTED_WORD.search(where[0]):
            places.append(_git_join(where[0], operands[0]))  # (judged as computed)
            continue
        listed = _git_asked(folder, ["worktree", "list", "--porcelain", "-z"])
        if listed is None:
            places.append(str(_resolve(folder, name)))
            continue
        trees = [os.fsdecode(line[len(b"worktree "):]) for line in listed.split(b"\0")
                 if line.startswith(b"worktree ")]
        ends = [t for t in trees if t == name or t.endswith("/" + name)] if name else []
        real = os.path.realpath(_resolve(folder, name))
        named = ends if len(ends) == 1 else [t for t in trees if os.path.realpath(t) == real]
        # (the first is the main worktree: git refuses it, "is a main working tree")
        places += [t for t in named[:1] if t != trees[0]]
    return places


def _removes_folders(argv: list[str]) -> bool:
    """The delete may remove a folder: any but ``rm`` without ``-r``/``-R``/``-d`` (or their
    long forms), ``shred`` and ``unlink``, which remove files only."""
    name = os.path.basename(argv[0]) if argv else ""
    if name in ("shred", "unlink"):
        return False
    if name != "rm":
        return True
    for a in argv[1:]:
        if a == "--":
            break
        if a in ("--recursive", "--dir") or (
                a.startswith("-") and not a.startswith("--") and set(a[1:]) & set("rRd")):
            return True
    return False


def _clean_words(args: list[str]) -> Iterator[tuple[str, str, list[str]]]:
    """``git clean ARGS`` read as git's option parser reads it, one unit at a time: (kind,
    value, the words as written). Kinds: ``path`` (also every word after ``--`` or
    ``--end-of-options``, themselves ``end``), ``long`` (the option's name, ``no-`` kept),
    ``flags`` (a bundle's short flags before any ``e``), ``exclude`` (the pattern: ``-e`` takes
    the rest of its bundle or the next word, ``-fdxe capsules``, so it is neither a path nor
    flags; ``--exclude`` and its unique prefixes take ``=VALUE`` or the next word)."""
    i, ended = 0, False
    while i < len(args):
        word = args[i]
        i += 1
        if ended or not word.startswith("-") or word == "-":
            yield "path", word, [word]
        elif word in ("--", "--end-of-options"):
            ended = True
            yield "end", word, [word]
        elif word.startswith("--"):
            name, eq, value = word[2:].partition("=")
            if len(name) >= 2 and "exclude".startswith(name):
                words = [word]
                if not eq:
                    value = args[i] if i < len(args) else ""
                    words += args[i:i + 1]
                    i += 1
                yield "exclude", value, words
            else:
                yield "long", name, [word]
        else:
            flags, e, rest = word[1:].partition("e")
            if flags:
                yield "flags", flags, ["-" + flags]
            if e:
                words = ["-e" + rest]
                if not rest:  # `-e PATTERN`
                    rest = args[i] if i < len(args) else ""
                    words += args[i:i + 1]
                    i += 1
                yield "exclude", rest, words


def _git_clean(args: list[str]) -> tuple[set[str], list[str], list[str]]:
    """(short flags, ``-e`` patterns, paths) of ``git clean ARGS`` (`_clean_words`);
    ``--dry-run`` is ``-n``, undone by a later ``--no-dry-run`` (git takes the last:
    ``-n ... --no-dry-run`` cleans)."""
    flags: set[str] = set()
    excludes: list[str] = []
    paths: list[str] = []
    for kind, value, _ in _clean_words(args):
        if kind == "path":
            paths.append(value)
        elif kind == "exclude":
            excludes.append(value)
        elif kind == "flags":
            flags.update(value)
        elif kind == "long" and value and "dry-run".startswith(value):
            flags.add("n")
        elif kind == "long" and len(value) > 3 and "no-dry-run".startswith(value):
            flags.discard("n")
    return flags, excludes, paths


def _git_where(args: list[str]) -> tuple[list[str], list[str]]:
    """(the folders a git command acts in, its subcommand and what follows), git's global
    options read as git reads them: ``-C DIR`` (several are joined: ``-C a -C b`` is
    ``a/b``), ``-c k=v``, ``--git-dir``, ``--work-tree`` (``=VALUE`` or the next word). The
    folders: where it runs (``.``, or the ``-C`` path), and a ``--work-tree`` (git acts on
    that tree: its clean may delete anywhere in it)."""
    from labledger.reconcile.shell_words import _GIT_GLOBAL_VALUES

    here, tree = ".", None
    i = 0
    while i < len(args) and args[i].startswith("-") and args[i] != "--":
        word = args[i]
        option, eq, value = word.partition("=")
        if not eq and word in _GIT_GLOBAL_VALUES:
            value, i = (args[i + 1] if i + 1 < len(args) else ""), i + 1
        if option == "-C" and value:
            here = _git_join(here, value)
        elif option == "--work-tree" and value:
            tree = _git_join(here, value)
        i += 1
    return [here] + ([tree] if tree is not None else []), args[i:]


def _git_join(here: str, path: str) -> str:
    """``path`` from the folder ``here`` (absolute, from home or computed: as written)."""
    return path if here == "." or path.startswith(("/", "~", "$")) else \
        os.path.join(here, path)


# global options of git that leave which repository, work tree and config it reads as they are
# (any other, `-c`, `--git-dir`, `--work-tree`, ...: real git is not asked, see `_GitClean`)
_GIT_NEUTRAL_OPTIONS = {"--no-pager", "-P", "-p", "--paginate", "--no-optional-locks",
                        "--literal-pathspecs", "--no-replace-objects"}
_GIT_ASK_TIMEOUT_S = 2.0  # one dry run of git clean
# bash(1)/git-config(1): where git finds config and ignore files (core.excludesFile defaults to
# $XDG_CONFIG_HOME/git/ignore, else $HOME/.config/git/ignore) and git's own variables
_GIT_ENV_ASSIGNMENT = re.compile(
    r"(?<![\w$])(HOME|XDG_CONFIG_HOME|GIT_\w*)\+?=|\b(unset|env\s+-u)\s+(HOME|XDG_|GIT_)")
# git commands that change neither the index, the work tree, the config nor what is ignored
_GIT_READ_ONLY = {"status", "log", "diff", "show", "ls-files", "ls-tree", "rev-parse",
                  "rev-list", "cat-file", "describe", "blame", "annotate", "grep", "shortlog",
                  "version", "help", "whatchanged", "show-ref", "for-each-ref", "name-rev",
                  "check-ignore", "check-attr", "count-objects", "diff-files", "diff-index",
                  "diff-tree", "merge-base", "cherry", "var"}
_GIT_BRANCH_LISTS = {"--list", "-l", "-a", "--all", "-r", "--remotes", "-v", "-vv",
                     "--verbose", "--show-current", "--no-color", "--color"}
# git-clean(1) prints `Would remove PATH` for each path a dry run would remove (LC_ALL=C:
# untranslated); with `-q` it prints nothing, `-i` asks on a terminal: both left out
_WOULD_REMOVE = "Would remove "


@dataclass
class _GitClean:
    """A ``git clean`` that removes (no dry run), to ask real git what it removes: its
    working folders (one from each of the line's; None when git's view cannot be reproduced:
    a computed ``-C``, ``--git-dir``, ``--work-tree``, a ``-c``, an assignment of ``HOME``,
    ``XDG_CONFIG_HOME`` or ``GIT_*`` before it, or an earlier command of the line that may
    change what git ignores or tracks), its own arguments and its short flags and ``-e``
    patterns (read where git cannot be asked)."""

    folders: list[Path] | None
    args: list[str]
    flags: set[str]
    excludes: list[str]
    # a pathspec with magic (`:!src`, `:/`) or a wildcard (git's `*` crosses `/`): it may
    # reach anything in the repository, not only below its folder
    anywhere: bool = False
    # each folder's answer, asked once: the paths git would remove, None when it cannot say
    answers: dict[Path, list[Path] | None] = field(default_factory=dict)

    def removes(self, root: Path, spared: Path | None) -> bool:
        """The clean removes something of ``root``: a path git's dry run lists is ``root``,
        above it or inside it (inside ``spared``, the ledger's cache, aside). git failing or
        not answering in time: removed (fail closed)."""
        return _git_answer_reaches(self.answers, self.folders or [],
                                   lambda folder: _git_would_remove(folder, self.args),
                                   root, spared)


@dataclass
class _GitStaged:
    """A ``git stash`` that takes the staged files HEAD does not hold out of the work tree
    (`_stash_staged_pathspecs`), to ask git which (`_git_staged_new`): its working folders
    (one from each of the line's) and pathspecs."""

    folders: list[Path]
    pathspecs: list[str]
    answers: dict[Path, list[Path] | None] = field(default_factory=dict)

    def removes(self, root: Path, spared: Path | None) -> bool:
        """Some of them is ``root``, above it or inside it (inside ``spared`` aside); git
        failing or not answering in time: removed (fail closed)."""
        return _git_answer_reaches(self.answers, self.folders,
                                   lambda folder: _git_staged_new(folder, self.pathspecs),
                                   root, spared)


def _git_answer_reaches(answers: dict[Path, list[Path] | None], folders: list[Path],
                        ask: Callable[[Path], list[Path] | None], root: Path,
                        spared: Path | None) -> bool:
    """Some path git answers (``ask``, once per folder, kept in ``answers``) is ``root``,
    above it or inside it (inside ``spared`` aside); no answer counts as reaching it."""
    for folder in folders:
        if folder not in answers:
            answers[folder] = ask(folder)
        paths = answers[folder]
        if paths is None or any(
                _overlaps(p, root) and (spared is None or spared not in (p, *p.parents))
                for p in paths):
            return True
    return False


def _git_would_remove(folder: Path, args: list[str]) -> list[Path] | None:
    """What ``git clean ARGS`` run in ``folder`` would remove, asked of git itself as a dry
    run of the same arguments (`_dry_run_args`: pathspecs and their magic, ``-x``, ``-X``,
    ``-e``, ``-d``, a doubled ``-f``, all as git reads them); None when git cannot answer (not
    a repository, a bad option, past `_GIT_ASK_TIMEOUT_S`, an unknown line). git runs
    read-only: no optional locks, ``core.fsmonitor`` (a program the repository's config may
    name) off, paths unquoted but for control characters and quotes (`_git_asked`)."""
    dry, forces = _dry_run_args(args)
    # `-ff` also removes untracked nested repositories, which a dry run lists only when given
    # `-ff` too: then (only) the question holds a force, after its `-n`, which nothing left
    # in `dry` can undo; else none, and `clean.requireForce` refuses whatever git reads
    printed = _git_asked(folder, ["-c", "clean.requireForce=true", "clean", dry[0],
                                  *(["-ff"] if forces > 1 else []), *dry[1:]])
    if printed is None:
        return None
    removed: list[Path] = []
    for line in os.fsdecode(printed).splitlines():
        if not line.startswith(_WOULD_REMOVE):
            return None
        removed.append(_resolve(folder, _git_unquoted(line[len(_WOULD_REMOVE):])))
    return removed


def _git_asked(folder: Path, args: list[str]) -> bytes | None:
    """What ``git ARGS``, a question that changes nothing, prints run in ``folder``; None when
    it fails or takes over `_GIT_ASK_TIMEOUT_S`. git runs read-only: no optional locks (it
    does not refresh the index), ``core.fsmonitor`` (a program the repository's config may
    name) and the untracked cache off, paths unquoted but for control characters and quotes,
    untranslated, never asking on a terminal."""
    import subprocess

    ask = ["git", "--no-optional-locks", "-c", "core.fsmonitor=false",
           "-c", "core.untrackedCache=false", "-c", "core.quotePath=false", *args]
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0",
           "LC_ALL": "C", "LANGUAGE": ""}
    try:
        done = subprocess.run(ask, cwd=folder, env=env, capture_output=True,
                              timeout=_GIT_ASK_TIMEOUT_S, check=False,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def _git_staged_new(folder: Path, pathspecs: list[str]) -> list[Path] | None:
    """The staged files HEAD does not hold that a ``git stash -- PATHSPECS`` run in
    ``folder`` takes out of the work tree, asked of git read-only (`_git_asked`): ``git
    diff-index --cached --no-renames --diff-filter=A --name-only -z HEAD -- PATHSPECS``
    (plumbing: paths from the top of the work tree, which ``git rev-parse --show-toplevel``
    gives; a renamed file's new path counts as added). None when git cannot answer."""
    top = _git_asked(folder, ["rev-parse", "--show-toplevel"])
    listed = _git_asked(folder, ["diff-index", "--cached", "--no-renames", "--diff-filter=A",
                                 "--name-only", "-z", "HEAD", "--", *pathspecs])
    if top is None or listed is None or not top.strip():
        return None
    root = Path(os.fsdecode(top.rstrip(b"\n")))
    return [_resolve(root, os.fsdecode(p)) for p in listed.split(b"\0") if p]


def _dry_run_args(args: list[str]) -> tuple[list[str], int]:
    """The arguments of ``git clean ARGS`` as a dry run that cannot remove anything, and the
    number of ``-f`` the clean gives. ``-n`` goes first, and every word that could undo it or
    remove is left out: ``-f``/``--force``, ``-n``/``--dry-run`` and their ``--no-`` forms
    (git takes the last of ``-n``/``--no-dry-run``: ``-n ... --no-dry-run`` cleans), ``-i``,
    ``-q`` (a quiet dry run prints nothing), also from a bundle of short flags (``-fdq``)
    and as an abbreviated long option (git's parse-options takes a unique prefix). With no
    ``-f`` left, git's ``clean.requireForce`` (set on the asking command line) refuses to
    remove should ``-n`` ever be read as something else; a ``-n`` appended after the clean's
    words was: the value of a trailing ``-e``/``--exclude`` or a pathspec after
    ``--end-of-options``, and the hook itself ran the real clean. Words are read by
    `_clean_words`; everything else is kept as written."""
    out: list[str] = []
    forces = 0
    for kind, value, words in _clean_words(args):
        if kind == "long":
            bare = value[3:] if value.startswith("no-") else value
            if bare and any(full.startswith(bare)
                            for full in ("interactive", "quiet", "dry-run", "force")):
                if "force".startswith(bare) and not value.startswith("no-"):
                    forces += 1
                continue
        elif kind == "flags":
            forces += value.count("f")
            kept = "".join(ch for ch in value if ch not in "fiqn")
            words = ["-" + kept] if kept else []
        out += words
    return ["-n", *out], forces


# git's C-style quoting of a path (quote.c, quote_c_style): these escapes and \ooo octal bytes
_C_ESCAPES = {"a": 7, "b": 8, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11, "\\": 92, '"': 34}


def _git_unquoted(path: str) -> str:
    """A path as git prints it, unquoted: a ``"…"`` path holds C escapes (``\\"``, ``\\t``,
    ``\\303\\251``: octal bytes of UTF-8), anything else is the path as it is."""
    if len(path) < 2 or not (path.startswith('"') and path.endswith('"')):
        return path
    body, out, i = path[1:-1], bytearray(), 0
    while i < len(body):
        ch = body[i]
        if ch != "\\" or i + 1 >= len(body):
            out += ch.encode("utf-8", "surrogateescape")
            i += 1
        elif body[i + 1] in _C_ESCAPES:
            out.append(_C_ESCAPES[body[i + 1]])
            i += 2
        elif body[i + 1:i + 4].isdigit():
            out.append(int(body[i + 1:i + 4], 8) & 0xFF)
            i += 4
        else:
            out += body[i + 1].encode("utf-8", "surrogateescape")
            i += 2
    return os.fsdecode(bytes(out))


def _git_clean_of(cmd: Any, bases: list[Path], changed: bool) -> _GitClean | None:
    """The `_GitClean` of a ``git clean`` command that removes, or of a ``git stash`` of
    untracked files (`_clean_args_of`); None for any other command and for a dry run.
    ``changed``: an earlier command of the line may change what git ignores or tracks
    (`_may_change_git_state`), which makes git's answer now worthless."""
    if cmd.name != "git":
        return None
    args = cmd.argv[1:]
    rest = _git_where(args)[1]
    clean = _clean_args_of(rest)
    if clean is None:
        return None
    clean = _worst_clean(clean)
    flags, excludes, paths = _git_clean(clean)
    if "n" in flags:
        return None
    anywhere = any(_git_magic(p) for p in paths)
    here = _git_here(cmd)
    if here is None or changed:
        return _GitClean(None, clean, flags, excludes, anywhere=anywhere)
    return _GitClean([_resolve(base, here) for base in bases], clean, flags, excludes,
                     anywhere=anywhere)


# a word computed when it runs (`$F`, `"${OPTS}"`, `$(...)`, backticks)
_COMPUTED_WORD = re.compile(r"[$`]")


def _may_be_an_option(word: str) -> bool:
    """The word, computed when it runs from its first character on (``$F``, ``$(...)``), may
    be any option; ``runs/$R`` or ``wip $(date)`` is no option, ``-f$X`` one of its own."""
    return word.startswith(("$", "`"))


def _worst_clean(args: list[str]) -> list[str]:
    """``git clean ARGS`` with each word computed when it runs written as the worst it may be
    (fail closed): before ``--``, options that remove everything (``--no-dry-run -ffdx``: it
    may undo a ``-n``, add ``-x``, force into nested repositories) and a pathspec reaching
    the whole work tree (``:/``); after ``--``, that pathspec; a computed ``-e`` pattern, none
    (it may only keep files). ``F=-fdx; git clean $F`` was asked of git as the pathspec
    ``$F``, which matches nothing, and allowed. A computed path that starts as written
    (``runs/$R``) is no option, but may reach anywhere too (``runs/..``). ARGS without a
    computed word: as they are."""
    if not any(_COMPUTED_WORD.search(w) for w in args):
        return args
    options: list[str] = []
    paths: list[str] = []
    ended = False
    for kind, _, words in _clean_words(args):
        computed = any(_COMPUTED_WORD.search(w) for w in words)
        if kind == "end":
            ended = True
        elif kind == "exclude":
            options += [] if computed else words
        elif not computed:
            (paths if kind == "path" else options).extend(words)
        else:
            if not ended and (kind != "path" or _may_be_an_option(words[0])):
                options += ["--no-dry-run", "-ffdx"]
            paths.append(":/")
    return [*options, "--", *paths]


def _git_here(cmd: Any) -> str | None:
    """Where the git command ``cmd`` runs (its ``-C`` folders joined), when git's view of it
    can be reproduced by asking git from there: None when it cannot (a computed ``-C``, a
    global option that changes the repository, work tree or config it reads: `_GitClean`,
    an assignment of ``HOME``, ``XDG_CONFIG_HOME`` or ``GIT_*`` in front of it). An alias
    defined by ``-c alias.X=...`` changes nothing a clean or a stash reads."""
    args = cmd.argv[1:]
    options = args[:len(args) - len(_git_where(args)[1])]
    here, known, i = ".", True, 0
    while i < len(options):
        if options[i] == "-C" and i + 1 < len(options):
            here = _git_join(here, options[i + 1]) if options[i + 1] else here
            i += 2
            continue
        value = options[i + 1] if i + 1 < len(options) else ""
        if options[i] in ("-c", "--config-env") and _GIT_ALIAS_KEY.match(value):
            i += 2  # an alias defined for this command: nothing a clean reads
            continue
        known = known and (options[i] in _GIT_NEUTRAL_OPTIONS or bool(
            _GIT_ALIAS_KEY.match(options[i].removeprefix("--config-env="))))
        i += 1
    if not known or "$" in here or "`" in here or _GIT_ENV_ASSIGNMENT.search(cmd.context):
        return None
    return here


# a git config key of the `alias` section (git-config(1): section names are case-insensitive)
_GIT_ALIAS_KEY = re.compile(r"(?i)alias\.[^=]")


def _clean_args_of(rest: list[str]) -> list[str] | None:
    """The arguments of the ``git clean`` that the git subcommand ``rest`` (its name and
    words) runs, None when it runs none: ``clean ARGS`` itself, or a ``stash`` that stashes
    untracked files (`_stash_clean_args`)."""
    if rest[:1] == ["clean"]:
        return rest[1:]
    if rest[:1] == ["stash"]:
        return _stash_clean_args(rest[1:])
    return None


def _stash_form(words: list[str]) -> tuple[str, list[str]] | None:
    """(``push`` or ``save``, its words) of ``git stash WORDS`` that stashes (git 2.39
    cmd_stash: no words, or an option first, is a ``push``); None for ``list``, ``pop``,
    ``show`` and the other subcommands, which leave the work tree's untracked files alone."""
    if words[:1] in (["push"], ["save"]):
        return words[0], words[1:]
    if not words or words[0].startswith("-") or _may_be_an_option(words[0]):
        # (a computed first word may be ``push -a``: read as a push of that word)
        return "push", words
    return None


# git-stash(1), git 2.39 builtin/stash.c push_stash options: -m/--message take a value,
# --pathspec-from-file too; parse-options takes a unique prefix of a long option
_STASH_VALUED = ("message", "pathspec-from-file")


@dataclass
class _StashWords:
    """``git stash [push|save] WORDS`` as git 2.39's push_stash reads them: which untracked
    files it takes (0: none, 1: ``-u``/``--include-untracked``, 2: ``-a``/``--all``; the last
    of them and their ``--no-`` forms counts), whether ``-k``/``--keep-index`` keeps the
    staged changes in the work tree (the last of it and ``--no-keep-index``), its pathspecs
    (None: the whole work tree: none given, ``save``'s words are its message, or they are
    read from a file)."""

    level: int
    keep_index: bool
    pathspecs: list[str] | None


def _stash_words(words: list[str]) -> _StashWords | None:
    """`_StashWords` of ``git stash WORDS`` that stashes (`_stash_form`), else None."""
    form = _stash_form(words)
    if form is None:
        return None
    kind, words = form
    level, keep, pathspecs, whole, ended, i = 0, False, [], kind == "save", False, 0
    while i < len(words):
        word = words[i]
        i += 1
        if not ended and _may_be_an_option(word):
            # computed when it runs: the worst it may be, ``--all --no-keep-index``, or a
            # pathspec that may reach the whole work tree
            level, keep, whole = 2, False, True
        elif ended and _COMPUTED_WORD.search(word):  # a pathspec that may reach anywhere
            whole = True
        elif ended or not word.startswith("-") or word == "-":
            pathspecs.append(word)
        elif word == "--":
            ended = True
        elif word.startswith("--"):
            name, eq, _ = word[2:].partition("=")
            bare = name.removeprefix("no-")
            if name and any(v.startswith(name) for v in _STASH_VALUED):
                whole = whole or "pathspec-from-file".startswith(name)
                i += 0 if eq else 1
            elif bare and "include-untracked".startswith(bare):
                level = 0 if name.startswith("no-") else 1
            elif bare and "all".startswith(bare):
                level = 0 if name.startswith("no-") else 2
            elif bare and "keep-index".startswith(bare):
                keep = not name.startswith("no-")
        else:
            for k, flag in enumerate(word[1:], 1):
                if flag == "m":  # the rest of the bundle, or the next word, is the message
                    i += 0 if k < len(word) - 1 else 1
                    break
                level = {"u": 1, "a": 2}.get(flag, level)
                keep = keep or flag == "k"
    return _StashWords(level, keep, None if whole or not pathspecs else pathspecs)


def _stash_clean_args(words: list[str]) -> list[str] | None:
    """``git stash [push|save] WORDS`` read as the clean it runs once its files are stashed:
    with ``-u``/``--include-untracked`` (untracked files) or ``-a``/``--all`` (ignored ones
    too) git 2.39's do_push_stash runs ``git clean --force --quiet -d [-x] :/`` (the whole
    work tree), or removes what its pathspecs match (``git add [--force] -- PATHSPEC``, then
    that diff applied in reverse): the same as ``git clean -fd [-x] -- PATHSPEC``. None: no
    untracked file leaves (a plain ``stash``, ``list``, ``pop``...)."""
    stash = _stash_words(words)
    if stash is None or stash.level == 0:
        return None
    removes = ["-f", "-d", *(["-x"] if stash.level == 2 else []), "--"]
    return [*removes, *(stash.pathspecs or [":/"])]


def _stash_staged_pathspecs(rest: list[str]) -> list[str] | None:
    """The pathspecs of the staged files the git subcommand ``rest`` removes from the work
    tree ([]: all of them) when it is a ``git stash`` without ``--keep-index`` (git 2.39
    do_push_stash resets the work tree to HEAD, or checks the pathspec's files out of it, so
    a file staged but not in HEAD leaves it; ``--staged`` does the same); None for any other
    command."""
    if rest[:1] != ["stash"]:
        return None
    stash = _stash_words(rest[1:])
    if stash is None or stash.keep_index:
        return None
    return stash.pathspecs or []


def _stash_staged_target(cmd: Any, bases: list[Path], project: Path, changes: _GitChanges,
                         n: int) -> _Target | None:
    """The staged files the n-th command of the line, a ``git stash`` that takes them
    (`_stash_staged_pathspecs`), removes from the work tree: those staged now, asked of git
    (`_GitStaged`), and what an earlier ``git add`` of the line may stage (`_added_places`;
    within the stash's pathspecs). Where git cannot be asked (`_git_here`), or an earlier
    command may stage files another way (`_stages`), every repository the stash may reach
    (fail closed). None for any other command."""
    if cmd.name != "git" or cmd.remote:
        return None
    pathspecs = _stash_staged_pathspecs(_git_where(cmd.argv[1:])[1])
    if pathspecs is None:
        return None
    adds, other = changes.staged_before(n)
    here = _git_here(cmd)
    if here is None or other:
        return _Target("(its staged files)", _repository_tops(cmd.argv, bases, project), [],
                       False, _said(cmd), note=_STAGED_NOTE)
    folders = [_resolve(base, here) for base in bases]
    places = [place for add in adds for place in _added_places(add, bases, project)]
    if pathspecs and not any(_git_magic(p) for p in pathspecs):
        within = [_resolve(folder, p) for folder in folders for p in pathspecs]
        places = [p for p in places if any(_overlaps(p, w) for w in within)]
    return _Target("(its staged files)", places, [], False, _said(cmd),
                   staged=_GitStaged(folders, pathspecs), note=_STAGED_NOTE)


_STAGED_NOTE = (" (git stash removes the staged files that HEAD does not hold from the work "
                "tree)")
_RESET_STAGED_NOTE = (" (git reset --hard removes the files staged before it that the commit "
                      "does not hold from the work tree)")


def _stash_dropped(rest: list[str]) -> list[str] | None:
    """The stash entries the git subcommand ``rest`` drops: ``["stash@{N}"]`` for ``git
    stash drop [-q] [N|stash@{N}]`` (none named: ``stash@{0}``), ``[]`` for ``git stash
    clear`` (every entry) and for a drop whose entry is computed when it runs; None for any
    other command. (``git stash pop`` drops only what it applied: not counted.)"""
    if rest[:2] == ["stash", "clear"]:
        return []
    if rest[:2] != ["stash", "drop"]:
        return None
    named = [w for w in rest[2:] if not w.startswith("-")]
    if not named:
        return ["stash@{0}"]
    if _COMPUTED_WORD.search(named[0]):
        return []
    return [f"stash@{{{named[0]}}}" if named[0].isdigit() else named[0]]


class _AskedOfGit:
    """What a git command writes or loses, asked of git once per working folder (``folders``)
    and kept in ``answers``: `_ask` is the question, `removes` whether an answer reaches a
    protected folder (git failing or not answering in time: it does, fail closed),
    `changed_in` the first file of it answered."""

    folders: list[Path] | None
    answers: dict[Path, list[Path] | None]

    def _ask(self, folder: Path) -> list[Path] | None:
        raise NotImplementedError

    def removes(self, root: Path, spared: Path | None) -> bool:
        """A file of ``root`` (inside ``spared`` aside) is written or lost."""
        return _git_answer_reaches(self.answers, self.folders or [], self._ask, root, spared)

    def changed_in(self, root: Path, spared: Path | None) -> Path | None:
        """The first file of ``root`` git answered (asked by `removes`)."""
        return _first_answered(self.answers, root, spared)


@dataclass
class _GitDropped(_AskedOfGit):
    """A ``git stash drop`` or ``clear`` (`_stash_dropped`), to ask git which files of its
    entries (``entries``; none: all of them) the work tree no longer holds as stashed
    (`_git_stash_lost`): dropping the entry loses them. Its working folders, one from each of
    the line's."""

    folders: list[Path] | None
    entries: list[str]
    answers: dict[Path, list[Path] | None] = field(default_factory=dict)

    def _ask(self, folder: Path) -> list[Path] | None:
        return _git_stash_lost(folder, self.entries)


def _git_stash_lost(folder: Path, entries: list[str]) -> list[Path] | None:
    """The files a drop of the stash ``entries`` (none: every entry) run in ``folder`` loses,
    asked of git read-only (`_git_asked`): of each entry W, the tracked files whose stashed
    change the work tree does not hold (``git diff --name-only W^1 W``, less what ``git diff
    W`` finds equal, and less what the work tree holds with more appended: `_still_held`),
    and its untracked files (``W^3``, `git stash -u`) missing from the work tree or different
    there (`_git_blob_differs`). None when git cannot answer; an entry
    that does not exist loses nothing (git refuses the drop)."""
    top = _git_asked(folder, ["rev-parse", "--show-toplevel"])
    if top is None or not top.strip():
        return None
    root = Path(os.fsdecode(top.rstrip(b"\n")))
    if not entries:
        listed = _git_asked(folder, ["log", "-g", "--format=%H", "refs/stash", "--"])
        entries = os.fsdecode(listed or b"").split()
    lost: list[Path] = []
    for entry in entries:
        commit = _git_asked(folder, ["rev-parse", "-q", "--verify", entry + "^{commit}"])
        if commit is None:
            continue
        w = os.fsdecode(commit).strip()
        held = _git_asked(folder, ["diff", "--name-only", "-z", "--no-renames",
                                   "--no-ext-diff", "--no-textconv", w + "^1", w, "--"])
        differs = _git_asked(folder, ["diff", "--name-only", "-z", "--no-renames",
                                      "--no-ext-diff", "--no-textconv", w, "--"])
        if held is None or differs is None:
            return None
        kept_not = set(differs.split(b"\0"))
        lost += [_resolve(root, os.fsdecode(p)) for p in held.split(b"\0")
                 if p and p in kept_not and not _still_held(folder, root, w, p)]
        if _git_asked(folder, ["rev-parse", "-q", "--verify", w + "^3^{commit}"]) is None:
            continue
        untracked = _git_asked(folder, ["ls-tree", "-r", "-z", "--full-tree", w + "^3"])
        if untracked is None:
            return None
        for line in untracked.split(b"\0"):
            head, tab, name = line.partition(b"\t")
            if tab and _git_blob_differs(root / os.fsdecode(name), head.split()[-1]):
                lost.append(_resolve(root, os.fsdecode(name)))
    return lost


def _still_held(folder: Path, root: Path, entry: str, path: bytes) -> bool:
    """The work tree's copy of ``path`` (from the top ``root``) begins with the whole of the
    stash ``entry``'s copy: what it stashed is there, more written after it (a ledger
    segment is only appended to: ``git stash``, ``git stash apply``, a run's events, then
    ``git stash drop`` loses no event). Asked of git read-only; no answer: not held."""
    stashed = _git_asked(folder, ["cat-file", "blob", f"{entry}:{os.fsdecode(path)}"])
    if stashed is None:
        return False
    here = root / os.fsdecode(path)
    try:
        if not here.is_file() or here.is_symlink() or here.stat().st_size < len(stashed):
            return False
        with here.open("rb") as f:
            return f.read(len(stashed)) == stashed
    except OSError:
        return False


def _git_blob_differs(path: Path, oid: bytes) -> bool:
    """The file at ``path`` is not the blob ``oid`` (git's object name of ``blob LEN\\0``
    and the bytes: SHA-1, or SHA-256 for a 64-digit name), or is missing or unreadable."""
    import hashlib

    try:
        data = path.read_bytes() if path.is_file() and not path.is_symlink() else None
    except OSError:
        data = None
    if data is None:
        return True
    digest = hashlib.sha256() if len(oid) == 64 else hashlib.sha1()  # noqa: S324 - git's name
    digest.update(b"blob %d\0" % len(data))
    digest.update(data)
    return digest.hexdigest().encode() != oid


_DROP_NOTE = " (the stash it drops holds what the work tree no longer does)"


def _stash_drop_targets(cmd: Any, bases: list[Path], project: Path, changes: _GitChanges,
                        n: int) -> list[_Target]:
    """What the n-th command of the line, a ``git stash drop`` or ``clear``
    (`_stash_dropped`), loses: what the entries it drops hold that the work tree does not
    (`_GitDropped`), and the changes an earlier ``git stash`` of the line stashes (it reverts
    them in the work tree, the drop then deletes the stash: tried with git 2.39, ``git stash
    && git stash drop`` took the events appended to a tracked ledger for good), judged as
    that stash's write-back of HEAD over its pathspecs (`_GitRewrite`; a stash of nothing
    makes no entry: the drop takes the one there, so both count). A ``git stash pop|apply``
    between them puts the stash back: nothing counts. Where git cannot be asked
    (`_git_here`), every repository it may reach (fail closed). None for any other
    command."""
    if cmd.name != "git" or cmd.remote:
        return []
    entries = _stash_dropped(_git_where(cmd.argv[1:])[1])
    last = _last_stash(changes.parsed[:n])
    if entries is None or (last is not None and last[1] is None):
        return []  # (`git stash apply && git stash drop`: what it drops is back, a pop)
    said = _said(cmd)
    here = _git_here(cmd)
    if here is None:
        return [_Target("(the stash it drops)", _repository_tops(cmd.argv, bases, project), [],
                        False, said, note=_DROP_NOTE, does="may lose")]
    targets = [_Target("(the stash it drops)", [], [], False, said, note=_DROP_NOTE,
                       does="loses",
                       staged=_GitDropped([_resolve(base, here) for base in bases], entries))]
    if last is not None and last[1] is not None:
        stash, stasher = last[1], changes.parsed[last[0]]
        pathspecs = stash.pathspecs
        folders = None if _git_here(stasher) is None else \
            [_resolve(base, here) for base in bases]
        places = _repository_tops(cmd.argv, bases, project) if pathspecs is None or any(
            _git_magic(p) for p in pathspecs) else [
            p for spec in pathspecs
            for p in _expand(_git_join(_git_where(stasher.argv[1:])[0][0], spec), bases)[0]]
        targets.append(_Target("(the changes it stashes)", places, [], False, _said(stasher),
                               git=_GitRewrite(folders, _Rewrite(["HEAD"], pathspecs),
                                               widened=changes.state_before(last[0])),
                               does=f"stashes, for `{said}` to drop, the changes to"))
    return targets


def _last_stash(before: list[Any]) -> tuple[int, _StashWords | None] | None:
    """The last ``git stash`` among the commands ``before`` that stashes (its index and
    `_StashWords`) or puts a stash back (``pop``, ``apply``: its index and None); None when
    there is neither."""
    for k in range(len(before) - 1, -1, -1):
        cmd = before[k]
        if cmd.name != "git" or cmd.remote:
            continue
        rest = _git_where(cmd.argv[1:])[1]
        if rest[:1] != ["stash"]:
            continue
        if rest[1:2] in (["pop"], ["apply"]):
            return k, None
        stash = _stash_words(rest[1:])
        if stash is not None:
            return k, stash
    return None


# git-apply(1) options that take a value (``=VALUE``, or the next word); ``-p``, ``-C`` also
# glued (``-p2``)
_GIT_APPLY_VALUES = {"-p", "-C", "--directory", "--include", "--exclude", "--whitespace",
                     "--build-fake-ancestor"}
# GNU patch(1) options that take a value
_PATCH_VALUES = {"-p", "--strip", "-d", "--directory", "-i", "--input", "-o", "--output",
                 "-F", "--fuzz", "-D", "--ifdef", "-B", "--prefix", "-Y", "--basename-prefix",
                 "-z", "--suffix", "-V", "--version-control", "-r", "--reject-file", "-g",
                 "--get", "--quoting-style", "--reject-format", "--read-only"}


@dataclass
class _Applied:
    """A patch applied onto the work tree (``git apply``, GNU ``patch``): the patch file as
    written (None: read from stdin, a pipe or a here-document), the folder its paths start
    from, the strip levels its paths may be read with (several when ``patch`` is given no
    ``-p``), whether it is applied in reverse, and for ``patch FILE`` or ``-o OUT`` the one
    file it changes or writes."""

    patch: str | None
    folder: str
    strips: tuple[int, ...]
    reverse: bool
    only: str | None = None
    output: bool = False  # ``only`` is patch's ``-o`` file: written whole, nothing else
    # the patch's text where the line holds it: the here-document (or here-string) read on
    # stdin where it names no file (the last one: the shell gives it that one)
    text: str | None = None
    # the files earlier commands of the line write a here-document to (``cat > FILE <<EOF``:
    # `SimpleCommand.written`), the patch file among them read from there
    written: dict[str, str] = field(default_factory=dict)


def _applied(cmd: Any) -> _Applied | None:
    """The patch the simple command ``cmd`` applies onto the work tree: ``git apply``
    (without ``--check``, ``--stat``, ``--numstat``, ``--summary`` unless ``--apply``; not
    ``--cached``, which writes the index alone; its paths from the top of the work tree, or
    where it runs outside one, ``-pN`` (1), ``--directory``, ``-R``) or GNU ``patch`` (not
    ``--dry-run``; ``-pN``, none: the path as written or its last part; ``-d``, ``-R``,
    ``-i``, ``patch FILE [PATCH]``, ``-o OUT``). None for any other command."""
    if cmd.remote or not cmd.argv:
        return None
    words = cmd.argv[1:]
    if cmd.name == "git":
        rest = _git_where(words)[1]
        if rest[:1] != ["apply"]:
            return None
        operands, valued, flags = _options(_without_redirections(rest[1:]), _GIT_APPLY_VALUES)
        if "--cached" in flags or ("--apply" not in flags and flags & {
                "--check", "--stat", "--numstat", "--summary"}):
            return None
        strip = valued.get("-p", "1")
        where = _git_where(words)[0][0]
        folder = _git_join(where, valued["--directory"]) if "--directory" in valued else where
        patch = operands[0] if operands and operands[0] != "-" else _stdin_file(cmd.argv)
        return _Applied(patch, folder, (int(strip),) if strip.isdigit() else (0, 1, 2),
                        bool(flags & {"R", "--reverse"}), text=_fed_text(cmd, patch),
                        written=cmd.written or {})
    if cmd.name != "patch":
        return None
    operands, valued, flags = _options(_without_redirections(words), _PATCH_VALUES)
    if "--dry-run" in flags:
        return None
    given = valued.get("-p", valued.get("--strip"))
    strip = given or ""
    strips = (0, -1) if given is None else (int(strip),) if strip.isdigit() else (0, 1, 2, -1)
    patch = valued.get("-i", valued.get("--input"))
    if patch is None:
        patch = operands[1] if len(operands) > 1 else _stdin_file(cmd.argv)
    output = valued.get("-o", valued.get("--output"))
    folder = valued.get("-d", valued.get("--directory", "."))
    only = output if output not in (None, "-") else operands[0] if operands else None
    patch = patch if patch != "-" else None
    return _Applied(patch, folder, strips, bool(flags & {"R", "--reverse"}), only,
                    output is not None, _fed_text(cmd, patch), cmd.written or {})


def _fed_text(cmd: Any, patch: str | None) -> str | None:
    """The patch ``cmd`` reads on stdin where the line holds it (it names no patch file):
    the last here-document or here-string it is fed (`SimpleCommand.fed`; the shell gives
    it that one, a pipe before it aside); None otherwise."""
    return cmd.fed[-1] if patch is None and cmd.fed else None


def _stdin_file(argv: list[str]) -> str | None:
    """The file the shell gives ``argv`` as its standard input (``< FILE``, ``<FILE``,
    ``0< FILE``); None when it reads a pipe, a here-document or the terminal."""
    for k, word in enumerate(argv):
        bare = word[1:] if word[:1] == "0" else word
        if bare == "<" and k + 1 < len(argv):
            return argv[k + 1]
        if bare.startswith("<") and not bare.startswith(("<<", "<&", "<>", "<(")) and bare[1:]:
            return bare[1:]
    return None


def _patch_changes(applied: _Applied, base: Path, top: Path,
                   may_be_written: Callable[[Path], bool]) -> list[tuple[str, Path]] | None:
    """(what it does: ``deletes``, `_EDITS`, `_ADDS`, `_OVERWRITES`; the file) of each file
    the patch ``applied`` changes run in ``base`` (git's paths from the work tree's ``top``,
    patch's from its ``-d`` folder), every way its paths may be stripped; its text the
    line's where it holds it (`_Applied.text`, `_Applied.written`). [] for a patch file that
    is not there and that no earlier command of the line ``may_be_written`` (git and the
    shell refuse it). None when the patch cannot be read here (a pipe, a computed file, one
    an earlier command may write, no patch in it)."""
    from labledger.reconcile.patch_files import file_patches

    if applied.text is not None:
        text: str | None = applied.text
    elif applied.patch is None or _COMPUTED_WORD.search(applied.patch):
        return None
    else:
        path = _resolve(base, applied.patch)
        text = applied.written.get(str(path))
        if text is None and not os.path.lexists(path) and not may_be_written(path):
            return []  # git ("can't open patch") and the shell (`< FILE`) refuse: no write
        if text is None:
            text = _regular_text(path, _PATCH_BYTES)
    files = file_patches(text) if text is not None else []
    if not files:
        return None
    start = _resolve(top, applied.folder)
    if applied.only is not None:
        how = _OVERWRITES if applied.output else _EDITS
        return [(how, _resolve(base, applied.folder if applied.output else ".") / applied.only
                 if not os.path.isabs(applied.only) else Path(applied.only))]
    changes: list[tuple[str, Path]] = []
    for each in files:
        old, new = (each.new, each.old) if applied.reverse else (each.old, each.new)
        for strip in (0,) if each.bare else applied.strips:
            gone, made = _stripped(old, strip), _stripped(new, strip)
            if new is None and gone is not None:
                changes.append(("deletes", start / gone))
            elif old is None or (each.renamed and not applied.reverse):
                changes += [("deletes", start / gone)] if gone is not None else []
                changes += [(_ADDS, start / made)] if made is not None else []
            elif made is not None:
                changes.append((_EDITS, start / made))
    return changes


def _regular_text(path: Path, limit: int) -> str | None:
    """The first ``limit`` bytes of the regular file ``path`` as text; None when it is no
    regular file (``/dev/stdin``, a FIFO: reading one would block the hook) or cannot be
    read."""
    import stat

    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except (OSError, ValueError):
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        with os.fdopen(os.dup(fd), "rb") as f:
            return f.read(limit).decode("utf-8", errors="replace")
    except OSError:
        return None
    finally:
        os.close(fd)


# how much of a patch file is read (a patch longer than that: what it names past it unseen)
_PATCH_BYTES = 4 << 20


def _stripped(path: str | None, strip: int) -> str | None:
    """``path`` less its first ``strip`` parts (``-pN``; -1: its last part alone), None when
    it has no more parts, or names a place above where it starts (git refuses ``..``)."""
    if path is None:
        return None
    parts = [p for p in path.split("/") if p]
    kept = parts[-1:] if strip < 0 else parts[strip:]
    if not kept or ".." in kept:
        return None
    return "/".join(kept)


def _patch_targets(cmd: Any, bases: list[Path], project: Path, earlier: list[Any],
                   line: str) -> tuple[list[_Target], list[_WriteTarget]]:
    """What the simple command ``cmd``, a patch applied (`_applied`), deletes and writes: each
    file its patch changes (`_patch_changes`), judged as ``rm`` and an in-place edit of it
    (a new file as one written into its folder). A patch that cannot be read here may write
    any file where it applies (a pipe: ``git diff | git apply -R`` puts back what differs, a
    tracked ledger's appended events too): judged as overwriting all of its work tree (fail
    closed), whose message says to apply it from a file. ``earlier``: the commands of the
    ``line`` before it (what may write its patch file, where a ``cd`` leads: `_moved_to`)."""
    applied = _applied(cmd)
    if applied is None:
        return [], []
    if applied.patch is None and applied.text is None:
        applied = replace(applied, text=_piped_patch(cmd, earlier))
    bases = _moved_to(earlier, bases, line)

    def may_be_written(path: Path) -> bool:
        return _may_write_before(path, earlier)
    said = _said(cmd)
    deletes: list[_Target] = []
    writes: list[_WriteTarget] = []
    read: list[list[tuple[str, Path]]] = []
    unread: list[Path] = []
    for base in bases:
        top = next((d for d in (base, *base.parents) if (d / ".git").exists()), base) \
            if cmd.name == "git" else base
        changes = _patch_changes(applied, base, top, may_be_written)
        if changes is None:
            unread.append(_resolve(top, applied.folder))
        else:
            read.append(changes)
    if not read:  # (read from one working folder of the line, it is the one the line means)
        deletes += [_Target("(the files of a patch not read here)", [place], [], False, said,
                            note=_UNREAD_PATCH_NOTE, does="may overwrite")
                    for place in dict.fromkeys(unread)]
    for changes in read:
        for how, path in changes:
            if how == "deletes":
                deletes.append(_Target(str(path), [path], [], False, said, recursive=False))
            else:
                writes.append(_WriteTarget(str(path), [path, *_linked([path])], how, said))
    return deletes, writes


def _piped_patch(cmd: Any, earlier: list[Any]) -> str | None:
    """The patch ``cmd`` reads from a pipe where the line holds it: ``cat <<'EOF' | git
    apply`` (the pipeline is those two commands alone, ``cat`` given no file: it prints its
    here-document and nothing else does); None otherwise."""
    if cmd.pipeline is None or cmd.scopes or not earlier:
        return None
    feeder = earlier[-1]
    shared = [c for c in (*earlier, cmd) if c.pipeline is cmd.pipeline]
    if len(shared) != 2 or shared[0] is not feeder or feeder.argv not in (["cat"], ["cat", "-"]) \
            or not feeder.fed or feeder.dynamic or feeder.scopes:
        return None
    return str(feeder.fed[-1])


def _may_write_before(path: Path, earlier: list[Any]) -> bool:
    """One of the commands ``earlier`` (of the line, before the one that reads ``path``) may
    write the file ``path``: a word of it names the file's name (``git diff > x.diff``,
    ``curl -O https://host/x.diff``, ``--output=x.diff``), it is computed when it runs or
    cannot be read (`TOO_DEEP`), or it runs a program whose writes are not read here (a
    shell, an interpreter, ``make``, a script, ``git format-patch``)."""
    from labledger.reconcile.shell_words import TOO_DEEP

    name = path.name
    for cmd in earlier:
        if cmd.remote:
            continue
        if cmd.dynamic or cmd.appended or cmd.name == TOO_DEEP or cmd.program is not None:
            return True
        if cmd.name in _PROGRAM_RUNNERS or "/" in cmd.argv[0] or \
                re.match(r"(python|pypy|perl|ruby|node|php)[0-9.]*$", cmd.name):
            return True
        if cmd.name == "git" and "format-patch" in cmd.argv:
            return True
        if any(name in word for word in cmd.argv[1:]):
            return True
    return False


# commands that run a program whose writes this module does not read from their words
_PROGRAM_RUNNERS = {"bash", "sh", "zsh", "dash", "ksh", "fish", "busybox", "make", "cmake",
                    "ninja", "source", ".", "eval", "exec", "npm", "npx", "yarn", "pnpm",
                    "cargo", "go", "uv", "poetry", "pipenv", "tox", "nox", "pytest", "just",
                    "task", "invoke", "java", "deno", "bun", "Rscript", "julia", "lua"}


def _moved_to(earlier: list[Any], bases: list[Path], line: str) -> list[Path]:
    """The working folders a command of the ``line`` after the commands ``earlier`` runs in:
    the last of ``bases`` alone when every ``cd``/``pushd`` before it surely ran and moved
    there (`_sure_cd`) and no ``popd`` did, else all of ``bases`` (a subshell's ``cd``, one
    after ``||`` or ``&&`` that may not run, one into a folder missing now that fails: the
    command may run where the line started)."""
    moves = [c for c in earlier if c.name in ("cd", "pushd", "popd")]
    if len(bases) < 2 or not moves or not all(_sure_cd(c, line) for c in moves):
        return bases
    return [bases[-1]] if all(b.is_dir() for b in bases) else bases


def _sure_cd(cmd: Any, line: str) -> bool:
    """The ``cd DIR``/``pushd DIR`` ``cmd`` runs in the line's own shell whenever the line
    does: a top-level pipeline of its own (not in a subshell, a group, a conditional, a
    substitution, a script: its pipeline's text is its own), at the start of the line or
    after ``;`` or a newline, and followed by ``&&``, ``;``, a newline or the end (not
    ``&``: a background job is a subshell), each time its text stands in the line; its
    folder written, not computed."""
    if cmd.name not in ("cd", "pushd") or cmd.dynamic or cmd.remote or cmd.scopes or \
            cmd.pipeline is None or cmd.pipeline.text.strip() != cmd.context.strip():
        return False
    operands = [a for a in cmd.argv[1:] if not a.startswith("-")]
    if len(operands) != 1 or operands[0] == "-":
        return False
    text = re.escape(cmd.pipeline.text.strip())
    each = len(re.findall(text, line))
    sure = len(re.findall(r"(?:^|[;\n])[ \t]*" + text + r"[ \t]*(?=&&|;|\n|$)", line))
    return each > 0 and sure == each


_UNREAD_PATCH_NOTE = (" (its patch cannot be read here: a pipe, a here-document or a file not "
                      "there yet, so any file where it applies may change; write the patch to "
                      "a file first, then apply that file)")


# the options of `git merge`, `cherry-pick`, `rebase`, `pull` taking a value (next word too)
_HISTORY_VALUES = {"-m", "-F", "--file", "-s", "--strategy", "-X", "--strategy-option",
                   "--cleanup", "--onto", "-x", "--exec", "--into-name", "--mainline",
                   "--depth", "--deepen", "--shallow-since", "--upload-pack", "-j", "--jobs",
                   "--rebase-merges", "-C", "--whitespace", "--empty", "--recurse-submodules"}
# their subcommands of a sequence under way (`--abort` puts back what the merge began with)
_HISTORY_STEPS = {"--abort", "--continue", "--skip", "--quit", "--edit-todo",
                  "--show-current-patch"}


def _history_question(rest: list[str]) -> tuple[list[str], bool] | None:
    """What the git subcommand ``rest`` brings into the work tree from commits, as a ``git
    diff`` question (the files another history added that git then writes: a merge's
    ``HEAD...REV``, a cherry-pick's ``C^ C`` or ``A..B`` as ``A B``, a rebase's ``HEAD...UPSTREAM``
    (``--onto``), a pull's upstream as fetched already), and whether the revision is only
    what is known now (a pull: what it fetches is not). None for any other command, a step
    of one under way (``--continue``, ``--abort``) and ``merge`` with several heads."""
    if not rest or rest[0] not in ("merge", "cherry-pick", "rebase", "pull"):
        return None
    sub = rest[0]
    operands, valued, flags = _options(rest[1:], _HISTORY_VALUES)
    if flags & _HISTORY_STEPS or any(o.startswith("-") and o != "-" for o in operands):
        return None
    if sub == "cherry-pick":
        if len(operands) != 1:
            return None
        first, dots, last = operands[0].partition("..")
        return ([first or "HEAD", last.lstrip(".") or "HEAD"] if dots
                else [operands[0] + "^", operands[0]]), False
    if sub == "pull":
        tracking = "@{upstream}" if len(operands) < 2 else operands[1] \
            if operands[0] == "." else f"{operands[0]}/{operands[1]}"
        return [f"HEAD...{tracking}"], True
    if sub == "rebase":
        upstream = valued.get("--onto", operands[0] if operands else "@{upstream}")
        return [f"HEAD...{upstream}"], False
    if len(operands) > 1:
        return None
    return [f"HEAD...{operands[0] if operands else '@{upstream}'}"], False


@dataclass
class _GitMerged(_AskedOfGit):
    """A ``git merge``, ``cherry-pick``, ``rebase`` or ``pull`` (`_history_question`), to
    ask git which files it writes over untracked ones in the work tree (`_git_overwritten`):
    git refuses to overwrite a tracked file's local change or an untracked file, but an
    ignored one it overwrites without a word (tried with git 2.39: ``git merge other``,
    ``git cherry-pick other``, ``git rebase other`` each put the branch's committed
    ``caps/c2/m`` over the ignored local one)."""

    folders: list[Path] | None
    question: list[str]
    known_now: bool  # (a pull: what it fetches cannot be asked; an upstream not there: none)
    answers: dict[Path, list[Path] | None] = field(default_factory=dict)

    def _ask(self, folder: Path) -> list[Path] | None:
        return _git_overwritten(folder, self.question, self.known_now)


def _git_overwritten(folder: Path, question: list[str], known_now: bool) -> list[Path] | None:
    """The untracked files of the work tree of ``folder`` that the files ``git diff
    --diff-filter=A QUESTION`` lists (added by the other history) would overwrite: they
    exist here and HEAD does not track them (asked of git read-only). No repository, or a
    revision that does not exist: none (git refuses; for a pull, nothing known now). None
    when git cannot answer."""
    top = _git_asked(folder, ["rev-parse", "--show-toplevel"])
    if top is None or not top.strip():
        return []  # no repository here: git refuses (`git submodule foreach git pull` above)
    root = Path(os.fsdecode(top.rstrip(b"\n")))
    revisions = [r for word in question for r in word.split("...")]
    if any(w.startswith("-") or "\0" in w for w in revisions):
        return None
    if any(_git_asked(folder, ["rev-parse", "-q", "--verify", r + "^{commit}"]) is None
           for r in revisions):
        return []  # (no such revision: git refuses, and writes nothing)
    added = _git_asked(folder, ["diff", "--name-only", "-z", "--no-renames", "--no-ext-diff",
                                "--no-textconv", "--diff-filter=A", *question, "--"])
    if added is None:
        return None if not known_now else []
    here = [_resolve(root, os.fsdecode(p)) for p in added.split(b"\0") if p]
    present = [p for p in here if os.path.lexists(p)]
    if not present:
        return []
    tracked = _git_asked(folder, ["ls-files", "-z", "--full-name", "--",
                                  *(str(p) for p in present)])
    if tracked is None:
        return None
    kept = {_resolve(root, os.fsdecode(p)) for p in tracked.split(b"\0") if p}
    return [p for p in present if p not in kept]


_MERGE_NOTE = (" (git overwrites an ignored file with the one the other history adds: the "
               "local copy is lost)")


def _history_target(cmd: Any, bases: list[Path], project: Path) -> _Target | None:
    """The untracked files the git command ``cmd`` (a merge, cherry-pick, rebase or pull:
    `_history_question`) writes over (`_GitMerged`); where git cannot be asked
    (`_git_here`), none is judged (its question cannot be reproduced, and failing closed
    would block every pull). None for any other command."""
    if cmd.name != "git" or cmd.remote:
        return None
    asked = _history_question(_git_where(cmd.argv[1:])[1])
    here = _git_here(cmd)
    if asked is None or here is None or any(_COMPUTED_WORD.search(w) for w in asked[0]):
        return None
    return _Target("(the files it brings in)", [], [], False, _said(cmd), note=_MERGE_NOTE,
                   does="overwrites",
                   staged=_GitMerged([_resolve(base, here) for base in bases], *asked))


def _hard_reset(rest: list[str]) -> bool:
    """The git subcommand ``rest`` is a ``git reset --hard``."""
    return rest[:1] == ["reset"] and "--hard" in rest[1:]


def _reset_added_target(cmd: Any, bases: list[Path], project: Path, changes: _GitChanges,
                        n: int) -> _Target | None:
    """The files a ``git add`` earlier on the line stages that the n-th command, a ``git
    reset --hard``, then removes from the work tree (git-reset(1): a file staged that the
    commit does not hold leaves the index and the work tree; ``git add -f .labledger && git
    reset --hard`` leaves an empty ``.labledger/cas``). They are untracked now, so git's
    answer for the reset alone (`_git_rewrite_target`) does not name them: git is asked
    which untracked files of a protected folder the add reaches (`_GitAdded`). None for any
    other command, or without such an add. (What another command may stage, ``git
    update-index --add``, is not read.)"""
    if cmd.name != "git" or cmd.remote or not _hard_reset(_git_where(cmd.argv[1:])[1]):
        return None
    adds = changes.staged_before(n)[0]
    if not adds:
        return None
    here = _git_here(cmd)
    if here is None:
        return _Target("(the files staged before it)", _repository_tops(cmd.argv, bases, project),
                       [], False, _said(cmd), note=_RESET_STAGED_NOTE)
    places = [place for add in adds for place in _added_places(add, bases, project)]
    forced = any(_forced_add(add) for add in adds)
    return _Target("(the files staged before it)", [], [], False, _said(cmd),
                   staged=_GitAdded([_resolve(base, here) for base in bases], places, forced),
                   note=_RESET_STAGED_NOTE)


def _forced_add(cmd: Any) -> bool:
    """The ``git add`` ``cmd`` stages ignored files too (``-f``, ``--force``)."""
    rest = _git_where(cmd.argv[1:])[1]
    words = rest[1:rest.index("--")] if "--" in rest else rest[1:]
    return any(w == "--force" or (w.startswith("-") and not w.startswith("--") and "f" in w)
               for w in words)


@dataclass
class _GitAdded:
    """What earlier ``git add`` commands of a line may stage, for a ``git reset --hard`` that
    then removes it (`_reset_added_target`): the places they name and whether one is forced
    (stages ignored files too), to ask git which untracked files of a protected folder they
    reach (``git ls-files --others [--exclude-standard]``, read-only)."""

    folders: list[Path]
    places: list[Path]
    forced: bool

    def removes(self, root: Path, spared: Path | None) -> bool:
        """An untracked file in ``root`` (inside ``spared`` aside) that the adds stage; git
        failing or not answering in time: yes (fail closed)."""
        # each place the adds name there: what is below it (``root`` for a place above it)
        within = sorted({root if p in (root, *root.parents) else p
                         for p in self.places if _overlaps(p, root)})
        for folder in self.folders if within else []:
            paths = _git_untracked(folder, within, self.forced)
            if paths is None or any(_overlaps(p, root) and (
                    spared is None or spared not in (p, *p.parents)) for p in paths):
                return True
        return False


def _git_untracked(folder: Path, places: list[Path], ignored_too: bool) -> list[Path] | None:
    """The untracked files at or below ``places`` that ``git add`` run in ``folder`` stages
    (``git ls-files -z --others --full-name [--exclude-standard] -- PLACES``, read-only; with
    ``ignored_too``, ignored ones as well; a place above the work tree: all of it); None when
    git cannot answer (a place outside the work tree, not a repository)."""
    top = _git_asked(folder, ["rev-parse", "--show-toplevel"])
    if top is None or not top.strip():
        return None
    root = Path(os.fsdecode(top.rstrip(b"\n")))
    exclude = [] if ignored_too else ["--exclude-standard"]
    specs = [str(root if p in (root, *root.parents) else p) for p in places]
    listed = _git_asked(folder, ["ls-files", "-z", "--others", "--full-name", *exclude, "--",
                                 *specs])
    if listed is None:
        return None
    return [_resolve(root, os.fsdecode(p)) for p in listed.split(b"\0") if p]


# git's empty tree (the tree of `git switch --orphan`: every tracked file leaves the work tree)
_EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
# the options of `git checkout`, `git switch`, `git restore` taking a value (next word too)
_CHECKOUT_VALUES = {"-b", "-B", "--orphan", "--conflict", "--pathspec-from-file", "-c", "-C",
                    "-s", "--source"}


@dataclass
class _Rewrite:
    """What a git command writes back over the work tree: the files ``git diff QUESTION --
    PATHSPECS`` lists (the work tree, or a tree-ish, against the version written back), all
    of the work tree when ``pathspecs`` is None. A ``checkout WORD ...`` without ``--`` whose
    WORD is also a path here is read as git reads it, asked when it runs (`_git_changed`):
    ``instead`` when ``guess`` names a tree-ish (git takes a revision first)."""

    question: list[str]
    pathspecs: list[str] | None
    guess: str | None = None
    instead: _Rewrite | None = None
    switch: bool = False  # its last question word is a branch to switch to (`_switch`)


def _git_rewrite(rest: list[str], is_path: Callable[[str], bool]) -> _Rewrite | None:
    """What the git subcommand ``rest`` (its name and words) writes back over tracked files
    of the work tree (git-checkout(1), git-restore(1), git-reset(1), git-switch(1),
    ``checkout-index -f``: `_checkout_index`, ``read-tree --reset -u``: `_read_tree`); None
    when it writes nothing there (``restore --staged``, ``reset`` but ``--hard``, ``--keep``,
    ``--merge``, ``checkout --orphan``, a new branch from HEAD). ``--pathspec-from-file``:
    the whole work tree. A word git would read as an option where an operand stands is not
    read (None)."""
    if rest[:1] == ["checkout-index"]:
        return _checkout_index(rest[1:])
    if rest[:1] == ["read-tree"]:
        return _read_tree(rest[1:])
    if not rest or rest[0] not in ("checkout", "restore", "reset", "switch"):
        return None
    sub, words = rest[0], rest[1:]
    cut = words.index("--") if "--" in words else len(words)
    operands, valued, flags = _options(words[:cut], _CHECKOUT_VALUES)
    after = None if "--pathspec-from-file" in valued else words[cut + 1:]
    if any(o.startswith("-") and o != "-" for o in operands):
        return None
    if sub == "restore":
        staged = bool(flags & {"S", "--staged"})
        if staged and not flags & {"W", "--worktree"}:
            return None  # the index alone
        source = valued.get("-s", valued.get("--source", "HEAD" if staged else None))
        paths = None if after is None else operands + after
        return _Rewrite([source] if source else [], paths) if paths != [] else None
    if sub == "reset":
        target = (operands or ["HEAD"])[0]
        if "--hard" in flags:
            return _Rewrite([target], None)
        return _Rewrite(["HEAD", target], None) if flags & {"--keep", "--merge"} else None
    if sub == "switch" and "--orphan" in valued:
        return _Rewrite([_EMPTY_TREE], None)  # every tracked file leaves the work tree
    if sub == "checkout" and (cut < len(words) or after is None):  # `checkout [TREE] -- P`
        tree = operands[:1]
        return _Rewrite(tree, None if after is None else operands[1:] + after)
    if sub == "checkout" and operands and (len(operands) > 1 or is_path(operands[0])):
        as_tree = _Rewrite(operands[:1], operands[1:]) if len(operands) > 1 else \
            _switch(operands[0], flags, valued)
        if not is_path(operands[0]):
            return as_tree
        return _Rewrite([], operands, guess=operands[0], instead=as_tree)
    return _switch(operands[0], flags, valued) if operands else None


# git-checkout-index(1) options taking a value (`--prefix=DIR` writes the files under DIR)
_CHECKOUT_INDEX_VALUES = {"--prefix", "--stage"}


def _checkout_index(words: list[str]) -> _Rewrite | None:
    """What ``git checkout-index WORDS`` writes back over the work tree: the index's copy of
    its files (``-a``/``--all``, ``--stdin``: every one), but only with ``-f``/``--force``
    (without it git leaves a file that exists: "already exists, no checkout"; tried with git
    2.39, as ``git checkout-index -a -f`` put an appended ledger segment back to its staged
    copy). None without a force, or with ``--prefix`` or ``--temp`` (the files land
    elsewhere)."""
    operands, valued, flags = _options(words, _CHECKOUT_INDEX_VALUES)
    if not flags & {"f", "--force"} or "--prefix" in valued or "--temp" in flags:
        return None
    every = bool(flags & {"a", "--all", "--stdin"})
    return _Rewrite([], None if every else operands) if every or operands else None


def _read_tree(words: list[str]) -> _Rewrite | None:
    """What ``git read-tree WORDS`` writes back over the work tree: with ``--reset`` and
    ``-u`` the tree it reads, over local changes (git-read-tree(1): "--reset ... discards
    unmerged entries"; tried with git 2.39: ``git read-tree -u --reset HEAD`` put an
    appended ledger segment back to HEAD's copy, as ``git reset --hard`` does); ``-m -u``
    refuses to lose a local change (it kept it), without ``-u`` only the index changes.
    None for those."""
    operands, _, flags = _options(words, {"--prefix", "--index-output"})
    if "--reset" not in flags or "u" not in flags or len(operands) != 1:
        return None
    return _Rewrite(operands, None)


def _switch(target: str, flags: set[str], valued: dict[str, str]) -> _Rewrite | None:
    """A switch to ``target`` writes the files that differ between HEAD and it (git refuses
    to switch over local changes); forced (``-f``, ``--discard-changes``), those that differ
    between the work tree and it. ``checkout --orphan`` keeps the work tree."""
    if "--orphan" in valued:
        return None
    target = "@{-1}" if target == "-" else target
    forced = bool(flags & {"f", "--force", "--discard-changes"})
    return _Rewrite([target] if forced else ["HEAD", target], None, switch=True)


@dataclass
class _GitRewrite(_AskedOfGit):
    """A git command that writes tracked files back over the work tree (`_git_rewrite`), to
    ask git which files it changes (`_git_changed`): its working folders (one from each of
    the line's; None when git's view cannot be reproduced, as for `_GitClean`) and what it
    writes back."""

    folders: list[Path] | None
    rewrite: _Rewrite
    anywhere: bool = False
    # what it changes cannot be asked now (an earlier command of the line may change the work
    # tree, the index or the refs it reads; a computed word): every tracked file may change
    widened: bool = False
    answers: dict[Path, list[Path] | None] = field(default_factory=dict)

    def _ask(self, folder: Path) -> list[Path] | None:
        return _git_tracked(folder) if self.widened else _git_changed(folder, self.rewrite)


def _first_answered(answers: dict[Path, list[Path] | None], root: Path, spared: Path | None
                    ) -> Path | None:
    """The first path of git's ``answers`` that is ``root`` or inside it (inside ``spared``
    aside)."""
    for paths in answers.values():
        for p in paths or []:
            if (p == root or root in p.parents) and (
                    spared is None or spared not in (p, *p.parents)):
                return p
    return None


def _git_tracked(folder: Path) -> list[Path] | None:
    """Every file git tracks in the work tree of ``folder`` (``git ls-files -z --full-name --
    :/``, read-only), None when git cannot answer."""
    top = _git_asked(folder, ["rev-parse", "--show-toplevel"])
    listed = _git_asked(folder, ["ls-files", "-z", "--full-name", "--", ":/"])
    if top is None or listed is None or not top.strip():
        return None
    root = Path(os.fsdecode(top.rstrip(b"\n")))
    return [_resolve(root, os.fsdecode(p)) for p in listed.split(b"\0") if p]


def _git_changed(folder: Path, rewrite: _Rewrite) -> list[Path] | None:
    """The tracked files ``rewrite`` changes run in ``folder``, asked of git read-only
    (`_git_asked`): ``git diff --name-only -z --no-renames QUESTION -- PATHSPECS`` (in
    memory, a file whose stat alone changed is not listed; paths from the top of the work
    tree). None when git cannot answer (not a repository, an unknown tree-ish, a word that
    would read as an option)."""
    words = [*rewrite.question, *(rewrite.pathspecs or []), *filter(None, [rewrite.guess])]
    if any(w.startswith("-") for w in rewrite.question) or any("\0" in w for w in words):
        return None
    if rewrite.guess is not None and rewrite.instead is not None and _git_asked(
            folder, ["rev-parse", "--verify", "-q", rewrite.guess + "^{tree}"]) is not None:
        return _git_changed(folder, rewrite.instead)
    if rewrite.switch:
        target = _switch_target(folder, rewrite.question[-1])
        if target is None:
            return []  # no such branch: git refuses to switch, and writes nothing
        rewrite = replace(rewrite, question=[*rewrite.question[:-1], target])
    top = _git_asked(folder, ["rev-parse", "--show-toplevel"])
    listed = _git_asked(folder, ["diff", "--name-only", "-z", "--no-renames", "--no-ext-diff",
                                 "--no-textconv", *rewrite.question, "--",
                                 *(rewrite.pathspecs or [])])
    if top is None or listed is None or not top.strip():
        return None
    root = Path(os.fsdecode(top.rstrip(b"\n")))
    return [_resolve(root, os.fsdecode(p)) for p in listed.split(b"\0") if p]


def _switch_target(folder: Path, target: str) -> str | None:
    """What a switch to ``target`` checks out, asked of git in ``folder``: ``target`` when it
    names a tree-ish; else the one remote branch of that name (git-checkout(1): ``git checkout
    NAME`` makes a branch tracking ``REMOTE/NAME`` when exactly one remote has it); else
    None (git refuses)."""
    if _git_asked(folder, ["rev-parse", "--verify", "-q", target + "^{tree}"]) is not None:
        return target
    listed = _git_asked(folder, ["for-each-ref", "--format=%(refname)",
                                 f"refs/remotes/*/{target}"])
    remotes = os.fsdecode(listed or b"").split()
    return remotes[0] if len(remotes) == 1 else None


def _git_rewrite_target(cmd: Any, bases: list[Path], project: Path,
                        changes: _GitChanges | None, n: int) -> _Target | None:
    """The git command ``cmd`` as a write back of tracked files (`_git_rewrite`), judged
    as overwriting the protected files git says it changes (`_GitRewrite`): its pathspecs
    from each working folder (the whole work tree: its repositories' tops). Where git's view
    cannot be reproduced (`_git_here`), what its pathspecs reach (fail closed); where what it
    changes cannot be asked now (``changed``: an earlier command may change the work tree,
    the index or the refs; a computed word), any tracked file there (`_git_tracked`); for a
    switch that git refuses over local changes, only an earlier command that may move HEAD or
    a branch counts (``git stash && git checkout main``: `_GitChanges.refs_before`). None for
    any other command."""
    if cmd.name != "git" or cmd.remote:
        return None
    where, rest = _git_where(cmd.argv[1:])
    here = _git_here(cmd)
    rewrite = _git_rewrite(rest, lambda word: _git_magic(word) or any(
        os.path.lexists(_resolve(base, _git_join(where[0], word))) for base in bases))
    if rewrite is None:
        return None
    computed = any(_COMPUTED_WORD.search(w) for w in [*rewrite.question,
                                                     *(rewrite.pathspecs or [])])
    if computed or rewrite.pathspecs is None or any(_git_magic(p) for p in rewrite.pathspecs) \
            or (rewrite.instead is not None and rewrite.instead.pathspecs is None):
        places = _repository_tops(cmd.argv, bases, project)
    else:
        places = [p for spec in rewrite.pathspecs
                  for p in _expand(_git_join(where[0], spec), bases)[0]]
    folders = None if here is None else [_resolve(base, here) for base in bases]
    # (what a switch writes is HEAD's difference from the branch: a stash or an add before it
    # changes neither)
    switch = rewrite.switch and rewrite.question[:1] == ["HEAD"]
    changed = changes is not None and (changes.refs_before(n) if switch
                                       else changes.state_before(n))
    return _Target("(the files it writes back)", places, [], computed, _said(cmd),
                   git=_GitRewrite(folders, rewrite, widened=changed or computed),
                   does="overwrites")


def _added_places(cmd: Any, bases: list[Path], project: Path) -> list[Path]:
    """What the ``git add`` ``cmd`` may stage, whether git ignores it or not: its paths from
    each working folder of the line; its whole repository for ``-A``/``--all`` without
    paths, a pathspec with magic or a wildcard, paths read from a file, computed or appended
    by xargs (fail closed). ``-u`` alone stages no new file."""
    where, rest = _git_where(cmd.argv[1:])
    paths: list[str] = []
    every, ended = cmd.appended, False
    for word in rest[1:]:
        if ended or not word.startswith("-") or word == "-":
            paths.append(word)
        elif word == "--":
            ended = True
        elif word in ("--all", "--no-ignore-removal") or (
                not word.startswith("--") and "A" in word):
            every = every or not paths
        elif word.startswith("--pathspec-from-file"):
            every = True
    if every or any(_git_magic(p) for p in paths):
        return _repository_tops(cmd.argv, bases, project)
    places: list[Path] = []
    for path in paths:
        found, _, computed = _expand(_git_join(where[0], path), bases)
        if computed:
            return _repository_tops(cmd.argv, bases, project)
        places += found
    return places


def _git_magic(pathspec: str) -> bool:
    """A pathspec that may match outside its own folder's subtree or by wildcard
    (gitglossary(7): ``:`` magic, ``*``, ``?``, ``[``)."""
    return pathspec.startswith(":") or any(c in pathspec for c in "*?[")


def _may_change_git_state(cmd: Any, feeds: _Feeds | None = None) -> bool:
    """Run before a ``git clean`` on the same line, ``cmd`` may change what git ignores or
    tracks there: a git command not known to be read-only (``git stash``, ``git rm
    --cached``, ``git reset``, another clean; not a read of the config, nor the definition of
    an alias: `git_alias_definition`), a command whose word names a ``.git…``, ``gitconfig``,
    ``git/config`` or ``git/ignore`` file or folder or an ``exclude`` file and does more than
    print it (``rm .gitignore``, ``echo x > .gitignore``; of a command that only prints, the
    files it redirects to: `_written`), or may name one as a glob (``.g?tignore``) or as a
    word computed when it runs (``F=.gitignore; echo x >> $F``, ``>> $(printf ...)``:
    `_may_name`; ``feeds`` None: cannot tell, it may), an assignment of ``HOME``,
    ``XDG_CONFIG_HOME`` or ``GIT_*`` (where git finds its config and ignore files), a command
    word computed when it runs."""
    from labledger.reconcile.shell_words import git_alias_definition

    if cmd.remote or not cmd.argv:
        return False
    if "$" in cmd.argv[0] or "`" in cmd.argv[0] or _GIT_ENV_ASSIGNMENT.search(cmd.context):
        return True
    if cmd.name == "git":
        rest = _git_where(cmd.argv[1:])[1]
        sub, more = (rest[0], rest[1:]) if rest else ("", [])
        if sub == "clean":
            return not _dry_run(more)
        if sub == "branch":
            return not all(w in _GIT_BRANCH_LISTS for w in more)
        if sub == "config":
            return not _git_config_reads(more) and git_alias_definition(cmd.argv) is None \
                and not _git_config_elsewhere(more)
        if _git_alias_use(sub):
            return False  # what an alias runs is judged on its own (`_git_alias_use`)
        return sub not in _GIT_READ_ONLY
    return any(_may_name(word, _GIT_FILE, _GIT_FILE_NAMES, cmd, feeds)
               for word in _written(cmd))


# git subcommands that change the work tree or the index but neither HEAD nor a branch (`git
# stash` writes refs/stash alone, but for `git stash branch`)
_GIT_KEEPS_REFS = {"add", "stage", "rm", "mv", "restore", "stash"}


def _may_move_refs(cmd: Any, feeds: _Feeds | None = None) -> bool:
    """Run before a switch on the same line, ``cmd`` may move HEAD or a branch: it may change
    git's state (`_may_change_git_state`) and is not a git command of `_GIT_KEEPS_REFS`."""
    if not _may_change_git_state(cmd, feeds):
        return False
    if cmd.name != "git" or "$" in cmd.argv[0] or "`" in cmd.argv[0] or \
            _GIT_ENV_ASSIGNMENT.search(cmd.context):
        return True
    rest = _git_where(cmd.argv[1:])[1]
    return not rest or rest[0] not in _GIT_KEEPS_REFS or rest[:2] == ["stash", "branch"]


# git-config(1) sections that say nothing about what git ignores, tracks or cleans, nor what
# it includes or runs as an alias (who commits, how it talks to remotes, how it shows)
_GIT_CONFIG_ELSEWHERE = {"user", "author", "committer", "color", "commit", "push", "pull",
                         "fetch", "remote", "branch", "merge", "rebase", "diff", "log",
                         "credential", "http", "gpg", "tag", "init", "help", "pager", "format",
                         "sendemail", "column", "grep", "blame", "gui", "web", "i18n"}


def _git_config_elsewhere(words: list[str]) -> bool:
    """``git config WORDS`` writes one key of `_GIT_CONFIG_ELSEWHERE` (``git config
    user.email a@b``), to one of git's own files (no ``--file``, edit or section action)."""
    operands = [w for w in words if not w.startswith("-")]
    if operands[:1] in (["set"], ["unset"]):
        operands = operands[1:]
    if not operands or any(not w.startswith(("--global", "--local", "--system", "--worktree",
                                             "--add", "--replace-all", "--unset", "--all",
                                             "--append", "--type", "--bool", "--int"))
                           for w in words if w.startswith("-")):
        return False
    key = operands[0]
    return "$" not in key and "`" not in key and \
        key.split(".", 1)[0].lower() in _GIT_CONFIG_ELSEWHERE


# where git reads what it ignores and its config (gitignore(5), git-config(1)): .gitignore,
# .git/info/exclude, a core.excludesFile, ~/.gitconfig, $XDG_CONFIG_HOME/git/{config,ignore}
_GIT_FILE = re.compile(r"\.git|exclude|gitconfig|(^|/)git/(config|ignore|attributes)")
# ... as paths a glob may match (`.g?tignore`, `.git/*`), from their last parts
_GIT_FILE_NAMES = (".gitignore", ".gitattributes", ".gitmodules", ".gitconfig", ".git",
                   ".git/config", ".git/index", ".git/info/exclude", "info/exclude",
                   "git/config", "git/ignore", "git/attributes")


def _written(cmd: Any) -> list[str]:
    """The words of ``cmd`` that may name a file it writes: for a command that only prints
    (`_LOOK_ONLY`), the targets of its redirections to a file (``> out``, ``2>>log``,
    ``&>out``, ``hi>out``; not ``>&2``, nor /dev/null) and find's ``-fprint``/``-fls``
    files; for any other, each word."""
    words: list[str] = cmd.argv[1:]
    if cmd.name not in _LOOK_ONLY:
        return words
    targets: list[str] = []
    for k, word in enumerate(words):
        if cmd.name == "find" and word.startswith(("-fprint", "-fls")) and k + 1 < len(words):
            targets.append(words[k + 1])
        if ">" not in word:
            continue
        target = word.rsplit(">", 1)[1].lstrip("|")
        if not target:
            target = words[k + 1] if k + 1 < len(words) else ""
        if target and not re.fullmatch(r"&(\d+-?|-)?|/dev/(null|stdout|stderr)", target):
            targets.append(target)
    return targets


def _may_name(word: str, pattern: re.Pattern[str], names: tuple[str, ...], cmd: Any,
              feeds: _Feeds | None) -> bool:
    """``word`` of ``cmd`` may name one of git's files: ``pattern`` finds one in it, it is a
    glob that may match one of ``names`` (`_glob_may_match`), or it is computed when it runs
    and some value it may take does (`_literal_values`: the line's literal assignments of
    its variables, else the environment's value). One whose value cannot be told may name
    anything when a command substitution gives it (`_by_substitution`), or when the text
    feeding it (`_Feeds`) names such a file. ``feeds`` None: cannot tell, it may."""
    if pattern.search(word) or _glob_may_match(word, names):
        return True
    if "$" not in word and "`" not in word:
        return False
    if feeds is None:
        return True
    feed = feeds.of(cmd)
    values = _literal_values(word, feed)
    if values is None:
        return _by_substitution(word, feed) or _found_in(pattern, feed)
    return any(pattern.search(v) or _glob_may_match(v, names) for v in values)


def _by_substitution(word: str, feed: str) -> bool:
    """``word`` holds a command substitution, or one of its variables is assigned one in the
    text ``feed`` (``F=$(printf .%s gitignore)``): what it names is a program's output."""
    if "$(" in word or "`" in word:
        return True
    given = _substitution_assigned(feed)
    return any((a or b) in given for a, b in _VARIABLE.findall(word))


# an assignment of a command substitution (`F=$(...)`, `F="`...`"`)
_SUBSTITUTION_ASSIGNED = re.compile(r"""(?<![\w$])(\w+)=["']?(?:\$\(|`)""")


@functools.lru_cache(maxsize=16)
def _substitution_assigned(feed: str) -> frozenset[str]:
    """The variables ``feed`` assigns a command substitution, read once per text."""
    return frozenset(m.group(1) for m in _SUBSTITUTION_ASSIGNED.finditer(feed))


@functools.lru_cache(maxsize=64)
def _found_in(pattern: re.Pattern[str], feed: str) -> bool:
    """``pattern`` finds something in ``feed``, searched once per text (the computed words
    of a line of many commands share one feed)."""
    return pattern.search(feed) is not None


def _glob_may_match(word: str, names: tuple[str, ...]) -> bool:
    """The glob ``word`` may match a path ending in one of ``names``, part by part from the
    end, as bash matches: a name starting with ``.`` only by a part starting with ``.``
    (bash(1) "Pathname Expansion", dotglob off)."""
    import fnmatch

    if not any(c in word for c in "*?["):
        return False
    parts = word.rstrip("/").split("/")
    for name in names:
        wanted = name.split("/")
        if len(parts) < len(wanted):
            continue
        if all(fnmatch.fnmatchcase(n, p) and (not n.startswith(".") or p.startswith("."))
               for n, p in zip(wanted, parts[-len(wanted):], strict=True)):
            return True
    return False


# `$NAME` and `${NAME}`: the expansions `_literal_values` can follow
_VARIABLE = re.compile(r"\$(?:\{(\w+)\}|(\w+))")
_LITERAL_CHOICES = 16  # values of a word tried at most: past that it may be anything


def _literal_values(word: str, feed: str, loops: bool = False, base: Path | None = None
                    ) -> list[str] | None:
    """The values ``word`` may take when it runs, its variables replaced by each literal
    value the text ``feed`` assigns them (``F=.gitignore``, ``F='x y'``; ``loops``: also
    each word of a ``for F in A B`` list, `_loop_lists`; ``base``: a value naming the folder
    it runs in, ``F=$(pwd)``, is that folder, `_known_folders`), else by the environment's; None
    when that cannot be told: a command substitution, another expansion (``${F:-x}``,
    ``$1``), a variable with none of those or whose value is computed itself, or more than
    `_LITERAL_CHOICES` values."""
    import itertools

    if "`" in word or "$(" in word or "$" in _VARIABLE.sub("", word):
        return None
    choices: dict[str, list[str]] = {}
    assigned = _assignments(feed)
    listed = _loop_lists(feed) if loops else {}
    for name in {a or b for a, b in _VARIABLE.findall(word)}:
        found = assigned.get(name, []) + listed.get(name, [])
        values = [v[1:-1] if v[:1] in "'\"" and len(v) > 1 else v for v in found]
        if base is not None:
            values = [_known_folders(v, base) for v in values]
        if any("$" in v or "`" in v for v in values):
            return None
        if not values and name in os.environ:
            values = [os.environ[name]]
        if not values:
            return None
        choices[name] = list(dict.fromkeys(values))
    combos = 1
    for values in choices.values():
        combos *= len(values)
    if combos > _LITERAL_CHOICES:
        return None
    names = list(choices)
    out = []
    for picked in itertools.product(*(choices[n] for n in names)):
        out.append(_substituted(word, dict(zip(names, picked, strict=True))))
    return out


# an assignment (`F=.gitignore`, `F='x y'`, `R=$(pwd)/runs`) at a word's start
_ASSIGNMENT = re.compile(r"""(?<![\w$])(\w+)=('[^']*'|"[^"]*"|(?:\$\([^()]*\)|[^\s;&|()])*)""")


@functools.lru_cache(maxsize=16)
def _assignments(feed: str) -> dict[str, list[str]]:
    """Each variable the text ``feed`` assigns and its values as written, read once per text
    (the computed words of a line of many commands share one feed: a search per word made
    judging it quadratic). One assigned inside another's value (``A=B=c``) is not seen: its
    words are then unknown (`_literal_values` says None: fail closed)."""
    found: dict[str, list[str]] = {}
    for m in _ASSIGNMENT.finditer(feed):
        found.setdefault(m.group(1), []).append(m.group(2))
    return found


# `for NAME in WORDS` up to the `;` or newline that ends its list (`select` lists the same)
_LOOP_LIST = re.compile(r"(?<![\w$.-])(?:for|select)\s+(\w+)\s+in\s+([^;\n]*)")


@functools.lru_cache(maxsize=16)
def _loop_lists(feed: str) -> dict[str, list[str]]:
    """Each variable a ``for`` loop of the text ``feed`` sets and the words of its list,
    quotes removed (a glob stays one: `_expand` matches it). A list that does not split
    as the shell's (an open quote) gives the variable a computed value (`_literal_values`
    then says None: fail closed)."""
    found: dict[str, list[str]] = {}
    for m in _LOOP_LIST.finditer(feed):
        try:
            words = shlex.split(m.group(2))
        except ValueError:
            words = ["$?"]
        found.setdefault(m.group(1), []).extend(words)
    return found


def _printed_operands(argv: list[str]) -> list[str] | None:
    """The words the command ``argv`` prints as they are, each a path that a delete it
    feeds takes whole: ``echo A B``, ``printf '%s\\n' A B``, ``ls -d A B`` (a plain ``ls
    DIR`` prints DIR's entries: `_Listing`), ``realpath A``, ``readlink -f A``; None for any
    other command, or one with a word computed when it runs."""
    name = os.path.basename(argv[0]) if argv else ""
    args = argv[1:]
    if any("$" in a or "`" in a for a in args):
        return None
    if name == "echo":
        while args and re.fullmatch(r"-[neE]+", args[0]):
            args = args[1:]
        return args
    if name == "printf":
        return args[1:] if args and re.fullmatch(r"%s(\\[n0]|\n| )?", args[0]) else None
    operands = [a for a in args if not a.startswith("-") or a == "-"]
    options = [a for a in args if a.startswith("-") and a != "-"]
    if name in ("ls", "dir") and any(
            a == "--directory" or (not a.startswith("--") and "d" in a[1:]) for a in options):
        return operands
    if name == "realpath" or (name == "readlink" and any(
            a.startswith("--canonicalize") or (not a.startswith("--") and set(a[1:]) & set("fem"))
            for a in options)):
        return operands
    return None


# a word that is one command substitution and nothing else (a trailing `/` aside)
_WHOLE_SUBSTITUTION = re.compile(r"\$\(([^$`()|;&<>]*)\)/?|`([^$`()|;&<>]*)`/?")


def _delete_values(word: str, feed: str, items: list[str] | None,
                   placeholder: str | None, bases: list[Path]) -> list[str]:
    """The values the computed path ``word`` of a delete takes when it runs that can be read
    here, each deleted whole: its variables' literal values (the line's assignments and
    ``for`` lists: ``P=../exp1; rm -rf $P``, ``for d in ../*/; do rm -rf "$d"; done``,
    ``R=$(pwd); rm -rf $R`` from each working folder ``bases``), the
    operands of a command substitution that prints them (``rm -rf $(ls -d ../exp*)``,
    `_printed_operands`), and for a command xargs runs, the ``items`` piped to it (``ls -d
    ../exp* | xargs -I{} rm -rf {}``: put for ``placeholder``). Empty when none can be read:
    the word is then judged by what may feed it (`_Mentions`), as before. A word that names
    the project folder itself is judged here as it is written literally: deleted whole."""
    values = [v for base in bases for v in _literal_values(word, feed, True, base) or []]
    whole = _WHOLE_SUBSTITUTION.fullmatch(word)
    if whole is not None:
        try:
            printed = _printed_operands(shlex.split(whole.group(1) or whole.group(2) or ""))
        except ValueError:
            printed = None
        values += printed or []
    if items and placeholder and placeholder in word:
        values += [word.replace(placeholder, item) for item in items]
    return values


def _piped_items(cmd: Any, parsed: list[Any], n: int) -> list[str] | None:
    """What the command xargs runs, ``cmd`` (``parsed[n]``), is handed when the one command
    piped into xargs prints its operands as they are (`_printed_operands`: ``ls -d ../exp* |
    xargs rm -rf``); None otherwise (a listing is judged by `_Listing`)."""
    if not cmd.appended or cmd.pipeline is None or n == 0 or cmd.scopes:
        return None
    before = parsed[n - 1]
    same = [c for c in parsed if c.pipeline == cmd.pipeline]
    if same != [before, cmd] or before.dynamic or before.remote or before.scopes or \
            cmd.pipeline.text.count("\n") != 1:
        return None
    return _printed_operands(before.argv)


def _xargs_placeholder(pipeline: Any) -> str | None:
    """The string xargs replaces by each item in the command it runs (``-I{}``, ``-I %``,
    ``--replace[=R]``, ``-i[R]``), read from the last part of ``pipeline``; None without."""
    if pipeline is None:
        return None
    try:
        words = shlex.split(pipeline.text.rsplit("\n", 1)[-1])
    except ValueError:
        return None
    if not words or os.path.basename(words[0]) != "xargs":
        return None
    for k, w in enumerate(words[1:], 1):
        if not w.startswith("-"):
            return None
        if w == "-I":
            return words[k + 1] if k + 1 < len(words) else None
        if w.startswith("-I"):
            return w[2:]
        if w in ("--replace", "-i"):
            return "{}"
        if w.startswith(("--replace=", "-i")):
            return w.split("=", 1)[1] if w.startswith("--") else w[2:]
    return None


def _substituted(word: str, values: Mapping[str, str]) -> str:
    """``word`` with each `_VARIABLE` replaced by its value in ``values``."""
    return _VARIABLE.sub(lambda m: values[m.group(1) or m.group(2)], word)

# git-config(1): the forms that only read (git 2.46 also has `git config get|list`)
_GIT_CONFIG_READS = {"--get", "--get-all", "--get-regexp", "--get-urlmatch", "--get-color",
                     "--get-colorbool", "--list", "-l"}
_GIT_CONFIG_WRITES = {"--add", "--replace-all", "--unset", "--unset-all", "--rename-section",
                      "--remove-section", "-e", "--edit"}


def _git_config_reads(words: list[str]) -> bool:
    """``git config WORDS`` only reads: a read action (``--get``, ``-l``, ``get``...), or one
    key named without a value and no action that writes (``git config alias.x``)."""
    if words[:1] in (["get"], ["list"]) or any(w in _GIT_CONFIG_READS for w in words):
        return True
    operands = [w for w in words if not w.startswith("-")]
    return len(operands) == 1 and not any(w in _GIT_CONFIG_WRITES for w in words) and \
        operands[0] not in ("set", "unset", "rename-section", "remove-section", "edit")


# git commands that write neither git's config nor the work tree (where a file a config
# [include] names may be): after them, an alias is what git's config files say now (those
# that only remove files may only take a definition away)
_GIT_KEEPS_CONFIG = _GIT_READ_ONLY | {
    "add", "stage", "commit", "tag", "notes", "clean", "rm", "fetch", "push", "branch", "gc",
    "prune", "repack", "fsck", "maintenance", "reflog", "update-ref", "symbolic-ref",
    "format-patch", "bundle", "archive", "send-email", "request-pull", "submodule"}
# git commands that write a new repository's config, where given config options or a
# template (git-clone(1) `-c`/`--config`, git-init(1) `--template`); without them its
# aliases are those of the config files that exist now
_GIT_NEW_CONFIG = {"init", "clone"}
_GIT_NEW_CONFIG_OPTIONS = ("-c", "--config", "--template")
# git's config files as a word may name them (git-config(1) FILES: /etc/gitconfig,
# ~/.gitconfig, $XDG_CONFIG_HOME/git/config, .git/config, .git/config.worktree; the .git
# folder whole), and as paths a glob may match (`_glob_may_match`)
_GIT_CONFIG_FILE = re.compile(r"(^|/)\.git(/(config(\.worktree)?|commondir)?)?/?$|gitconfig"
                              r"|(^|/)git/config$")
_GIT_CONFIG_NAMES = (".gitconfig", ".git", ".git/config", ".git/config.worktree", "git/config")
# keys whose value may bring in an alias (git-config(1) "Includes"), and the sections of them
_GIT_DEFINING_KEY = re.compile(r"(?i)(alias\.|include\.path$|includeif\..*\.path$)")
_GIT_DEFINING_SECTION = re.compile(r"(?i)(alias|include|includeif)(\.|$)")


@dataclass
class _Includes:
    """The files git's config includes where the line runs (every ``[include]`` and
    ``[includeIf]`` of its config files, whatever the condition:
    `shell_words.git_config_includes`, and what the line's git commands include from their
    command line): whether one is in a work tree (where ``checkout`` or ``pull`` may write
    it), whether one holds under a ``hasconfig:remote.*.url:`` condition (a new remote's URL
    may make it hold)."""

    paths: list[Path]
    into_work_tree: bool
    hasconfig: bool


def _line_includes(parsed: list[Any], bases: list[Path]) -> _Includes:
    from labledger.reconcile.shell_words import git_config_includes

    found = git_config_includes([str(b) for b in bases])
    found += [(None, p) for c in parsed for p in c.git_includes]
    paths = [Path(p) for _, p in found]
    tops = [next((d for d in (b, *b.parents) if (d / ".git").exists()), None) for b in bases]
    into = any(top in p.parents and top / ".git" not in (p, *p.parents)
               for top in tops if top is not None for p in paths)
    return _Includes(list(dict.fromkeys(paths)), into, any(
        (condition or "").startswith("hasconfig:") for condition, _ in found))


def _may_change_git_config(cmd: Any, feeds: _Feeds | None, includes: _Includes | None,
                           bases: list[Path]) -> bool:
    """Run before a git command of the line, ``cmd`` may change the aliases git finds there
    (``includes`` None: where git's config includes files is not known here, so any of these
    that depends on it may): an assignment of ``HOME``, ``XDG_CONFIG_HOME`` or ``GIT_*`` or a
    command word computed when it runs; ``git config`` writing a key that may bring in an
    alias (`_git_config_may_define`; not ``user.email``, nor a definition
    `shell_words.git_alias_definition` reads); ``git init`` or ``clone`` given config
    (`_GIT_NEW_CONFIG_OPTIONS`); ``git remote`` when an include holds on a remote's URL;
    another git command that may write the work tree (none of `_GIT_KEEPS_CONFIG`) when an
    include points into one; any other
    command writing (`_written`) a config file or a file an include names (`_may_name`,
    `_may_write_include`). Ignore files define no alias."""
    if cmd.remote or not cmd.argv:
        return False
    if "$" in cmd.argv[0] or "`" in cmd.argv[0] or _GIT_ENV_ASSIGNMENT.search(cmd.context):
        return True
    if cmd.name == "git":
        rest = _git_where(cmd.argv[1:])[1]
        if not rest:
            return bool(cmd.appended)  # xargs appends the subcommand: any
        sub, more = rest[0], rest[1:]
        if _COMPUTED_KIND.search(sub):
            return True
        if sub == "config":
            return _git_config_may_define(cmd.argv, more, includes)
        if sub == "remote":
            listing = more[:1] in ([], ["-v"], ["--verbose"], ["show"], ["get-url"])
            return not listing and (includes is None or includes.hasconfig)
        if sub in _GIT_NEW_CONFIG:
            return any(w.startswith(_GIT_NEW_CONFIG_OPTIONS) for w in more)
        if sub in _GIT_KEEPS_CONFIG or _git_alias_use(sub):
            return False  # what an alias runs is judged on its own
        return includes is None or includes.into_work_tree
    return any(_may_name(w, _GIT_CONFIG_FILE, _GIT_CONFIG_NAMES, cmd, feeds)
               or _may_write_include(w, includes, bases, cmd, feeds) for w in _written(cmd))


def _git_config_may_define(argv: list[str], words: list[str], includes: _Includes | None
                           ) -> bool:
    """``git config WORDS`` may change git's aliases: an edit (``-e``), a write to a file it
    names (``--file``, ``-f``), a section of aliases or includes renamed or removed, a key
    computed when it runs, a write of an ``alias.*`` key that is no plain definition (one
    `git_alias_definition` reads is expanded where used), of ``include.path`` or
    ``includeIf.*.path``, or of a remote's URL when an include holds on one. Reads
    (`_git_config_reads`) and other keys (``user.email``) change none."""
    from labledger.reconcile.shell_words import git_alias_definition

    if _git_config_reads(words) or git_alias_definition(argv) is not None:
        return False
    if any(w in ("-e", "--edit", "edit", "-f", "--blob") or w.startswith(("--file", "--blob="))
           for w in words):
        return True
    operands = [w for w in words if not w.startswith("-")]
    if operands[:1] in (["set"], ["unset"], ["rename-section"], ["remove-section"]):
        operands = operands[1:]
    sections = any(w.startswith(("--rename-section", "--remove-section")) for w in words) or \
        bool(set(words) & {"rename-section", "remove-section"})
    key = operands[0] if operands else ""
    if "$" in key or "`" in key:
        return True
    if sections:
        return any(_GIT_DEFINING_SECTION.match(w) for w in operands)
    return bool(_GIT_DEFINING_KEY.match(key)) or (
        re.match(r"(?i)remote\..*\.url$", key) is not None
        and (includes is None or includes.hasconfig))


def _may_write_include(word: str, includes: _Includes | None, bases: list[Path], cmd: Any,
                       feeds: _Feeds | None) -> bool:
    """``word`` of ``cmd`` may name a file a config include names, or a folder holding one
    (``cp -r x tools``): from each working folder of the line, as written, as a glob, or
    with each value it may take (`_literal_values`; one that cannot be told may, when its
    value comes from a command substitution or the text feeding it names such a file).
    ``includes`` None: cannot tell, it may."""
    if includes is None:
        return True
    if not includes.paths:
        return False
    feed = "" if feeds is None else feeds.of(cmd)
    values: list[str] | None = [word]
    if "$" in word or "`" in word:
        values = None if feeds is None else _literal_values(word, feed)
    if values is None:
        return feeds is None or _by_substitution(word, feed) or any(
            p.name in feed for p in includes.paths)
    import fnmatch

    for value in values:
        for base in bases:
            if any(c in value for c in "*?["):
                pattern = os.path.normpath(os.path.join(base, os.path.expanduser(value)))
                if any(fnmatch.fnmatchcase(str(p), pattern) for p in includes.paths):
                    return True
                continue
            place = _resolve(base, value)
            if any(place == p or place in p.parents for p in includes.paths):
                return True
    return False


class _GitChanges:
    """For the n-th command of the line: whether a command before it may change what git
    ignores or tracks (`_may_change_git_state`) or the aliases it finds
    (`_may_change_git_config`). Each found once per line, when first asked (linear). In a
    line that may run its commands out of their written order (`_out_of_order`: a loop, a
    function, a ``&``) every other command of the line counts as before it."""

    def __init__(self, parsed: list[Any], feeds: _Feeds | None, command: str,
                 base: Path | None = None) -> None:
        self.parsed, self.feeds = parsed, feeds
        self.unordered = _out_of_order(command)
        # where the line runs (`_line_bases`); None: not known, what depends on it may change
        self.bases = None if base is None else _line_bases(parsed, base)
        self._includes: _Includes | None = None
        self._stages: list[str] | None = None
        self._state: list[bool] | None = None
        self._refs: list[bool] | None = None
        self._config: list[bool] | None = None

    def state_before(self, n: int) -> bool:
        if self._state is None:
            self._state = self._running(_may_change_git_state)
        return self._state[n]

    def refs_before(self, n: int) -> bool:
        """A command before the n-th may move HEAD or a branch (`_may_move_refs`)."""
        if self._refs is None:
            self._refs = self._running(_may_move_refs)
        return self._refs[n]

    def config_before(self, n: int) -> bool:
        if self._config is None:
            self._config = self._running(self._changes_config)
        return self._config[n]

    def _changes_config(self, cmd: Any, feeds: _Feeds | None) -> bool:
        if self.bases is not None and self._includes is None:
            self._includes = _line_includes(self.parsed, self.bases)
        return _may_change_git_config(cmd, feeds, self._includes, self.bases or [])

    def staged_before(self, n: int) -> tuple[list[Any], bool]:
        """The ``git add`` commands before the n-th, and whether any other command before it
        may add files to the index (`_stages`)."""
        if self._stages is None:
            self._stages = [_stages(cmd, self.feeds) for cmd in self.parsed]
        if self.unordered:
            others = [k for k in range(len(self.parsed)) if k != n]
        else:
            others = list(range(n))
        adds = [self.parsed[k] for k in others if self._stages[k] == "add"]
        return adds, any(self._stages[k] == "other" for k in others)

    def _running(self, test: Callable[[Any, _Feeds | None], bool]) -> list[bool]:
        before, seen = [], False
        if self.unordered:
            changes = [test(cmd, self.feeds) for cmd in self.parsed]
            count = sum(changes)
            return [count - changed > 0 for changed in changes]
        for cmd in self.parsed:
            before.append(seen)
            seen = seen or test(cmd, self.feeds)
        return before


# git commands that add no file HEAD does not hold to the index (those that only read, and
# those that write commits, refs, config or remove from the index); any other may
# (`update-index --add`, `reset --soft`, `mv`, `checkout TREE -- PATH`, `stash pop`...)
_GIT_STAGES_NOTHING = _GIT_READ_ONLY | {"commit", "fetch", "pull", "push", "tag", "branch",
                                        "switch", "clean", "rm", "notes", "gc", "remote",
                                        "config", "init", "clone", "prune", "repack", "fsck"}
# a path of git's own folder (its index: what is staged)
_GIT_FOLDER = re.compile(r"(^|/)\.git(/|$)")


def _stages(cmd: Any, feeds: _Feeds | None) -> str:
    """How ``cmd``, run before a ``git stash``, may add files to the index: ``"add"`` (a
    ``git add``/``stage``: `_added_places` says what), ``"other"`` (a git command not in
    `_GIT_STAGES_NOTHING`, a subcommand computed when it runs, a write that may name a file
    in ``.git/``, an assignment of ``HOME``, ``XDG_CONFIG_HOME`` or ``GIT_*`` (the index git
    uses: ``GIT_INDEX_FILE``), a command word computed when it runs), or ``""``: none."""
    if cmd.remote or not cmd.argv:
        return ""
    if "$" in cmd.argv[0] or "`" in cmd.argv[0] or _GIT_ENV_ASSIGNMENT.search(cmd.context):
        return "other"
    if cmd.name == "git":
        rest = _git_where(cmd.argv[1:])[1]
        if not rest:
            return "other" if cmd.appended else ""
        if rest[0] in ("add", "stage"):
            return "add"
        if rest[0] == "stash":  # a pop or an apply stages the new files it brings back
            return "other" if rest[1:2] in (["pop"], ["apply"], ["branch"]) else ""
        if _COMPUTED_KIND.search(rest[0]):
            return "other"
        if rest[0] in ("checkout", "restore"):
            return "other" if _checks_out_a_tree(rest[0], rest[1:]) else ""
        return "" if rest[0] in _GIT_STAGES_NOTHING or _git_alias_use(rest[0]) else "other"
    return "other" if any(_may_name(w, _GIT_FOLDER, (".git", ".git/index"), cmd, feeds)
                          for w in _written(cmd)) else ""


def _line_bases(parsed: list[Any], base: Path) -> list[Path]:
    """``base`` and each folder a ``cd``/``pushd`` of the line moves to (as written, not
    computed): the working folders its commands may run in."""
    bases = [base]
    for cmd in parsed:
        if cmd.name in ("cd", "pushd") and not cmd.dynamic and not cmd.remote:
            folder = next((a for a in cmd.argv[1:] if not a.startswith("-")), "~")
            bases.append(_resolve(bases[-1], folder.replace("~+", str(bases[-1]))))
    return list(dict.fromkeys(bases))


def _checks_out_a_tree(sub: str, words: list[str]) -> bool:
    """``git checkout|restore WORDS`` may stage files of another commit (git-checkout(1)
    ``checkout TREE-ISH -- PATHSPEC`` updates the index; git-restore(1) with ``--staged``):
    ``checkout`` given an operand before ``--`` and a path after it, or two operands and
    more; ``restore`` with ``-S``/``--staged``. Switching branches (``checkout main``,
    ``-b x``) and restoring the work tree from the index (``checkout -- .``) stage nothing
    HEAD does not hold."""
    if sub == "restore":
        return any(w in ("-S", "--staged") or (w.startswith("-") and not w.startswith("--")
                                               and "S" in w) for w in words)
    if "--" in words:
        cut = words.index("--")
        before = [w for w in words[:cut] if not w.startswith("-")]
        return bool(before) and len(words) > cut + 1
    valued = {"-b", "-B", "--orphan", "--conflict", "--pathspec-from-file"}
    operands, i = [], 0
    while i < len(words):
        if words[i] in valued:
            i += 2
            continue
        if not words[i].startswith("-"):
            operands.append(words[i])
        i += 1
    return len(operands) >= 2 or any(w.startswith("--pathspec-from-file") for w in words)


# bash(1): what may run a command again or after one written later: a loop (`for`, `while`,
# `until`, `select`), a function's body (`NAME()`, `function NAME`: it runs where called), a
# command run in the background (`A & B`; not `&&`, `>&`, `&>`, `|&`). Quoted text may match
# too: more is judged, never less.
_OUT_OF_ORDER = re.compile(r"(^|[\s;&|(){}])(for|while|until|select|function)\s"
                           r"|\(\s*\)|(?<![&>|<])&(?![&>])")


def _out_of_order(command: str) -> bool:
    """The line may run a command before one written ahead of it (`_OUT_OF_ORDER`)."""
    return _OUT_OF_ORDER.search(command) is not None


@functools.cache
def _git_alias_use(sub: str) -> bool:
    """``git SUB`` runs an alias, if anything: SUB is none of git's own commands, nor a
    ``git-SUB`` program (git runs those before it looks for an alias: git.c run_argv). What
    the alias runs is judged on its own: `shell_words` expands what it can read (after the
    use, in the line's order), and one it cannot read is judged as a clean
    (`_unread_git_subcommand`)."""
    import shutil

    from labledger.reconcile.shell_words import _GIT_COMMANDS

    return sub not in _GIT_COMMANDS and (not sub or shutil.which("git-" + sub) is None)


def _unread_git_subcommand(cmd: Any, changes: _GitChanges, n: int) -> str | None:
    """Why the n-th command of the line, a git command, may run a ``git clean`` that cannot
    be read here (None: it cannot). Its subcommand is computed when it runs (``git $S``,
    ``git {}`` under xargs -I) or appended when it runs (``echo clean -fdx | xargs git``, the
    value of a shell alias: `shell_words` marks both ``appended``); words are appended to a
    ``clean`` or a ``stash`` (they may add ``-x``, ``-a``); or its subcommand is no git
    command (nor a ``git-NAME`` program, which git runs before it looks for an alias: git.c
    run_argv), so an alias, which cannot be read before the line runs: appended words may
    stand there (xargs -I), its ``-c`` values are computed, or an earlier command of the line
    may change git's config (`_GitChanges`). Aliases that can be read are expanded by
    `shell_words` and judged as the commands they run."""
    if cmd.name != "git" or cmd.remote:
        return None
    args = cmd.argv[1:]
    rest = _git_where(args)[1]
    if not rest:
        return f"its subcommand is {_APPENDED}" if cmd.appended else None
    sub = rest[0]
    if _COMPUTED_KIND.search(sub):
        return f"its subcommand {sub!r} is computed when it runs"
    if not _git_alias_use(sub):
        stashes = sub == "stash" and _stash_form(rest[1:]) is not None
        return f"words {_APPENDED} may add to its {sub}" if cmd.appended and (
            sub == "clean" or stashes) else None
    if cmd.appended:
        return (f"{sub!r} is no git command: the words {_APPENDED} may stand there "
                "(xargs -I), or it is an alias")
    options = args[:len(args) - len(rest)]
    if any("$" in o or "`" in o for o in options) or \
            re.search(r"\bGIT_CONFIG_PARAMETERS=", cmd.context):
        return f"{sub!r} may be an alias, and its config is computed when it runs"
    if cmd.git_unread:
        return f"{sub!r} may be an alias, and {cmd.git_unread}"
    if changes.config_before(n):
        return (f"{sub!r} may be an alias that cannot be read before the line runs: an "
                "earlier command of the line may change git's config")
    return None


_APPENDED = "appended when it runs (by xargs, or where an alias is used)"


def _repository_tops(argv: list[str], bases: list[Path], project: Path) -> list[Path]:
    """The top folders of the work trees a git command may act on: where it runs (its ``-C``
    folders, a ``--work-tree``) from each working folder of the line, up to its repository's
    top (a ``.git`` there); a folder in no repository stands for itself. A folder computed
    when it runs (``-C "$D"``, ``--work-tree="$(...)"``) may be any folder: it stands for the
    repository of every working folder of the line and the project's (fail closed)."""
    tops: list[Path] = []
    for folder in _git_where(argv[1:])[0]:
        places, _, computed = _expand(folder, bases)
        for place in [*places, *bases, project] if computed else places:
            tops.append(next((d for d in (place, *place.parents) if (d / ".git").exists()),
                             place))
    return list(dict.fromkeys(tops))


def _computed_git_folder(argv: list[str], bases: list[Path]) -> bool:
    """A ``-C`` or ``--work-tree`` of the git command ``argv`` is computed when it runs."""
    return any(_expand(folder, bases)[2] for folder in _git_where(argv[1:])[0])


def _git_kept(argv: list[str]) -> list[str]:
    """The ``-e``/``--exclude`` patterns of a ``git clean`` that keep what they match (not with
    ``-X``, which removes only what is ignored: then they add to what it removes)."""
    if not argv or os.path.basename(argv[0]) != "git":
        return []
    clean = _clean_args_of(_git_where(argv[1:])[1])
    if clean is None:
        return []
    flags, excludes, _ = _git_clean(clean)
    return [] if "X" in flags else excludes


def _git_excluded(place: Path, root: Path, patterns: list[str]) -> bool:
    """A ``git clean -e PATTERN`` started at ``place`` (at or above ``root``) leaves ``root``
    alone: a pattern matches it or a folder between, as git matches an ignore pattern from
    the command line (no slash but a trailing one: any one folder's name; else the path from
    the repository's top, found by its ``.git``). A ``!`` pattern, which may re-include what
    another excludes, and a start inside ``root`` keep nothing (cannot tell: deleted)."""
    from labledger.reconcile.shell_words import _wildmatch

    if not patterns or any(p.startswith("!") for p in patterns) or not (
            place == root or place in root.parents):
        return False
    parts = root.relative_to(place).parts
    top = next((d for d in (place, *place.parents) if (d / ".git").exists()), None)
    for pattern in patterns:
        pattern = pattern[:-1] if pattern.endswith("/") else pattern  # folders only: all are
        if not pattern:
            continue
        if "/" not in pattern:
            if any(_wildmatch(pattern, part) for part in parts):
                return True
        elif top is not None:
            folders = [place.joinpath(*parts[:k]) for k in range(1, len(parts) + 1)]
            if any(_wildmatch(pattern.lstrip("/"), f.relative_to(top).as_posix())
                   for f in folders if top in f.parents):
                return True
    return False


def _dry_run(args: list[str]) -> bool:
    """``-n`` (alone or in a bundle of short flags) or ``--dry-run``, not undone by a later
    ``--no-dry-run`` (the last one counts): ``git clean`` and ``rsync`` only list what they
    would delete. Options end at ``--``/``--end-of-options``."""
    dry = False
    for a in args:
        if a in ("--", "--end-of-options"):
            break
        if a == "--dry-run":
            dry = True
        elif a == "--no-dry-run" or (a.startswith("--no-d") and "--no-dry-run".startswith(a)):
            dry = False
        elif a.startswith("-") and not a.startswith("--"):
            # what follows an `e` is its value (git clean's pattern, rsync's shell): `-enope`
            dry = dry or "n" in a[1:].partition("e")[0]
    return dry


def _find_name_tests(args: list[str]) -> list[tuple[str, str]]:
    """The ``-name``/``-iname``/``-path``/``-ipath`` tests of a find: what it is limited to.
    None found, or an expression they cannot summarise (a negation, ``-o``, a regex): [],
    which stands for everything (fail closed)."""
    if any(a in ("!", "-not", "-o", "-or", "-regex", "-iregex") for a in args):
        return []
    return [(a, args[i + 1]) for i, a in enumerate(args[:-1])
            if a in ("-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename")]


# --- writes onto protected files --------------------------------------------------------------
# How a write treats the file it lands on (the verb of a block message). The first four
# destroy what an existing file held; an append keeps it, and so does a copy or link that
# never replaces a file (``cp -n``, ``ln`` without ``-f``): those only add.
_TRUNCATES, _OVERWRITES, _REPLACES, _EDITS = "truncates", "overwrites", "replaces", \
    "edits in place"
_APPENDS, _ADDS = "appends to", "writes"
_DESTROYING = {_TRUNCATES, _OVERWRITES, _REPLACES, _EDITS}
# A redirection that opens a file for writing (bash(1) REDIRECTION), at a word's start (``>
# f``, ``2>f``, ``&>f``, ``{fd}>f``) or after a word it ends (``x>f``: `>` is a metacharacter);
# ``<>`` opens without truncating. ``<``, ``<&``, ``<<<`` only read.
_WRITE_REDIRECTION = re.compile(r"^[^\s<>&]*?(&>>|&>|>>|>\||>&|<>|>)(.*)$", re.S)
# targets that are no file of the project: a descriptor (``2>&1``, ``>&-``), the terminal,
# the null device, a process substitution (``> >(tee log)``: cut at its parenthesis, the
# next word is its `>`)
_NO_FILE = re.compile(r"&?(\d+-?|-)|/dev/(null|stdout|stderr|tty|fd/\d+)|[(<>].*", re.S)


@dataclass
class _Write:
    """One file a simple command writes, as written: how (a verb above); for a copy, move or
    link its sources (the landing is ``dest`` itself, or ``dest/NAME`` when it is a folder,
    `_landings`) and whether it copies folders whole (``cp -r``, ``rsync``: `_tree_hit`)."""

    dest: str
    how: str
    sources: list[str] | None = None  # a copy: what lands in ``dest``
    into: bool | None = None  # a copy into ``dest`` as a folder: None, when it is one now
    tree: str = ""  # "cp" or "rsync": folders are copied whole (their trailing-/ rules)
    computed: bool = False  # appended when it runs (``... | xargs truncate -s0``)
    given: bool = False  # ``dest`` is the folder of ``-t DIR`` (not the last operand)
    # ``dest`` is a folder it writes files into whose names are not known here (an archive
    # unpacked, a recursive download): any file it holds now may be overwritten
    inside: bool = False
    # an archive unpacked into ``dest``: its members, where it can be read, are where it
    # writes instead (`_unpacked`)
    unpack: Unpack | None = None


def _redirected(argv: list[str], masks: list[str] | None = None) -> list[_Write]:
    """The files the shell opens for writing for a simple command (any word of it: the shell
    does, whatever the command is): a truncating redirection, or an appending one (``>>``,
    ``&>>``, ``<>``). A word whose target starts with a blank is quoted text, not a
    redirection (``git commit -m '> x'``). ``masks`` (`_quote_masks`): each word with its
    quoted characters masked, so that a quoted ``>`` is text (``grep '>' seqs.fa``,
    ``echo step\\>1``) and the operator is read where the shell reads it (``echo '>'>f``
    truncates f); without them a quoted ``a>b`` reads as one: the safe side."""
    found: list[_Write] = []
    skip = False
    for k, word in enumerate(argv):
        if skip:
            skip = False
            continue
        seen = masks[k] if masks is not None else word
        m = _WRITE_REDIRECTION.match(seen) if ">" in seen else None
        if m is None:
            continue
        op, target = m.group(1), word[m.start(2):]
        if not target:  # `> FILE`: the next word
            target, skip = (argv[k + 1] if k + 1 < len(argv) else ""), True
        if not target or target[0].isspace() or _NO_FILE.fullmatch(target):
            continue
        found.append(_Write(target, _APPENDS if op in (">>", "&>>", "<>") else _TRUNCATES))
    return found


def _quote_masks(cmd: Any) -> list[str] | None:
    """Each word of ``cmd.argv`` with the characters it had quoted (``'...'``, ``"..."``,
    ``\\x``) masked as ``_``, read from its own text (``cmd.context``: the last words of it
    are the argv, wrappers and keywords before them); None when that text cannot be read so
    simply (`_raw_words`) or its words are not the argv's (the quotes then cannot be told)."""
    argv = cmd.argv
    raw = _raw_words(cmd.context) if any(">" in w for w in argv) else None
    if raw is None or len(raw) < len(argv):
        return None
    raw = raw[len(raw) - len(argv):]
    if any(text != word for (text, _), word in zip(raw, argv, strict=True)):
        return None
    return [mask for _, mask in raw]


# what starts text whose words are computed or escaped when it runs: not read by `_raw_words`
_UNREAD_QUOTING = ("`", "$(", "<(", ">(", "$'", '$"')


def _raw_words(text: str) -> list[tuple[str, str]] | None:
    """The words of a simple command's text, split at unquoted blanks, each as (the word
    without its quotes, the same with each quoted character masked as ``_``); None when it
    holds a command or process substitution, ANSI-C quoting or an unclosed quote."""
    words: list[tuple[str, str]] = []
    plain: list[str] = []
    masked: list[str] = []
    i, n, started = 0, len(text), False
    while i < n:
        c = text[i]
        if c in " \t\n":
            if started:
                words.append(("".join(plain), "".join(masked)))
                plain, masked, started = [], [], False
            i += 1
            continue
        started = True
        if text.startswith(_UNREAD_QUOTING, i):
            return None
        if c == "\\":
            plain.append(text[i + 1:i + 2])
            masked.append("_" * len(text[i + 1:i + 2]))
            i += 2
        elif c == "'":
            end = text.find("'", i + 1)
            if end < 0:
                return None
            plain.append(text[i + 1:end])
            masked.append("_" * (end - i - 1))
            i = end + 1
        elif c == '"':
            i += 1
            while i < n and text[i] != '"':
                if text.startswith(("`", "$("), i):
                    return None
                if text[i] == "\\" and text[i + 1:i + 2] in ('"', "\\", "$", "`"):
                    i += 1
                plain.append(text[i])
                masked.append("_")
                i += 1
            if i >= n:
                return None
            i += 1
        else:
            plain.append(c)
            masked.append(c)
            i += 1
    if started:
        words.append(("".join(plain), "".join(masked)))
    return words


def _options(args: list[str], with_value: Collection[str]
             ) -> tuple[list[str], dict[str, str], set[str]]:
    """(operands, the options given a value, the flags) of a GNU-style command: ``--`` ends
    the options; ``--name=VALUE``, or a ``with_value`` option and the next word (a short one
    also ``-tDIR``); short flags in bundles (``-rf``: ``r``, ``f``), long ones as written."""
    operands: list[str] = []
    valued: dict[str, str] = {}
    flags: set[str] = set()
    i, ended = 0, False
    while i < len(args):
        a = args[i]
        i += 1
        if ended or not a.startswith("-") or a == "-":
            operands.append(a)
        elif a == "--":
            ended = True
        elif a.startswith("--"):
            name, eq, value = a.partition("=")
            if eq:
                valued[name] = value
            elif name in with_value:
                valued[name], i = (args[i] if i < len(args) else ""), i + 1
            else:
                flags.add(name)
        else:
            for k, ch in enumerate(a[1:], 1):
                if "-" + ch in with_value:
                    rest = a[k + 1:]
                    if not rest:
                        rest, i = (args[i] if i < len(args) else ""), i + 1
                    valued["-" + ch] = rest
                    break
                flags.add(ch)
    return operands, valued, flags


# coreutils cp, mv, ln, install: the options taking a value (`-t DIR` is the target folder)
_COPY_VALUES = {"-S", "--suffix", "-t", "--target-directory"}
_INSTALL_VALUES = _COPY_VALUES | {"-m", "--mode", "-o", "--owner", "-g", "--group",
                                  "--strip-program"}
# rsync(1) options whose value may be the next word
_RSYNC_VALUES = {"-e", "--rsh", "-f", "--filter", "--exclude", "--include", "--exclude-from",
                 "--include-from", "--files-from", "-T", "--temp-dir", "--partial-dir",
                 "--backup-dir", "--suffix", "--chmod", "--log-file", "--rsync-path",
                 "--compare-dest", "--copy-dest", "--link-dest", "-B", "--block-size",
                 "--port", "--password-file", "--max-size", "--min-size", "--timeout",
                 "--bwlimit", "-M", "--remote-option", "--out-format", "--chown", "--usermap",
                 "--groupmap", "--info", "--debug", "--iconv", "--sockopts", "--contimeout"}


def _copy_writes(name: str, args: list[str]) -> list[_Write]:
    """Where ``cp``/``mv``/``ln``/``install`` land: ``-t DIR`` (``--target-directory``) takes
    every operand into DIR; else the last operand (a folder, or several sources: into it;
    ``-T``: onto it). ``mv`` and ``ln -f`` replace a file there, ``cp`` and ``install``
    overwrite it; ``cp -n``/``mv -n`` (``--no-clobber``, ``--update=none``) and ``ln``
    without ``-f`` leave an existing file as it was (they only add). ``install -d`` makes
    folders."""
    operands, valued, flags = _options(args, _INSTALL_VALUES if name == "install"
                                       else _COPY_VALUES)
    if name == "install" and flags & {"d", "--directory"}:
        return []
    keeps = bool(flags & {"n", "--no-clobber"}) or valued.get("--update") == "none" or (
        name == "ln" and not flags & {"f", "--force"})
    how = _ADDS if keeps else _REPLACES if name in ("mv", "ln") else _OVERWRITES
    tree = "cp" if name == "cp" and flags & {"r", "R", "a", "--recursive", "--archive"} \
        else ""
    folder = valued.get("-t", valued.get("--target-directory"))
    if folder is not None:
        return [_Write(folder, how, operands, True, tree, given=True)]
    if len(operands) < 2:
        return []
    into = False if flags & {"T", "--no-target-directory"} else \
        True if len(operands) > 2 else None
    return [_Write(operands[-1], how, operands[:-1], into, tree)]


def _rsync_writes(args: list[str]) -> list[_Write]:
    """Where ``rsync SRC... DEST`` writes here (a ``host:`` destination is elsewhere; with
    ``-n``/``--dry-run`` or ``--list-only`` nowhere): each source's files land in DEST,
    overwriting those of the same name (`_landings`: a source ending in ``/`` copies its
    contents). With ``--ignore-existing`` ("skip updating files that already exist on the
    receiver") it only adds."""
    operands, valued, flags = _options(args, _RSYNC_VALUES)
    if "n" in flags or flags & {"--dry-run", "--list-only"} or len(operands) < 2 or \
            _remote_path(operands[-1]):
        return []
    how = _ADDS if "--ignore-existing" in flags else _OVERWRITES
    return [_Write(operands[-1], how, operands[:-1], None, "rsync")]


# scp(1) options taking a value
_SCP_VALUES = {"-c", "-D", "-F", "-i", "-J", "-l", "-o", "-P", "-S", "-X"}


def _scp_writes(args: list[str]) -> list[_Write]:
    """Where ``scp SRC... DEST`` writes here, as ``cp`` lands (``-r``: folders whole, read
    where the source is here: `_tree_hit`); a ``host:`` destination is elsewhere."""
    operands, _, flags = _options(args, _SCP_VALUES)
    if len(operands) < 2 or _remote_path(operands[-1]):
        return []
    into = True if len(operands) > 2 else None
    return [_Write(operands[-1], _OVERWRITES, operands[:-1], into, "cp" if "r" in flags else "")]


def _remote_path(word: str) -> bool:
    """An rsync/scp operand on another machine: ``host:path`` (a ``:`` before any ``/``)."""
    head = word.split("/", 1)[0]
    return ":" in head


def _dd_writes(args: list[str]) -> list[_Write]:
    """``dd of=FILE`` overwrites it (truncated first, unless ``conv=notrunc``; with
    ``oflag=append`` and ``conv=notrunc`` it appends)."""
    values = dict(a.split("=", 1) for a in args if "=" in a)
    if "of" not in values:
        return []
    appends = "append" in values.get("oflag", "").split(",") and \
        "notrunc" in values.get("conv", "").split(",")
    return [_Write(values["of"], _APPENDS if appends else _OVERWRITES)]


def _tee_writes(name: str, args: list[str]) -> list[_Write]:
    """``tee FILE...`` truncates each file, ``sponge FILE`` (moreutils) overwrites it; with
    ``-a``/``--append`` both append."""
    operands, _, flags = _options(args, ())
    how = _APPENDS if flags & {"a", "--append"} else \
        _TRUNCATES if name == "tee" else _OVERWRITES
    return [_Write(f, how) for f in operands if f != "-"]


def _truncate_writes(args: list[str]) -> list[_Write]:
    """``truncate -s SIZE FILE...`` (``-r REF``): each file."""
    operands, _, _ = _options(args, {"-s", "--size", "-r", "--reference"})
    return [_Write(f, _TRUNCATES) for f in operands]


def _sed_in_place(args: list[str]) -> list[_Write]:
    """``sed -i[SUFFIX]`` (``--in-place[=SUFFIX]``, in a bundle: ``-Ei``; what follows ``i``
    in its word is the suffix, read here as more flags) edits each file operand in place; the
    first operand is the script unless ``-e``/``-f`` (``--expression``/``--file``) gave one.
    Read by `_options`."""
    operands, valued, flags = _options(args, _SED_VALUES)
    if "i" not in flags and "--in-place" not in flags and "--in-place" not in valued:
        return []
    scripted = bool(valued.keys() & {"-e", "-f", "--expression", "--file"})
    return [_Write(f, _EDITS) for f in operands[0 if scripted else 1:]]


# sed(1) options whose value may be the next word (`-e SCRIPT`, `-f FILE`, `-l N`)
_SED_VALUES = {"-e", "-f", "-l", "--expression", "--file", "--line-length"}


def _perl_in_place(args: list[str]) -> list[_Write]:
    """``perl -i[EXT]`` (``-pi -e CODE FILE...``, ``-i.bak``: the rest of its word is the
    extension) edits each file it reads in place: the operands after the program (the first
    operand is the program file unless ``-e``/``-E`` gave one)."""
    operands: list[str] = []
    in_place = scripted = False
    i = 0
    while i < len(args):
        a = args[i]
        i += 1
        if operands or not a.startswith("-") or a == "-":
            operands.append(a)
            continue
        if a == "--":
            operands.append("")  # the options end: what follows is an operand
            continue
        for k, ch in enumerate(a[1:], 1):
            if ch == "i":
                in_place = True
                break
            if ch in "eE":
                scripted = True
                i += 0 if a[k + 1:] else 1
                break
            if ch in "IMmCdDxlF0":  # their value is the rest of the word
                break
    operands = [o for o in operands if o]
    if not in_place:
        return []
    return [_Write(f, _EDITS) for f in operands[0 if scripted else 1:]]


def _awk_in_place(args: list[str]) -> list[_Write]:
    """``gawk -i inplace PROGRAM FILE...`` (``--include=inplace``) edits each file in place
    (the program is the first operand unless ``-f`` gave one)."""
    operands, valued, _ = _options(args, {"-i", "--include", "-f", "--file", "-v", "--assign",
                                          "-F", "--field-separator", "-E", "--exec"})
    if "inplace" not in (valued.get("-i"), valued.get("--include")):
        return []
    scripted = "-f" in valued or "--file" in valued or "-E" in valued
    return [_Write(f, _EDITS) for f in operands[0 if scripted else 1:] if "=" not in f]


# curl(1) options taking a value (the next word, or the rest of a short one's word)
_CURL_VALUES = {"-o", "--output", "--output-dir", "-d", "--data", "--data-binary",
                "--data-raw", "--data-urlencode", "--data-ascii", "-H", "--header", "-X",
                "--request", "-u", "--user", "-A", "--user-agent", "-e", "--referer", "-b",
                "--cookie", "-c", "--cookie-jar", "-D", "--dump-header", "--trace",
                "--trace-ascii", "--stderr", "-K", "--config", "-T", "--upload-file", "-F",
                "--form", "--form-string", "-x", "--proxy", "-m", "--max-time", "-w",
                "--write-out", "-r", "--range", "-C", "--continue-at", "-E", "--cert",
                "--key", "--cacert", "--capath", "-y", "--speed-time", "-Y", "--speed-limit",
                "-z", "--time-cond", "--url", "--retry", "--retry-delay", "--retry-max-time",
                "--max-filesize", "--connect-timeout", "--limit-rate", "-Q", "--quote",
                "--resolve", "--connect-to", "--interface", "-U", "--proxy-user",
                "--oauth2-bearer", "--json", "-P", "--ftp-port", "--max-redirs", "-t",
                "--telnet-option", "--unix-socket", "--etag-save", "--etag-compare",
                "--hsts", "--alt-svc", "--variable", "--expand-url", "--noproxy"}
# wget(1) options taking a value
_WGET_VALUES = {"-O", "--output-document", "-P", "--directory-prefix", "-o", "--output-file",
                "-a", "--append-output", "-i", "--input-file", "-B", "--base", "-e",
                "--execute", "-t", "--tries", "-T", "--timeout", "-w", "--wait", "-Q",
                "--quota", "-U", "--user-agent", "--header", "--user", "--password",
                "--post-data", "--post-file", "--body-data", "--body-file", "--method",
                "-l", "--level", "-A", "--accept", "-R", "--reject", "-D", "--domains",
                "--exclude-domains", "-I", "--include-directories", "-X",
                "--exclude-directories", "--cut-dirs", "--load-cookies", "--save-cookies",
                "--limit-rate", "--bind-address", "--ca-certificate", "--certificate",
                "--private-key", "--referer", "--restrict-file-names", "--default-page",
                "--accept-regex", "--reject-regex", "--backups", "--wait-retry",
                "--random-wait-max", "--dns-timeout", "--connect-timeout", "--read-timeout"}


def _url_name(url: str) -> str:
    """The file a download names after its URL: the last part of its path, without query or
    fragment (``index.html`` for a path ending in ``/``, as wget names it)."""
    path = url.split("://", 1)[-1].split("?", 1)[0].split("#", 1)[0]
    name = path.rsplit("/", 1)[-1] if "/" in path else ""
    return name or "index.html"


def _every_value(args: list[str], with_value: Collection[str], wanted: Collection[str]
                 ) -> list[str]:
    """The value of each ``wanted`` option of a GNU-style command, in order (`_options` keeps
    the last of a repeated one): ``--name=VALUE``, ``--name VALUE``, ``-xVALUE``, ``-x VALUE``,
    also at the end of a bundle (``-sSLo FILE``)."""
    found: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        i += 1
        if a == "--":
            break
        if a.startswith("--"):
            name, eq, value = a.partition("=")
            if not eq and name in with_value:
                value, i = (args[i] if i < len(args) else ""), i + 1
            if name in wanted:
                found.append(value)
        elif a.startswith("-") and a != "-":
            for k, ch in enumerate(a[1:], 1):
                if "-" + ch in with_value:
                    value = a[k + 1:]
                    if not value:
                        value, i = (args[i] if i < len(args) else ""), i + 1
                    if "-" + ch in wanted:
                        found.append(value)
                    break
    return found


# where a model or dataset hub's download lands when told (a folder: any file there may be
# overwritten, its names are the repository's): `huggingface-cli|hf download --local-dir DIR`,
# `wandb artifact get --root DIR`, `kaggle datasets|competitions|kernels|models
# download|pull|output -p DIR`, `gdown -O PATH` (a folder with `--folder` or a trailing `/`)
_HUB_DEST = {"huggingface-cli": ("download", {"--local-dir"}), "hf": ("download", {"--local-dir"}),
             "wandb": ("artifact", {"--root"}), "kaggle": ("", {"-p", "--path"}),
             "gdown": ("", {"-O", "--output"})}
_HUB_VALUES = {"--local-dir", "--root", "-p", "--path", "-O", "--output", "--cache-dir",
               "--revision", "--repo-type", "--include", "--exclude", "--token", "--type",
               "-d", "--dataset", "-c", "--competition", "-k", "--kernel", "-m", "--model",
               "-f", "--file", "--max-workers", "--format", "--id"}


def _hub_writes(name: str, args: list[str]) -> list[_Write]:
    """Where a hub's download writes here (`_HUB_DEST`); none without a destination given
    (each hub then writes into its own cache, or a new file in the working folder)."""
    sub, options = _HUB_DEST[name]
    if sub and (not args or args[0] != sub) or name == "wandb" and args[1:2] != ["get"]:
        return []
    if name == "kaggle" and not any(a in ("download", "pull", "output") for a in args[:3]):
        return []
    dests = _every_value(args, _HUB_VALUES, options)
    if not dests:
        return []
    folder = name != "gdown" or "--folder" in args or dests[-1].endswith("/")
    return [_Write(dests[-1], _OVERWRITES, inside=True)] if folder else \
        [_Write(dests[-1], _OVERWRITES)]


def _curl_writes(args: list[str]) -> list[_Write]:
    """The files ``curl`` writes here: each ``-o FILE`` (``--output``; not ``-o -``, the
    terminal), and with ``-O`` (``--remote-name``, ``--remote-name-all``) a file named after
    each URL, in ``--output-dir`` (else where it runs); ``-c`` (cookie jar), ``-D`` (dump
    header), ``--trace``, ``--stderr``, ``--etag-save`` write their file too. They overwrite
    an existing file; with ``--no-clobber`` they only add, resumed (``-C``) they append.
    Every ``-o`` counts (`_every_value`)."""
    operands, valued, flags = _options(args, _CURL_VALUES)
    how = _ADDS if "--no-clobber" in flags else _APPENDS if (
        "-C" in valued or "--continue-at" in valued) else _OVERWRITES
    folder = valued.get("--output-dir", "")
    found = [_Write(os.path.join(folder, f), how)
             for f in _every_value(args, _CURL_VALUES, {"-o", "--output"})]
    for option in ("-c", "--cookie-jar", "-D", "--dump-header", "--trace", "--trace-ascii",
                   "--stderr", "--etag-save"):
        if option in valued:
            found.append(_Write(valued[option], _OVERWRITES))
    if flags & {"O", "--remote-name", "--remote-name-all"}:
        urls = [*operands, *([valued["--url"]] if "--url" in valued else [])]
        found += [_Write(os.path.join(folder, _url_name(u)), how) for u in urls]
    return [w for w in found if w.dest not in ("-", os.path.join(folder, "-"))]


def _wget_writes(args: list[str]) -> list[_Write]:
    """The files ``wget`` writes here: ``-O FILE`` (``--output-document``; not ``-O -``)
    truncates it; ``-o``/``--output-file`` its log too (``-a``: appends). Else a file named
    after each URL in ``-P DIR`` (``--directory-prefix``; else where it runs): wget keeps an
    existing one (it saves ``NAME.1``), but with ``-N`` (timestamping) it overwrites it, with
    ``-c`` it appends to it; ``-r``/``-m`` (recursive, mirror) write files named by what they
    fetch: anything in that folder (`_Write.inside`)."""
    operands, valued, flags = _options(args, _WGET_VALUES)
    found: list[_Write] = []
    for option, how in (("-o", _TRUNCATES), ("--output-file", _TRUNCATES),
                        ("-a", _APPENDS), ("--append-output", _APPENDS)):
        if option in valued:
            found.append(_Write(valued[option], how))
    document = valued.get("-O", valued.get("--output-document"))
    if document is not None:
        return found + ([_Write(document, _TRUNCATES)] if document != "-" else [])
    folder = valued.get("-P", valued.get("--directory-prefix", "."))
    if flags & {"r", "m", "--recursive", "--mirror"}:
        return found + [_Write(folder, _OVERWRITES, inside=True)]
    how = _OVERWRITES if flags & {"N", "--timestamping"} else \
        _APPENDS if flags & {"c", "--continue"} else _ADDS
    return found + [_Write(os.path.join(folder, _url_name(u)), how) for u in operands]


# tar(1) options taking a value (GNU tar; in the old form `tar xzf A -C D` the value letters of
# the first word take the next words in turn)
_TAR_VALUES = {"-f", "--file", "-C", "--directory", "-T", "--files-from", "-X",
               "--exclude-from", "-b", "--blocking-factor", "-g", "--listed-incremental",
               "-L", "--tape-length", "-I", "--use-compress-program", "-F", "--info-script",
               "-H", "--format", "-V", "--label", "-N", "--newer", "--exclude", "--owner",
               "--group", "--mode", "--mtime", "--transform", "--xform", "--strip-components",
               "--checkpoint-action", "--to-command", "--rsh-command"}


def _tar_words(args: list[str]) -> list[str]:
    """``tar``'s words with its old form (a first word of letters without a dash, ``xzf
    A``: each value letter takes the next word) written as options (``-x -z -f A``)."""
    if not args or args[0].startswith("-") or not args[0].isalpha():
        return args
    options, rest = [], args[1:]
    for ch in args[0]:
        options.append("-" + ch)
        if "-" + ch in _TAR_VALUES and rest:
            options.append(rest.pop(0))
    return options + rest


def _tar_writes(args: list[str]) -> list[_Write]:
    """What ``tar -x`` (``--extract``, ``--get``) unpacks here: into ``-C DIR``
    (``--directory``; else where it runs). Members named on its line (``tar xf a.tar
    runs/exp1/m.json``) land at their name there; else anything in that folder may be written
    (`_Write.inside`), but where the archive ``-f A`` can be read its members are where it
    writes (`_unpacked`: ``--strip-components``, ``-P``, the names on the line and
    ``--exclude`` applied; not with ``--transform``). It overwrites an existing file; ``-k``
    (``--keep-old-files``, ``--skip-old-files``) only adds, ``-O`` (``--to-stdout``) writes no
    file. ``tar -c`` (``--create``) overwrites its ``-f`` archive."""
    from labledger.reconcile.archive_members import Unpack

    operands, valued, flags = _options(_tar_words(args), _TAR_VALUES)
    archive = valued.get("-f", valued.get("--file"))
    if flags & {"c", "--create"} and archive not in (None, "-"):
        return [_Write(archive, _OVERWRITES)]  # the archive it makes
    if not flags & {"x", "--extract", "--get"} or flags & {"O", "--to-stdout", "--to-command"}:
        return []
    how = _ADDS if flags & {"k", "--keep-old-files", "--skip-old-files"} else _OVERWRITES
    folder = valued.get("-C", valued.get("--directory", "."))
    unpack = None
    strip = valued.get("--strip-components", "0")
    if archive not in (None, "-") and strip.isdigit() and not (
            valued.keys() & {"--transform", "--xform"}):
        # (`-T` names members in a file not read here: all of them count)
        unpack = Unpack(str(archive), "tar", folder, strip=int(strip),
                        keep_unsafe=bool(flags & {"P", "--absolute-names"}),
                        only=() if valued.keys() & {"-T", "--files-from"} else tuple(operands),
                        left_out=tuple(_every_value(_tar_words(args), _TAR_VALUES,
                                                    {"--exclude"})))
    if "-T" in valued or "--files-from" in valued or not operands or any(
            _may_be_an_option(o) or any(c in o for c in "*?[") for o in operands):
        return [_Write(folder, how, inside=True, unpack=unpack)]
    # (the members it names land at their names; read, the archive says where else)
    return [_Write(os.path.join(folder, m), how) for m in operands] + (
        [_Write(folder, how, unpack=unpack)] if unpack is not None else [])


def _unzip_writes(args: list[str]) -> list[_Write]:
    """What ``unzip ARCHIVE [MEMBER...] [-x MEMBER...] [-d DIR]`` unpacks: with ``-o`` it
    overwrites existing files (without, it asks, and with no one to answer it keeps them:
    Info-ZIP unzip 6.0 with standard input at its end or closed answers "[N]one"; ``-n`` keeps
    them; ``-l``, ``-t``, ``-v``, ``-p``, ``-Z`` write none). Members named: each at its name
    in DIR; else anything there (`_Write.inside`), but where the archive can be read its
    members are where it writes (`_unpacked`: ``-j``, ``-:``, ``-C``, the names on the line
    and those after ``-x``, left out, applied)."""
    from labledger.reconcile.archive_members import Unpack

    operands, valued, flags = _options(args, {"-d", "-x", "-P"})
    if flags & {"l", "t", "v", "p", "Z", "c", "z"} or not operands:
        return []
    how = _OVERWRITES if "o" in flags else _ADDS
    folder = valued.get("-d", ".")
    members = operands[1:]
    named, left_out = _unzip_named(args)
    unpack = Unpack(operands[0], "zip", folder, junk="j" in flags, keep_unsafe=":" in flags,
                    only=tuple(named), left_out=tuple(left_out), nocase="C" in flags)
    if not members or any(c in m for m in members for c in "*?[$`"):
        return [_Write(folder, how, inside=True, unpack=unpack)]
    # (the members it names land at their names; read, the archive says where else)
    return [_Write(os.path.join(folder, m), how) for m in members] + [
        _Write(folder, how, unpack=unpack)]


def _unzip_named(args: list[str]) -> tuple[list[str], list[str]]:
    """(the members ``unzip``'s line names to unpack, those it leaves out): the words after
    the archive, up to an option; after ``-x``, the ones left out."""
    named: list[str] = []
    left_out: list[str] = []
    archive_seen, skip, excluding = False, False, False
    for word in args:
        if skip:
            skip = False
            continue
        if word.startswith("-") and word != "-":
            excluding = word == "-x"
            skip = word in ("-d", "-P")
            continue
        if excluding:
            left_out.append(word)
        elif archive_seen:
            named.append(word)
        archive_seen = archive_seen or not excluding
    return named, left_out


def _7z_writes(args: list[str]) -> list[_Write]:
    """What ``7z x|e ARCHIVE`` unpacks into ``-oDIR`` (also ``-o DIR``; else where it runs):
    it overwrites with ``-aoa`` or ``-y`` (yes to every question; without either it asks:
    read as yes); ``-aos``, ``-aou``, ``-aot`` keep existing files. Its members are not read:
    anything in that folder (`_Write.inside`)."""
    if not args or args[0] not in ("x", "e"):
        return []
    folder, k = ".", 1
    while k < len(args):
        word = args[k]
        if word.startswith("-o") and not word.startswith("-ao"):
            folder = word[2:] or (args[k + 1] if k + 1 < len(args) else ".")
            k += 0 if word[2:] else 1
        k += 1
    keeps = any(w in ("-aos", "-aou", "-aot") for w in args)
    return [_Write(folder, _ADDS if keeps else _OVERWRITES, inside=True)]


# the commands that write the files their words name, and how each is read
_WRITERS: dict[str, Callable[[str, list[str]], list[_Write]]] = {
    "cp": _copy_writes, "mv": _copy_writes, "ln": _copy_writes, "install": _copy_writes,
    "rsync": lambda _, args: _rsync_writes(args), "scp": lambda _, args: _scp_writes(args),
    "dd": lambda _, args: _dd_writes(args),
    "tee": _tee_writes, "sponge": _tee_writes,
    "truncate": lambda _, args: _truncate_writes(args),
    "sed": lambda _, args: _sed_in_place(args), "gsed": lambda _, args: _sed_in_place(args),
    "perl": lambda _, args: _perl_in_place(args),
    "gawk": lambda _, args: _awk_in_place(args), "awk": lambda _, args: _awk_in_place(args),
    "curl": lambda _, args: _curl_writes(args), "wget": lambda _, args: _wget_writes(args),
    "tar": lambda _, args: _tar_writes(args), "gtar": lambda _, args: _tar_writes(args),
    "bsdtar": lambda _, args: _tar_writes(args), "unzip": lambda _, args: _unzip_writes(args),
    **{name: lambda _, args: _7z_writes(args) for name in ("7z", "7za", "7zz", "7zr")},
    **{name: _hub_writes for name in ("huggingface-cli", "hf", "wandb", "kaggle", "gdown")},
}
# how each writer treats the files xargs appends to it (the last of a copy's is where it lands)
_APPENDED_HOW = {"cp": _OVERWRITES, "install": _OVERWRITES, "mv": _REPLACES, "ln": _REPLACES,
                 "dd": _OVERWRITES,
                 "rsync": _OVERWRITES, "scp": _OVERWRITES, "tee": _TRUNCATES, "sponge": _OVERWRITES,
                 "truncate": _TRUNCATES, "sed": _EDITS, "gsed": _EDITS, "perl": _EDITS,
                 "gawk": _EDITS, "awk": _EDITS}


def _writes(cmd: Any) -> list[_Write]:
    """The files the simple command ``cmd`` writes here: its redirections, and what a writer
    (`_WRITERS`) writes. Run by xargs, what it is given when it runs may be more files (the
    last operand of a copy: where it lands): a write of a computed file, unless its words
    already say where (``cp -t DIR``) or it edits nothing (``sed`` without ``-i``)."""
    if cmd.remote or not cmd.argv:
        return []
    found = _redirected(cmd.argv, _quote_masks(cmd))
    reader = _WRITERS.get(cmd.name)
    if cmd.name in CLOUD_TOOLS:
        # (a download: into a folder, anything there; one object, onto DEST or DEST/NAME)
        return found + [_Write(w.dest, _ADDS if w.keeps else _OVERWRITES, inside=True)
                        if w.inside else
                        _Write(w.dest, _ADDS if w.keeps else _OVERWRITES, [w.source], None)
                        for w in cloud_writes(cmd.name, _without_redirections(cmd.argv[1:]))]
    if reader is None:
        return found
    args = _without_redirections(cmd.argv[1:])
    own = reader(cmd.name, args)
    if not cmd.appended or cmd.name not in _APPENDED_HOW or not (
            own or cmd.name not in ("sed", "gsed", "perl", "gawk", "awk")):
        return found + own
    if cmd.name in ("cp", "mv", "ln", "install", "scp"):
        given = [w for w in own if w.given]
        if given:  # `xargs cp -t DIR`: what xargs appends are sources, landing in DIR
            return found + [replace(w, sources=[*(w.sources or []), "\0"]) for w in given]
        own = []  # the last word xargs appends is where the others land
    own.append(_Write("(files read when it runs)", _APPENDED_HOW[cmd.name], computed=True))
    return found + own


def _writes_here(parsed: list[Any], base: Path, home: Path,
                 guarded: Callable[[], list[Path]]) -> bool:
    """Some write of the line may destroy protected bytes (`_write_hit`), as far as can be
    told without reading every line of the ledger: one into ``home`` (the ledger folder; its
    cache aside), at a computed path, or one that destroys a file (a glob: what it matches; a
    recursive copy: where it lands) in a folder of ``guarded()`` (the export roots and the
    recorded capsules, `_guarded_folders`: read once, when a write asks; failing to read
    them counts). An append, or a new file, outside the ledger destroys nothing a capsule or
    an export root holds (``python train.py >> log``, ``> new.log``), and an overwrite
    outside them nothing protected (``python train.py > train.log``): the ledger is not
    verified for them. A path through a symbolic link counts where it points too."""
    bases = _line_bases(parsed, base)
    spared = home / "cache"
    folders: list[list[Path] | None] = []

    def protected() -> list[Path] | None:
        if not folders:
            try:
                folders.append([home, *guarded()])
            except Exception:  # noqa: BLE001 - they cannot be told: every write may count
                folders.append(None)
        return folders[0]

    def in_ledger(p: Path) -> bool:
        return (home == p or home in p.parents) and spared not in (p, *p.parents)

    def twinned(p: Path) -> bool:  # a file with another name in a protected folder
        if not _linked_twice(p):
            return False
        roots = protected()
        return roots is None or any(
            _hard_link_twin(p, r, spared if r == home else None) is not None for r in roots)

    def destroys_there(w: _Write, places: list[Path], globs: list[str]) -> bool:
        if not w.tree:  # a file there now (what does not exist is not destroyed)
            places = [p for p in places if os.path.lexists(p) and (w.inside or not p.is_dir())]
        if w.how not in _DESTROYING or not (places or globs):
            return False
        roots = protected()
        if roots is None:
            return True
        if w.tree:  # what lands where is read by the full judgment (`_tree_hit`)
            return any(_overlaps(p, r) for p in places for r in roots) or any(
                next(_glob_places(g, r), None) is not None for g in globs for r in roots)
        return any(r == p or r in p.parents for p in places for r in roots) or any(
            next(_glob_places(g, r), None) is not None for g in globs for r in roots)

    def unpacks_above(unpack: Unpack, places: list[Path]) -> bool:
        # an archive here unpacked above a protected folder, or keeping `..` and absolute
        # names: its members may land in one (read by the full judgment, `_unpacked`)
        if not any(_archive_at(unpack, b) is not None for b in bases):
            return False
        roots = protected()
        return roots is None or unpack.keep_unsafe or any(
            p in r.parents for p in places for r in roots)

    for cmd in parsed:
        for w in _writes(cmd):
            if w.computed:
                return True
            for landing, _ in _landings(w, bases):
                if cmd.dynamic and "{}" in landing:
                    return True
                for each in _braces(landing):
                    places, globs, computed = _expand(each, bases)
                    places += _linked(places)
                    if computed or any(in_ledger(p) or w.tree and _overlaps(p, home)
                                       or twinned(p) for p in places) or \
                            w.unpack is not None and unpacks_above(w.unpack, places) or any(
                            next(_glob_places(g, home), None) is not None for g in globs) or \
                            destroys_there(w, places, globs):
                        return True
    return False


def _linked(places: list[Path]) -> list[Path]:
    """Where the paths ``places`` lead through symbolic links, when elsewhere: the kernel
    follows them when it opens a path for writing (``: > L/config.toml`` with ``L ->
    .labledger``; ``> m.json`` with ``m.json`` a link to a capsule's file)."""
    found: list[Path] = []
    for p in places:
        real = Path(os.path.realpath(p))
        if real != p:
            found.append(real)
    return found


def _read_once(read: Callable[[], list[Path]]) -> Callable[[], list[Path]]:
    """``read``, called at most once: its list (or its exception) kept for later calls."""
    kept: list[list[Path] | Exception] = []

    def once() -> list[Path]:
        if not kept:
            try:
                kept.append(read())
            except Exception as exc:  # noqa: BLE001 - raised again to every caller
                kept.append(exc)
        got = kept[0]
        if isinstance(got, Exception):
            raise got
        return got

    return once


def _guarded_folders(project: Path, export_roots: Iterable[str]) -> list[Path]:
    """The folders a write that destroys a file counts in, besides the ledger: the export
    roots and the recorded capsules, from the ledger's `capsule.sealed` lines alone (each
    verified; damage raises). The agent cannot have written the ledger (any write into it
    counts), and the full judgment of a write that lands in one reads every line."""
    from labledger.ledger.ledger import Ledger

    found = [_resolve(project, r) for r in export_roots]
    with Ledger.open(project) as ledger:
        for record in ledger.records(kinds=("capsule.sealed",)):
            path = record.body_dict().get("path")
            if isinstance(path, str):
                found.append(_resolve(project, path))
    return found + [real for f in found for real in [_real(f)] if real != f]


@dataclass
class _WriteTarget:
    """One place a command writes (`_Write`, resolved from each working folder): where it
    lands, how, whether its path is computed when it runs (then ``places`` are the folders it
    lands somewhere below, and ``feed`` the text that may name it, as for a delete), and for a
    recursive copy the folder copied there (None: it cannot be read here)."""

    written: str
    places: list[Path]
    how: str
    command: str
    computed: bool = False
    feed: str = ""
    globs: list[str] = field(default_factory=list)
    tree: bool = False
    source: Path | None = None
    inside: bool = False  # files of names not known here, written into the folder (`_Write`)
    # an archive unpacked: where its members land (`_member_places`: `_member_hit`)
    members: list[str] | None = None

    def places_near(self, root: Path) -> Iterable[Path]:
        yield from self.places
        for pattern in self.globs:
            yield from _glob_places(pattern, root)


def _write_targets(cmd: Any, bases: list[Path], feeds: _Feeds,
                   earlier: Collection[_WriteTarget] = ()) -> list[_WriteTarget]:
    """Where the writes of ``cmd`` land (`_writes`, `_landings`), from each working folder:
    a variable the line assigns a literal is replaced by it (``F=x; : > $F``); ``{}`` of a
    command run by ``find -exec`` or ``xargs -I{}`` is computed, as ``$F`` is. An archive
    unpacked writes its members where it can be read (`_unpacked`; ``earlier``: the writes
    of the commands before it on the line)."""
    command = _said(cmd)
    found: list[_WriteTarget] = []
    fed: list[str] = []  # what feeds it, read once when a path asks

    def feed() -> str:
        if not fed:
            fed.append(feeds.of(cmd))
        return fed[0]

    for w in _writes(cmd):
        if w.unpack is not None:
            read = None if cmd.dynamic else _unpacked(w.unpack, bases, earlier)
            if read is not None:
                found.append(_WriteTarget(w.unpack.archive, [], w.how, command,
                                          members=_member_places(read.names)))
            if read is not None and read.whole or not w.inside:
                continue  # (named on its line, not read: those names are its writes)
            # (not read, or only its first members: the rest anywhere in its folder)
        if w.computed:
            found.append(_WriteTarget(w.dest, [], w.how, command, True, feed(),
                                      tree=bool(w.tree)))
            continue
        for landing, source in _landings(w, bases):
            if cmd.dynamic:
                landing = landing.replace("{}", "\0")
            for base in bases:
                # ($PWD, $(pwd): the folder it runs in, never the hook's own, whatever the
                # environment)
                word = _known_folders(landing, base)
                words = (_literal_values(word, feed()) or [word]) if "$" in word else [word]
                for each in (b for v in words for b in _braces(v)):
                    places, globs, computed = _expand(each, [base])
                    places += _linked(places)
                    found.append(_WriteTarget(
                        each, places, w.how, command, computed, feed() if computed else "",
                        globs, source is not None, _readable(source, bases), w.inside))
    return found


def _unpacked(unpack: Unpack, bases: list[Path],
              earlier: Collection[_WriteTarget]) -> Read | None:
    """Where the members of the archive ``unpack`` land from each working folder
    (`archive_members.landings`: a tar past its limits, the first ones); None when that
    cannot be told here: a name or folder computed when it runs or a glob, an archive that
    cannot be read (not a regular file, a zip past the limits: `archive_members`), or one a
    command before it on the line may write (``curl -o a.zip URL && unzip -o a.zip``: what
    it will hold is not what it holds now)."""
    from labledger.reconcile.archive_members import Read, landings

    if any(c in word for word in (unpack.archive, unpack.folder) for c in "$`*?[{\0"):
        return None
    found: Read | None = None
    for base in bases:
        archive = _archive_at(unpack, base)
        if archive is None:  # (from a folder where it is not, it unpacks nothing)
            continue
        if any(t.computed or t.globs or any(
                p == archive or (t.inside or t.tree) and p in archive.parents
                for p in t.places) or t.members is not None and str(archive) in t.members
                for t in earlier):
            return None
        read = landings(unpack, archive)
        if read is None:
            return None
        here = [os.path.normpath(os.path.join(base, n)) for n in read.names]
        found = Read([*(found.names if found else []), *here],
                     read.whole and (found is None or found.whole))
    return found


def _archive_at(unpack: Unpack, base: Path) -> Path | None:
    """The archive ``unpack`` reads, run in ``base``, where something is there (unzip tries
    ``NAME.zip`` when ``NAME`` is not); None when nothing is."""
    archive = _resolve(base, unpack.archive)
    if unpack.tool == "zip" and not os.path.lexists(archive):
        archive = archive.with_name(archive.name + ".zip")
    return archive if os.path.lexists(archive) else None


def _member_places(landings: list[str]) -> list[str]:
    """Where an archive's members land, and where through a folder that is a symbolic link
    (the kernel follows it; one realpath per folder, for thousands of members). A member's
    own name is not followed: GNU tar and unzip replace what is there (a link, or a file with
    another name, a hard link, keeps its bytes)."""
    real: dict[str, str] = {}
    found: list[str] = []
    for p in landings:
        found.append(p)
        folder, name = os.path.split(p)
        if folder not in real:
            real[folder] = os.path.realpath(folder)
        if real[folder] != folder:
            found.append(os.path.join(real[folder], name))
    return found


def _landings(w: _Write, bases: list[Path]) -> list[tuple[str, str | None]]:
    """(where it lands, the folder a recursive copy copies there) of each source of the copy
    ``w`` (a plain write: its file, None). Into a folder (``-t``, several sources, a ``/`` at
    the end, or a folder now): ``DEST/NAME``; ``rsync SRC/ DEST`` copies SRC's contents into
    DEST, ``rsync SRC DEST`` SRC itself (into it, when DEST or SRC is a folder)."""
    if w.sources is None:
        return [(w.dest, None)]
    into = w.into
    if into is None:
        into = w.dest.endswith("/") or any(_resolve(b, w.dest).is_dir() for b in bases)
    found: list[tuple[str, str | None]] = []
    for source in w.sources:
        name = os.path.basename(source.rstrip("/")) or source
        if w.tree == "rsync" and source.endswith("/"):
            landing = w.dest
        elif into or (w.tree == "rsync" and any(_resolve(b, source).is_dir() for b in bases)):
            landing = os.path.join(w.dest, name)
        else:
            landing = w.dest
        found.append((landing, source if w.tree else None))
    return found


def _readable(source: str | None, bases: list[Path]) -> Path | None:
    """A recursive copy's source as a folder here; None when it cannot be read here (on
    another machine, computed, a glob)."""
    if source is None or _remote_path(source) or any(c in source for c in "$`*?["):
        return None
    return _resolve(bases[-1], source)


def _write_hit(t: _WriteTarget, root: Path, spared: Path | None,
               always: bool) -> tuple[str, Path] | None:
    """(how, the file or folder) ``t`` writes of the protected folder ``root`` (``spared``
    aside): ``always`` (the ledger): any write into it, a new file or an append too; else
    (a capsule, an export root) only one that destroys a file it holds now (`_DESTROYING`).
    A computed path: only a folder of its fixed part inside the ledger (what may feed it is
    asked by the caller)."""
    if not always and t.how not in _DESTROYING:
        return None
    if t.members is not None:
        return _member_hit(t.members, t.how, root, spared, always)
    for p in t.places_near(root):
        if spared is not None and spared in (p, *p.parents):
            continue
        twin = None if t.tree or t.inside or t.computed else _hard_link_twin(p, root, spared)
        if twin is not None:  # the same file as one of root's, under another name
            return f"{t.how} {p}, a hard link of", twin
        if t.tree:
            found = _tree_hit(t.source, p, root, spared, always)
            if found is not None:
                # (what a source that cannot be read here holds is not known)
                return (_ADDS + " into" if always else t.how if t.source is not None
                        else "may overwrite what is in"), found
            continue
        if not (p == root or root in p.parents):
            continue
        if t.computed:
            if always:
                return f"{t.how} files whose names are computed when it runs, in", p
            continue
        if t.inside:  # what it unpacks or fetches there: any file there now
            if always or _holds_a_file(p):
                return (f"{t.how} files it names when it runs into" if always
                        else "may overwrite what is in"), p
            continue
        if p.is_dir():
            continue  # a write onto a folder fails (`> capsules/c2`: "Is a directory")
        exists = os.path.lexists(p)
        if exists or always:
            return (t.how if exists else _ADDS), p
    return None


def _member_hit(members: list[str], how: str, root: Path, spared: Path | None,
                always: bool) -> tuple[str, Path] | None:
    """(how, the file) the first member of an archive unpacked (``members``: where they land,
    `_member_places`) that lands in ``root`` (``spared`` aside) writes, as `_write_hit` judges
    a file: any in the ledger (``always``), else one there now (not a folder). Paths as text,
    not `Path`: an archive may hold 100,000 members."""
    top, skip = str(root), None if spared is None else str(spared)
    for text in members:
        if not text.startswith(top) or text[len(top):len(top) + 1] not in ("", os.sep) or (
                skip is not None and text.startswith(skip)
                and text[len(skip):len(skip) + 1] in ("", os.sep)):
            continue
        if os.path.isdir(text):
            continue  # (a folder member where a folder is: it writes no file)
        exists = os.path.lexists(text)
        if exists or always:
            return (how if exists else _ADDS), Path(text)
    return None


def _hard_link_twin(path: Path, root: Path, spared: Path | None) -> Path | None:
    """The file of ``root`` (``spared`` aside) that ``path``, outside it, is a hard link of:
    the same file (device and inode) under another name, so that writing one writes the
    other. Only a file with more than one name is looked for (a walk of ``root`` bounded by
    `_WALK_LIMIT`: past it, ``root``)."""
    try:
        if path == root or root in path.parents:
            return None
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    if st.st_nlink < 2 or not stat.S_ISREG(st.st_mode):
        return None
    try:
        if os.stat(root).st_dev != st.st_dev:  # (a hard link never crosses a file system)
            return None
    except (OSError, ValueError):
        return None
    # (scandir: a directory entry's inode comes with it, no stat per file; 20,000 files
    # walked in about 30 ms)
    seen, folders = 0, [os.fspath(root)]
    skip = None if spared is None else os.fspath(spared)
    while folders:
        try:
            entries = os.scandir(folders.pop())
        except OSError:
            continue
        with entries:
            for entry in entries:
                try:
                    if entry.is_dir(follow_symlinks=False):
                        if entry.path != skip:
                            folders.append(entry.path)
                        continue
                    seen += 1
                    if seen > _WALK_LIMIT:
                        return root
                    if entry.inode() == st.st_ino and \
                            entry.stat(follow_symlinks=False).st_dev == st.st_dev:
                        return Path(entry.path)
                except OSError:
                    continue
    return None


def _linked_twice(path: Path) -> bool:
    """``path`` is a file with more than one name (a hard link: `_hard_link_twin`)."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return False
    return st.st_nlink > 1 and stat.S_ISREG(st.st_mode)


def _holds_a_file(folder: Path) -> bool:
    """``folder`` is a file, or holds one somewhere below (a walk bounded by `_WALK_LIMIT`:
    past it, yes)."""
    if not folder.is_dir():
        return os.path.lexists(folder)
    seen = 0
    for _folder, _dirs, files in os.walk(folder):
        seen += 1 + len(_dirs)
        if files or seen > _WALK_LIMIT:
            return True
    return False


def _tree_hit(source: Path | None, landing: Path, root: Path, spared: Path | None,
              always: bool) -> Path | None:
    """What a recursive copy of ``source`` landing at ``landing`` writes of ``root``: for the
    ledger, anything it copies there (the spared cache aside); for a capsule or an export
    root, the first file of it that lands on one ``root`` holds now (a walk of the source,
    bounded by `_WALK_LIMIT`: past it, yes). A source that cannot be read here may hold
    anything."""
    if not _overlaps(landing, root):
        return None
    meet = root if landing in root.parents else landing
    if spared is not None and spared in (meet, *meet.parents):
        return None
    if source is None:
        return meet if always or os.path.lexists(meet) else None
    inner = source / meet.relative_to(landing)
    if not os.path.lexists(inner):
        return None
    if always:
        if spared is not None and meet == spared.parent and inner.is_dir():
            return meet if any(e != spared.name for e in os.listdir(inner)) else None
        return meet
    if not inner.is_dir():
        return meet if os.path.lexists(meet) and not meet.is_dir() else None
    seen = 0
    for folder, _dirs, files in os.walk(inner):
        for f in files:
            seen += 1
            there = meet / Path(folder).relative_to(inner) / f
            if seen > _WALK_LIMIT or (os.path.lexists(there) and not there.is_dir()):
                return there
    return None


def _quick_destructive(command: str, patterns: Iterable[str],
                       user_patterns: Iterable[str] = (),
                       parsed: list[Any] | None = None) -> bool:
    from labledger.reconcile.shell_words import simple_commands

    parsed = simple_commands(command) if parsed is None else parsed
    return bool(destructive_commands(command, patterns, user_patterns, parsed)) or \
        _deletes_here(parsed, command)


def _deletes_here(parsed: list[Any], command: str, cwd: str | None = None,
                  home: Path | None = None,
                  guarded: Callable[[], list[Path]] | None = None) -> bool:
    """Some command of the line (not through ssh) deletes something here, or may (a git
    command that may run a clean which cannot be read: `_unread_git_subcommand`). Given the
    line's working folder ``cwd`` (and the ledger's ``home``, the folders ``guarded()`` a write
    that destroys a file counts in: `_guarded_folders`), a Python program's write counts only
    when it may destroy a file there (`_writes_may_destroy`); without it, any write does."""
    from labledger.reconcile.shell_words import TOO_DEEP

    changes = _GitChanges(parsed, None, command)
    bases = [Path(cwd)] if cwd is not None else []
    for n, c in enumerate(parsed):
        if c.remote:
            continue
        if bases and c.name in ("cd", "pushd") and not c.dynamic:  # as `_judge_deletes`
            folder = next((a for a in c.argv[1:] if not a.startswith("-")), "~")
            bases.append(_resolve(bases[-1], folder.replace("~+", str(bases[-1]))))
        if (_deleted(c.argv) is not None or _program_deletes(c)
                or (_program_writes(c) and (
                    not bases or _writes_may_destroy(c, bases, home, guarded)))
                or (c.name == TOO_DEEP and _DELETE_WORD.search(c.argv[1]) is not None)
                or _unread_git_subcommand(c, changes, n) is not None
                or (c.name == "git" and _stash_may_reach(c, bases, home, guarded, changes, n))
                or (_applied(c) is not None and _patch_may_reach(c, bases, home, guarded,
                                                                 parsed[:n], command))
                or (c.name == "git" and _hard_reset(_git_where(c.argv[1:])[1])
                    and bool(changes.staged_before(n)[0]))
                or (c.name == "git" and _rewrite_may_reach(c, bases, home, guarded,
                                                           changes, n))
                or _hard_link_sources(c)):
            return True
    return False


def _stash_may_reach(cmd: Any, bases: list[Path], home: Path | None,
                     guarded: Callable[[], list[Path]] | None, changes: _GitChanges,
                     n: int) -> bool:
    """The git command ``cmd``, the n-th of its line, is a ``git stash`` that takes staged
    files out of the work tree (`_stash_staged_target`) or a ``drop``/``clear`` that loses
    what it stashed (`_stash_drop_targets`), and git says one of them is in the ledger's
    ``home`` or a folder of ``guarded()`` (asked read-only: a ``git stash`` with nothing of
    them staged, a drop with no stash there, reads no ledger: 2 s for 50,000 events). No
    working folder or ledger known: yes."""
    rest = _git_where(cmd.argv[1:])[1]
    if _stash_staged_pathspecs(rest) is None and _stash_dropped(rest) is None and \
            _history_question(rest) is None:
        return False
    if not bases or home is None or guarded is None:
        return True
    staged = _stash_staged_target(cmd, bases, bases[-1], changes, n)
    merged = _history_target(cmd, bases, bases[-1])
    targets = [*([staged] if staged is not None else []),
               *([merged] if merged is not None else []),
               *_stash_drop_targets(cmd, bases, bases[-1], changes, n)]
    try:
        roots = [home, *guarded()]
    except Exception:  # noqa: BLE001 - they cannot be told: it may reach one
        return True
    for t in targets:
        for root in roots:
            for place in {root, _real(root)}:  # (git names real paths)
                spared = place / "cache" if root == home else None
                if t.staged is not None and t.staged.removes(place, spared):
                    return True
                if not any(_overlaps(p, place) for p in t.places):
                    continue
                git = t.git
                # (what an earlier `git add` stages there, where git cannot be asked, what
                # an earlier command may change: it may)
                if not isinstance(git, _GitRewrite) or git.folders is None or git.widened \
                        or git.removes(place, spared):
                    return True
    return False


def _patch_may_reach(cmd: Any, bases: list[Path], home: Path | None,
                     guarded: Callable[[], list[Path]] | None, earlier: list[Any],
                     line: str) -> bool:
    """The patch ``cmd`` applies (`_applied`) may change a file of the ledger's ``home`` or
    a folder of ``guarded()``: one it names is there (`_patch_targets`; ``earlier``: the
    commands of the ``line`` before it), or it cannot be read here. No working folder or
    ledger known, or the folders cannot be told: yes."""
    if not bases or home is None or guarded is None:
        return True
    deletes, writes = _patch_targets(cmd, bases, bases[-1], earlier, line)
    places = [p for t in deletes for p in t.places] + [p for w in writes for p in w.places]
    if not places:
        return False
    try:
        roots = [home, *guarded()]
    except Exception:  # noqa: BLE001 - they cannot be told: it may reach one
        return True
    return any(_overlaps(p, r) for p in places for r in roots)


def _rewrite_may_reach(cmd: Any, bases: list[Path], home: Path | None,
                       guarded: Callable[[], list[Path]] | None, changes: _GitChanges,
                       n: int) -> bool:
    """The git command ``cmd``, the n-th of its line, writes tracked files back
    (`_git_rewrite`) where a protected folder may be: its pathspecs reach the ledger's
    ``home`` or a folder of ``guarded()`` (``git checkout -- src/train.py`` does not: git is
    not asked, the ledger not read), and git says it changes a file there (`_GitRewrite`:
    ``git reset --hard`` over changes in src/ alone, with the ledger tracked, does not); after
    an earlier command that may change what it writes (`_git_rewrite_target`), git tracks a
    file there. A computed pathspec, or no working folder or ledger known: yes."""
    if not bases or home is None or guarded is None:
        return _git_rewrite(_git_where(cmd.argv[1:])[1], lambda _: True) is not None
    target = _git_rewrite_target(cmd, bases, bases[-1], changes, n)
    if target is None:
        return False
    if target.computed:
        return True
    try:
        roots = [home, *guarded()]
    except Exception:  # noqa: BLE001 - they cannot be told: it may reach one
        return True
    reached = [r for r in roots if any(_overlaps(p, r) for p in target.places)]
    git = target.git
    if not reached or not isinstance(git, _GitRewrite) or git.folders is None:
        return bool(reached)
    if not git.widened:  # (git's answer: the ledger is read when it names a file there)
        return any(git.removes(place, place / "cache" if r == home else None)
                   for r in reached for place in {r, _real(r)})  # (git names real paths)
    # (git writes back tracked files only: a switch or a reset of a work tree whose protected
    # folders git does not track, the usual layout, does not read the ledger)
    return any(_tracks_some(folder, reached) is not False for folder in git.folders)


def _tracks_some(folder: Path, roots: list[Path]) -> bool | None:
    """git, asked in ``folder`` (read-only), tracks a file in one of ``roots`` (those in its
    work tree); None when it cannot answer."""
    top = _git_asked(folder, ["rev-parse", "--show-toplevel"])
    if top is None or not top.strip():
        return None
    tree = Path(os.fsdecode(top.rstrip(b"\n")))
    inside = [str(r) for r in roots if _overlaps(r, tree) or r == tree]
    if not inside:
        return False
    listed = _git_asked(folder, ["ls-files", "-z", "--", *inside])
    return None if listed is None else bool(listed.strip(b"\0"))


def looks_destructive(text: str, cwd: str | None = None) -> bool:
    """For input that could not be parsed (not JSON) or judged: does its text hold a destroy
    pattern, a delete, a write that may destroy protected bytes (`_writes_here`, of the
    project found from ``cwd``: default, this process's folder), or a labledger decision? The
    text as a whole is searched, and so is each string literal in it (``{"command": "sudo
    shutdown -h now"`` is judged as the command ``sudo shutdown -h now``: patterns anchored at
    a command's start must see it). Too long to read: yes (fail closed)."""
    from labledger.reconcile.shell_words import simple_commands

    if len(text) > MAX_COMMAND_CHARS:
        return True
    patterns: list[str] = list(BUILTIN_PATTERNS)
    try:
        patterns = load_config(None).patterns.all()
    except Exception:  # noqa: BLE001 - fail closed on the built-ins alone
        pass
    if matching_patterns(text, patterns) or re.search(r"\brm\s+(-\w*[rR]|--recursive)", text):
        return True
    for candidate in [text, *_string_literals(text)]:
        parsed = simple_commands(candidate)
        if _quick_destructive(candidate, patterns, (), parsed) or \
                person_decisions(parsed, candidate, Path.cwd()) or \
                _project_writes(parsed, cwd):
            return True
    return False


def _project_writes(parsed: list[Any], cwd: str | None) -> bool:
    """A write of ``parsed`` may destroy bytes the project found from ``cwd`` protects, as
    far as can be told without reading its ledger (`_writes_here`); no project, no."""
    from labledger.ledger.root import find_root

    base = Path(os.path.abspath(cwd)) if cwd else Path.cwd()
    try:
        paths = find_root(None, cwd=base)
    except Exception:  # noqa: BLE001 - no ledger here: nothing is protected
        return False
    return _writes_here(parsed, base, paths.home, lambda: _guarded_folders(
        paths.project, load_config(paths.home).export_roots))


def _string_literals(text: str) -> list[str]:
    """The JSON string literals of a text that is not JSON (the last may be unclosed), decoded
    when they can be."""
    found: list[str] = []
    for m in re.finditer(r'"((?:[^"\\]|\\.)*)("?)', text):
        body = m.group(1)
        try:
            found.append(json.loads('"' + body + '"'))
        except ValueError:
            found.append(body)
    return found


# --- judging ------------------------------------------------------------------------------------
def _mentions(command: str, word: str, *, ignore_case: bool = False) -> bool:
    return bool(word) and re.search(r"(?<![\w.-])" + re.escape(word) + r"(?![\w-])",
                                    command, re.IGNORECASE if ignore_case else 0) is not None


# A run of what an IP address may be written with (IPv6 groups, IPv4 dots, a %zone): cut at
# '@', brackets, spaces and quotes, as ``root@[2001:db8::22]:22`` and ``'...'`` write it.
_ADDRESS_RUN = re.compile(r"[0-9A-Za-z:.%_-]+")


def _mentions_host(command: str, recorded: str) -> bool:
    """Whether ``command`` names the host of the recorded ``[user@]HOST[:PORT]``: an address
    however it is written there (any case, zeros written out or not: `host_key`), a name in
    any case. Hosts recorded before `canonical_host` normalised them (``root@[2001:DB8::22]``)
    match the same way."""
    from labledger.ingest.ssh_url import host_key

    host = _host_of(recorded)
    want = host_key(host)
    if isinstance(want, str):
        return _mentions(command, host, ignore_case=True)
    return any(host_key(run) == want or host_key(run.rstrip(":")) == want
               for run in _ADDRESS_RUN.findall(command) if ":" in run or "." in run)


def _ssh_hostname(destination: list[str], cwd: str | None) -> str | None:
    """The host name ssh would connect to for ``destination`` (its -F/-o options, then the
    host as written), or None when that cannot be told.

    A ``-o HostName=`` or a ``-F`` file named in the command is read here, in Python (only
    ``Host``/``HostName``; ``Match exec`` and ``Include`` are never run: the hook must not
    execute what the command it judges brings). Otherwise ``ssh -G`` applies the user's own
    ssh config, as their ssh would, within two seconds."""
    import fnmatch
    import subprocess

    if not destination or destination[-1].startswith("-"):
        return None
    host, options = destination[-1].rsplit("@", 1)[-1], destination[:-1]
    config: str | None = None
    for flag, value in zip(options[::2], options[1::2], strict=False):
        key, _, given = value.replace("=", " ", 1).partition(" ")
        if flag == "-o" and key.lower() == "hostname" and given.strip():
            return given.strip()
        if flag == "-F":
            config = value
    if config is not None:
        try:
            text = Path(cwd or ".", config).expanduser().read_text(encoding="utf-8",
                                                                   errors="replace")
        except OSError:
            return None
        matching = False
        for line in text.splitlines():
            key, _, value = line.strip().replace("=", " ", 1).partition(" ")
            if key.lower() == "host":
                matching = any(fnmatch.fnmatchcase(host, p) for p in value.split())
            elif key.lower() == "match":
                matching = False  # conditions that may run commands: not evaluated
            elif matching and key.lower() == "hostname" and value.strip():
                return value.strip().replace("%h", host)
        return host
    try:
        done = subprocess.run(["ssh", "-G", "--", destination[-1]], capture_output=True,
                              text=True, timeout=2, check=False, cwd=cwd or None,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return None
    for line in done.stdout.splitlines():
        key, _, value = line.partition(" ")
        if key == "hostname" and value:
            return value.strip()
    return None


def _host_of(host: str) -> str:
    """The host of a recorded ``[user@]HOST[:PORT]``: without user and port, an IPv6 address
    without the brackets `rent --host` records it in (``root@[fe80::1]:22`` -> ``fe80::1``,
    as a command line or ``ssh -G`` writes it); one recorded bare (``root@fe80::1``) as it is."""
    host = host.rpartition("@")[2]
    if host.startswith("["):
        return host[1:].partition("]")[0]
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def judge(command: str, cwd: str | None, root: str | None) -> Verdict:
    """Judge one shell command (see the module docstring). May raise: the caller fails closed."""
    from labledger.ledger.root import DIRNAME, find_root
    from labledger.reconcile.shell_words import simple_commands

    if len(command) > MAX_COMMAND_CHARS:
        return Verdict(allowed=False, destructive=True, reasons=[
            f"the command line is {len(command)} characters long, over the "
            f"{MAX_COMMAND_CHARS} the hook reads, so it cannot be judged (fail closed); "
            "write long data to a file with the agent's file tools instead"])
    # a relative cwd (`"cwd": "."`) is relative to where the agent started the hook: every
    # path below is compared absolute, so it is made absolute once, here
    cwd = os.path.abspath(cwd) if cwd else None
    try:
        paths = find_root(root, cwd=Path(cwd) if cwd else None)
    except Exception:  # noqa: BLE001 - no ledger here: fall back to the patterns alone
        paths = None
    home = paths.home if paths is not None else None
    config = load_config(home)
    # once: every check below reads these (program files: from the payload's cwd)
    parsed = simple_commands(command, cwd)
    decisions = person_decisions(parsed, command, Path(cwd) if cwd else Path.cwd())
    _Budget.left = USER_PATTERN_BUDGET_S
    try:
        destroys = destructive_commands(command, config.patterns, config.user_patterns,
                                        parsed)
    except PatternTimeout as exc:
        return Verdict(allowed=False, destructive=True, reasons=[*decisions, (
            f"the .labledger/hook.toml pattern {exc.pattern!r} took over "
            f"{USER_PATTERN_BUDGET_S:g} s to search this command (it backtracks: nested "
            "quantifiers like `(a+)+`), so the command cannot be judged (fail closed); "
            "simplify the pattern")])
    guarded = None if paths is None else _read_once(
        functools.partial(_guarded_folders, paths.project, config.export_roots))
    writes = paths is not None and guarded is not None and _writes_here(
        parsed, Path(cwd) if cwd else Path.cwd(), paths.home, guarded)
    # (no project here: a write may still land in another's, `_judge_elsewhere`)
    writes = writes or (paths is None and any(not c.remote and _writes(c) for c in parsed))
    if not destroys and not _deletes_here(parsed, command, cwd or os.getcwd(), home,
                                          guarded) and not writes:
        return Verdict(allowed=not decisions, destructive=bool(decisions), reasons=decisions)
    if paths is None:
        if destroys:
            decisions.append(
                f"no labledger ledger found from {cwd or os.getcwd()} (looked for {DIRNAME}/), "
                "so nothing shows this instance's results were pulled and verified")
        # (no project here: another's ledger a delete reaches is still protected)
        if any(not c.remote and (_deleted(c.argv) is not None or _program_deletes(c)
                                 or _writes(c)) for c in parsed):
            here = cwd or os.getcwd()
            decisions += _judge_deletes(parsed, command, here, config, Path(here), [], None,
                                        own=False)
        return Verdict(allowed=not decisions, destructive=True, reasons=decisions)
    verdict = _judge_with_ledger(command, parsed, destroys, cwd, config, paths.project)
    verdict.reasons[:0] = decisions
    verdict.allowed = not verdict.reasons
    return verdict


def _judge_with_ledger(command: str, parsed: list[Any], destroys: list[_Destroy],
                       cwd: str | None, config: HookConfig, project: Path) -> Verdict:
    from labledger.ledger.ledger import Ledger
    from labledger.reconcile.pull_verified import ObjectChecker, gate_events, record_corrupt
    from labledger.reconcile.pull_verified import open_store as store_of

    with Ledger.open(project) as ledger:
        events = gate_events(ledger)  # every line verified: damage anywhere stops a destroy
        checker = ObjectChecker(store_of(ledger))
        try:
            reasons = _judge_deletes(parsed, command, cwd, config, project, events, checker)
            if destroys:
                reasons += _judge_destroys(destroys, cwd, ledger, events, checker)
        finally:
            # what the checks found corrupt the store has moved to quarantine: recorded, as
            # `gate teardown` does (the event is the evidence of what was moved, and of why)
            record_corrupt(ledger, checker)
    return Verdict(allowed=not reasons, destructive=True, reasons=reasons)


def _judge_destroys(destroys: list[_Destroy], cwd: str | None, ledger: Any,
                    events: list[Any], checker: Any) -> list[str]:
    """Reasons to refuse the destroys: each instance they stand for whose gate refuses now and
    that has no approval bound to the gate's current state."""
    from labledger.ingest.ssh_url import same_host
    from labledger.reconcile.pull_verified import evaluate_gate
    from labledger.reconcile.teardown import approved_for, is_gone

    instances: dict[str, str | None] = {}
    for e in events:
        if e.instance is not None:
            if e.kind == "instance.rented":
                instances[e.instance] = e.body.get("host")
            else:
                instances.setdefault(e.instance, None)
    gone = {i for i in instances if is_gone(events, i)}
    live = [i for i in instances if i not in gone]
    # instance -> how the command stands for it: named, or (names none / computed) as live
    named: dict[str, str] = {}
    for destroy in destroys:
        # Only what the destroying command itself names counts ("... && echo 111" names
        # nothing it destroys), and nothing it computes when it runs.
        matched = [] if destroy.dynamic else [
            i for i, host in instances.items()
            if _mentions(destroy.context, i)
            or _mentions(destroy.context, re.split(r"[-_]", i)[-1])
            or (host and _mentions_host(destroy.context, host))]
        if destroy.remote and not matched and destroy.destination:
            # `ssh box '...'` where box is an ssh config alias of a recorded host
            real = _ssh_hostname(destroy.destination, cwd)
            matched = [i for i, host in instances.items()
                       if real and host and same_host(_host_of(host), real)]
        if destroy.remote and destroy.on_box and not matched and not destroy.dynamic:
            continue  # `ssh devbox 'pkill -f jupyter'`: a machine not in the ledger
        # (a provider's CLI or API, `scancel`, run through ssh on any machine acts on the
        # provider account, not on that machine: `ssh login1 'scancel -u me'` is judged as
        # it would be here)
        # A released (or confirmed absent) instance is no longer ours: its id names nothing
        # this project still holds, so a command naming only such ones is not gated (and
        # `labledger teardown` refuses it: advice to run it could not be followed).
        for instance in matched:
            if instance not in gone:
                named[instance] = "named"
        if not matched:
            for instance in live:
                named.setdefault(instance, "computed" if destroy.dynamic else "none")
    reasons: list[str] = []
    for instance, how in named.items():
        gate = evaluate_gate(ledger, instance, events=events, checker=checker)
        if gate.ok or approved_for(events, gate) is not None:
            continue
        unmet = gate.unmet()
        shown = "; ".join(unmet[:5]) + (f"; and {len(unmet) - 5} more"
                                        if len(unmet) > 5 else "")
        what = f"instance {instance!r}" if how == "named" else (
            f"live instance {instance!r} (the command names none of the recorded "
            "instances, so each live one counts)" if how == "none" else
            f"live instance {instance!r} (the command names none of the recorded "
            "instances as written: what it acts on is computed when it runs, so each live "
            "one counts)")
        reasons.append(f"{what} is not pull-verified: {shown}. {_advice(instance)}")
    return reasons


def _advice(instance: str) -> str:
    """What to do about a refused destroy: steps that can be run as written (the agent's own,
    and the override that only a person may record)."""
    return (f"Pull and verify its runs (`labledger gate teardown --instance {instance}` says "
            f"what is missing), then destroy it through `labledger teardown --instance "
            f"{instance} -- COMMAND`; to destroy it anyway, a person must run `labledger "
            f"teardown --instance {instance} --override REASON` in their own terminal")


def _judge_deletes(parsed: list[Any], command: str, cwd: str | None, config: HookConfig,
                   project: Path, events: list[Any], checker: Any, own: bool = True
                   ) -> list[str]:
    """Reasons to refuse the deletes of ``command``: of the ledger itself (but its cache), of
    an export root, of a recorded capsule whose stored copy does not verify (each: the folder,
    one above it, or something inside it), and of another project's ledger it reaches
    (`_other_homes`). ``own`` false: no project was found from the working folder (then
    ``project`` is that folder, and only other projects' ledgers are protected)."""
    from labledger.reconcile.shell_words import TOO_DEEP

    base = Path(cwd) if cwd else Path.cwd()
    bases = [base]
    targets: list[_Target] = []
    feeds = _Feeds(parsed, command)
    changes = _GitChanges(parsed, feeds, command, base)
    writes: list[_WriteTarget] = []
    for n, cmd in enumerate(parsed):
        if cmd.remote:
            continue
        writes += _write_targets(cmd, bases, feeds, writes)
        unread = _unread_git_subcommand(cmd, changes, n)
        if unread is not None:
            # judged as a clean git cannot be asked about, of all its repository (`:/`)
            tops = _repository_tops(cmd.argv, bases, project)
            targets.append(_Target("(a git clean)", tops, [], True, _said(cmd),
                                   feed=feeds.of(cmd),
                                   note=f" may run a git clean ({unread}), which"))
            continue
        if cmd.name in ("cd", "pushd") and not cmd.dynamic:
            folder = next((a for a in cmd.argv[1:] if not a.startswith("-")), "~")
            bases.append(_resolve(bases[-1], folder.replace("~+", str(bases[-1]))))
            continue
        if cmd.name == TOO_DEEP:
            if _DELETE_WORD.search(cmd.argv[1]):
                what = cmd.argv[2] if len(cmd.argv) > 2 else "a script nested too deep to read"
                targets.append(_Target(f"({what})", [], [], True, what, feed=command))
            continue
        staged = _stash_staged_target(cmd, bases, project, changes, n)
        if staged is not None:
            targets.append(staged)
        targets += _stash_drop_targets(cmd, bases, project, changes, n)
        merged = _history_target(cmd, bases, project)
        if merged is not None:
            targets.append(merged)
        patched, patched_writes = _patch_targets(cmd, bases, project, parsed[:n], command)
        targets += patched
        writes += patched_writes
        added = _reset_added_target(cmd, bases, project, changes, n)
        if added is not None:
            targets.append(added)
        rewrite = _git_rewrite_target(cmd, bases, project, changes, n)
        if rewrite is not None:
            targets.append(rewrite)
            continue
        for source in _hard_link_sources(cmd) or []:
            for each in _braces(source):
                places, globs, computed = _expand(each, bases)
                targets.append(_Target(source, places, [], computed or "\0" in each,
                                       _said(cmd), feed=feeds.of(cmd), globs=globs,
                                       does="hard-links a file of", note=_LINK_NOTE))
        got = _deleted(cmd.argv)
        if got is None:
            targets += _program_targets(cmd, bases, feeds) + _program_write_targets(cmd, bases)
            continue
        found, names = got
        worktree = _worktree_places(cmd, bases)
        if worktree is not None:
            found = worktree  # (as git reads its name: from anywhere in the repository)
        items = _piped_items(cmd, parsed, n)
        if cmd.dynamic and not found:  # `... | xargs rm -rf`: its paths come from elsewhere
            places, globs = _places_of(items or [], bases)
            targets.append(_Target("(paths read when it runs)", places, names, True,
                                   _said(cmd), feed=feeds.of(cmd), globs=globs,
                                   recursive=_removes_folders(cmd.argv)))
        kept = _git_kept(cmd.argv)
        clean = _git_clean_of(cmd, bases, changes.state_before(n))
        if clean is not None and clean.folders is None and (
                clean.anywhere or _computed_git_folder(cmd.argv, bases)):
            # a pathspec that may reach anything in the repository (`:/` of a stash), or a
            # folder computed when it runs, where git cannot be asked: the repositories it
            # may reach stand for it
            found = [*found, *map(str, _repository_tops(cmd.argv, bases, project))]
        note = _STASH_NOTE if clean is not None and \
            _git_where(cmd.argv[1:])[1][:1] == ["stash"] else ""
        placeholder = _xargs_placeholder(cmd.pipeline) if items else None
        for target in found:
            for each in _braces(target):
                places, globs, computed = _expand(each, bases)
                if computed or cmd.dynamic:
                    more, more_globs = _places_of(
                        _delete_values(each, feeds.of(cmd), items, placeholder, bases), bases)
                    places, globs = [*places, *more], [*globs, *more_globs]
                targets.append(_Target(target, places, names, computed or cmd.dynamic,
                                       _said(cmd), kept, feeds.of(cmd), globs, clean,
                                       note=note))
    if not targets and not writes:
        return []
    mentions: dict[tuple[str, Path], _Mentions] = {}
    reached: list[Path] = []
    reasons = _protected_hits(targets, config, project, events, checker, bases, writes, own,
                              mentions=mentions, reached=reached)
    fed = [p for (_, owner), m in list(mentions.items()) if owner == project
           for p in m.fed_folders()]
    for other in _other_projects([*targets, *writes], project if own else None, fed,
                                 [home.parent for home in reached]):
        reasons += [r for r in _judge_elsewhere(other, targets, writes, bases)
                    if r not in reasons]
    return reasons


def _places_of(words: list[str], bases: list[Path]) -> tuple[list[Path], list[str]]:
    """The places and globs of the literal paths ``words`` (`_expand`, braces too)."""
    places: list[Path] = []
    globs: list[str] = []
    for word in words:
        for each in _braces(word):
            found, matched, _ = _expand(each, bases)
            places += found
            globs += matched
    return list(dict.fromkeys(places)), list(dict.fromkeys(globs))


def _other_projects(targets: Iterable[_Target | _WriteTarget], own: Path | None,
                    fed: Iterable[Path] = (), below: Iterable[Path] = ()) -> list[Path]:
    """The projects other than ``own`` that hold a place the ``targets`` reach: for each
    place (and where it really is; a computed one's: each folder that may feed it, ``fed``),
    the nearest folder at or above it holding a ledger (``../exp1/capsules/c2`` from the
    main worktree: ``../exp1``); and those ``below`` a place, whose ledgers `_other_homes`
    looked at (``find .. -name '*.json' -delete`` spares a ledger, not a capsule's files)."""
    mine = () if own is None else (own, _real(own))
    found: dict[Path, None] = dict.fromkeys(
        p for p in below if p not in mine and _real(p) not in mine)
    for t in [*targets, None]:
        places = list(fed) if t is None else [*t.places,
                                              *(Path(_glob_folder(g)) for g in t.globs)]
        for place in places:
            for p in dict.fromkeys((place, _real(place))):
                for folder in (p, *p.parents):
                    if _is_home(folder / ".labledger"):
                        if folder not in mine and _real(folder) not in mine:
                            found[folder] = None
                        break
    return list(found)


def _glob_folder(pattern: str) -> str:
    """The folder an absolute glob's matches are all below (its parts before the first
    with a wildcard)."""
    parts = pattern.split(os.sep)
    fixed = next((k for k, part in enumerate(parts) if any(c in part for c in "*?[")),
                 len(parts))
    return os.sep.join(parts[:fixed]) or os.sep


def _judge_elsewhere(project: Path, targets: list[_Target], writes: list[_WriteTarget],
                     bases: list[Path]) -> list[str]:
    """Reasons to refuse what the line deletes or writes of the export roots and capsules of
    ``project``, another project than the one it is judged for (its ledger read and its
    store checked as for the first, `_judge_with_ledger`; a ledger that cannot be read: fail
    closed)."""
    from labledger.ledger.ledger import Ledger
    from labledger.reconcile.pull_verified import ObjectChecker, gate_events, record_corrupt
    from labledger.reconcile.pull_verified import open_store as store_of

    try:
        config = load_config(project / ".labledger")
        if not _may_reach(targets, writes, _guarded_folders(project, config.export_roots)):
            return []  # (its capsule lines alone read: 21 ms against 243 for 50,000 events)
        with Ledger.open(project) as ledger:
            events = gate_events(ledger)
            checker = ObjectChecker(store_of(ledger))
            try:
                return _protected_hits(targets, config, project, events, checker, bases,
                                       writes, elsewhere=True)
            finally:
                record_corrupt(ledger, checker)
    except Exception as exc:  # noqa: BLE001 - its capsules cannot be told apart: refuse
        return [f"the command reaches the project {project}, whose ledger cannot be read "
                f"({type(exc).__name__}: {exc}), so what it protects cannot be told (fail "
                "closed)"]


def _may_reach(targets: list[_Target], writes: list[_WriteTarget], guarded: list[Path]
               ) -> bool:
    """Some of ``targets`` or ``writes`` may reach one of the ``guarded`` folders (another
    project's export roots and capsules, `_guarded_folders`): a place at, above or inside
    one, a glob starting there or above, a path computed when it runs, a git question."""
    each: list[_Target | _WriteTarget] = [*targets, *writes]
    for t in each:
        if t.computed or getattr(t, "git", None) is not None or \
                getattr(t, "staged", None) is not None:
            return True
        places = [*t.places, *(Path(_glob_folder(g)) for g in t.globs)]
        if any(_overlaps(p, g) for p in places for g in guarded):
            return True
    return False


_LINK_NOTE = " (a write through a hard link changes the file itself)"


def _hard_link_sources(cmd: Any) -> list[str] | None:
    """The files the simple command ``cmd`` hard-links elsewhere: ``ln``/``link`` without
    ``-s`` (``--symbolic``), ``cp -l`` (``--link``; with ``-r``/``-a`` every file below),
    the folders of ``rsync --link-dest=DIR`` (its unchanged files are linked, not copied; a
    relative DIR is read from the destination).
    A hard link is the same file under another name: a later write through it (``: > h``)
    changes the protected bytes while naming no protected path, so making one is judged
    as a write that destroys them would be (`_judge_deletes`). None for any other command."""
    if cmd.remote or cmd.name not in ("ln", "link", "cp", "rsync"):
        return None
    args = _without_redirections(cmd.argv[1:])
    if cmd.name == "rsync":  # `--link-dest=DIR`: what is unchanged there is hard-linked
        operands = _options(args, _RSYNC_VALUES)[0]
        dest = operands[-1] if len(operands) > 1 else "."
        # (a relative DIR is relative to the destination folder, rsync(1))
        return [os.path.join(dest, d) for d in
                _every_value(args, _RSYNC_VALUES, {"--link-dest"})] or None
    if cmd.name == "link":
        return args[:1] if not cmd.appended else ["\0"]
    operands, valued, flags = _options(args, _COPY_VALUES)
    if cmd.name == "ln" and flags & {"s", "--symbolic"} or \
            cmd.name == "cp" and not flags & {"l", "--link"}:
        return None
    if cmd.appended:
        return [*operands, "\0"]  # (what xargs appends: computed when it runs)
    if "-t" in valued or "--target-directory" in valued or (cmd.name == "ln"
                                                            and len(operands) == 1):
        return operands
    return operands[:-1]


def _program_deletes(cmd: Any) -> bool:
    """The program ``cmd`` runs deletes something: a Python one read (`python_deletes`),
    another searched for a delete call (``perl -e 'rmtree(...)'``)."""
    from labledger.reconcile.python_deletes import python_deletes

    if cmd.program is not None:
        return bool(python_deletes(cmd.program))
    return _DELETE_CALLS.search(cmd.text) is not None


def _program_targets(cmd: Any, bases: list[Path], feeds: _Feeds) -> list[_Target]:
    """What the program ``cmd`` runs deletes: each literal path of a Python program (a move's
    source too) from each working folder, as ``rm -r PATH`` would be judged; a computed one
    (or a delete call in another program's text) by what feeds it: the line's words with the
    program's own text read as its string literals (``lr * 2`` is no glob), and the folders
    the program lists (`_program_listed`)."""
    from labledger.reconcile.python_deletes import python_deletes

    if not _program_deletes(cmd):
        return []
    command, feed = _said(cmd), feeds.of(cmd)
    if cmd.program is None:  # python -c "shutil.rmtree('results')"
        return [_Target("(a delete inside a program)", [], [], True, command, feed=feed)]
    feed = _program_feed(feed, cmd.program)
    targets: list[_Target] = []
    for d in python_deletes(cmd.program):
        if d.path is None:  # fed the words of the line and what the program lists
            listed = _program_listed(cmd.program, bases, d.name)
            targets.append(_Target("(a path the program computes)", [], [], True, command,
                                   feed=feed + listed, recursive=d.folders))
        else:  # as Python reads it: no ~, $ or glob of the shell's
            # after an os.chdir, from any folder: those above (a folder below is named by
            # the program's words, read as the feed of a computed path)
            places = [Path(os.path.normpath(os.path.join(a, d.path)))
                      for a in _starts(bases, d.elsewhere)]
            targets.append(_Target(d.path, places, [], cmd.dynamic or d.elsewhere, command,
                                   feed=feed, recursive=d.folders))
    return targets


def _program_writes(cmd: Any) -> bool:
    """The Python program ``cmd`` runs writes onto a path it writes out (`python_writes`), or
    onto one its command line gives (`given_writes`)."""
    from labledger.reconcile.python_deletes import argument_writes, python_writes
    from labledger.reconcile.shell_words import script_arguments

    return cmd.program is not None and (bool(python_writes(cmd.program)) or (
        not cmd.remote and script_arguments(cmd.argv) is not None
        and bool(argument_writes(cmd.program))))


# what a write does to a file there (`python_writes`), said in a reason
_WRITE_VERBS = {"overwrite": "overwrites", "append": "appends to", "create": "creates",
                "tree": "overwrites what it copies over", "folder": "saves over"}


def _writes_may_destroy(cmd: Any, bases: list[Path], home: Path | None,
                        guarded: Callable[[], list[Path]] | None = None) -> bool:
    """Some write of the program ``cmd`` runs may destroy a file of a protected folder
    (`_writes_onto`): one into the ledger's ``home``; a folder copied over what is there, or
    one that replaces or changes a file there now, in or over a folder of ``guarded()`` (the
    export roots and the recorded capsules, read from the ledger's ``capsule.sealed`` lines
    alone; None: anywhere). A new file or an append elsewhere loses nothing, nor does an
    overwrite outside those folders (``python train.py`` saving over last epoch's
    checkpoint): passed without verifying every line of the ledger (half a second for 50,000
    events)."""
    folders: list[Path] | None = None
    for t in _program_write_targets(cmd, bases):
        for place in t.places:
            if home is not None and (place == home or home in place.parents):
                return True
            if t.writes == "tree" or (t.writes == "overwrite" and place.is_file()) or (
                    t.writes == "folder" and place.exists()):
                if guarded is None:
                    return True
                if folders is None:
                    folders = guarded()
                if any(_overlaps(place, f) for f in folders):
                    return True
    return False


def _program_write_targets(cmd: Any, bases: list[Path]) -> list[_Target]:
    """The files the Python program ``cmd`` runs writes onto by paths it writes out or its
    command line gives (`given_writes`), each from each working folder (after an
    ``os.chdir``, from any folder above them too); a copy or a move into a folder there, as
    the file it makes inside (named by its source: computed, not judged)."""
    from labledger.reconcile.given_writes import given_writes
    from labledger.reconcile.python_deletes import python_writes

    if not _program_writes(cmd):
        return []
    targets: list[_Target] = []
    # the paths it writes out, then those its command line gives (a folder of those: the
    # files of a name computed when it runs, `given_writes`)
    for w, given in [*((w, False) for w in python_writes(cmd.program)),
                     *((w, True) for w in given_writes(cmd, bases))]:
        for start in _starts(bases, w.elsewhere):
            place, written, kind = Path(os.path.normpath(start / w.path)), w.path, w.kind
            if w.into_kind is not None and place.is_dir():
                if w.into is None:
                    continue
                place, written, kind = place / w.into, f"{w.path}/{w.into}", w.into_kind
            does = f"may save over the files of {written} in" if given and kind == "folder" \
                else f"{_WRITE_VERBS[kind]} {written} in"
            targets.append(_Target(written, [place], [], False, _said(cmd), writes=kind,
                                   does=does))
    return targets


def _writes_onto(place: Path, root: Path, kind: str, home: Path) -> bool:
    """A write of ``kind`` onto ``place`` destroys some of the protected ``root``: in the
    ledger and store (``home``; but its cache, derived data), any write, its settings too
    (the rules an agent is judged by: **Writes**); elsewhere (a capsule, an export root), one that
    replaces or changes a file there now (a new file, or a log appended to, loses nothing), or
    saves over a file or folder there now (``model.save_pretrained(DIR)``). A folder copied over
    one above the root (``shutil.copytree(..., dirs_exist_ok=True)``) may replace any file in
    it."""
    if not (place == root or root in place.parents or (kind == "tree" and place in root.parents)):
        return False
    if root == home:
        cache = home / "cache"
        return place != cache and cache not in place.parents
    return kind == "tree" or (kind == "overwrite" and place.is_file()) or (
        kind == "folder" and place.exists())


def _starts(bases: list[Path], elsewhere: bool) -> list[Path]:
    """The folders a program's relative path is from: the line's working folders; after an
    ``os.chdir``, any folder above them too."""
    return [a for b in bases for a in (b, *b.parents)] if elsewhere else bases


def _program_feed(feed: str, program: str) -> str:
    """``feed`` with the program's text (as written, or as one quoted shell word) read as its
    string literals; left whole when not found once (fail closed); a script's read from its
    file (not in the line) added."""
    from labledger.reconcile.python_deletes import program_strings

    for written in (program, shlex.quote(program)):
        if feed.count(written) == 1:
            return feed.replace(written, "\n" + program_strings(program) + "\n", 1)
    if program not in feed and shlex.quote(program) not in feed:
        return feed + "\n" + program_strings(program) + "\n"
    return feed


def _program_listed(program: str, bases: list[Path], name: str | None) -> str:
    """The folders ``program`` lists, as the shell commands that list them (`_Mentions`
    reads them), each after an ``os.chdir`` from any folder above the line's; limited to the
    entries named ``name`` when the delete's last part is (``os.path.join(root,
    "__pycache__")``), or to what its glob matches."""
    from labledger.reconcile.python_deletes import python_listings

    lines: list[str] = []
    for listing in python_listings(program):
        named = name or listing.name
        lister = "find" if named else listing.lister
        test = f" -name {shlex.quote(named)}" if named else ""
        folders = [str(Path(os.path.normpath(os.path.join(a, listing.path))))
                   for a in _starts(bases, listing.elsewhere)] if listing.elsewhere \
            else [listing.path]
        lines += [f"{lister} {shlex.quote(f)}{test}" for f in folders]
    return "".join("\n" + line for line in lines)


_STASH_NOTE = " (git stash removes the files it stashes from the work tree)"


@dataclass
class _Target:
    """One path a command deletes: as written, the places it may be, the find tests limiting
    it, whether it is computed when it runs, and the command as written (for messages)."""

    written: str
    places: list[Path]
    names: list[tuple[str, str]]
    computed: bool
    command: str
    kept: list[str] = field(default_factory=list)  # `git clean -e` patterns: left alone
    # the text whose words may feed its computed paths (`_Feeds`): what it deletes when it
    # is computed is what they name
    feed: str = ""
    # absolute globs it deletes what they match (``rm -rf data/*/*.jpg``): never expanded,
    # matched against each protected folder's path (`_glob_places`)
    globs: list[str] = field(default_factory=list)
    # a `git clean`: real git says what it removes of a protected folder it reaches
    git: _GitClean | _GitRewrite | None = None
    # it removes folders too (not `rm -f`, `shred`, `unlink`: a listed folder stays)
    recursive: bool = True
    # said between the command and "deletes" (`git stash -u` removes what it stashes)
    note: str = ""
    # a `git stash`: real git says which staged files it takes out of the work tree
    staged: _GitStaged | _GitAdded | _GitDropped | _GitMerged | None = None
    # a write onto its places, not a delete: what it does to a file there (`_writes_onto`)
    writes: str | None = None
    # what it does to the protected folder, said in the reason before the folder
    does: str = "deletes"

    def places_near(self, root: Path) -> Iterable[Path]:
        """Its places that may overlap ``root``: the literal ones, then (lazily) what its
        globs match at, above or inside ``root``."""
        yield from self.places
        for pattern in self.globs:
            yield from _glob_places(pattern, root)


def _protected_places(config: HookConfig, project: Path, events: list[Any],
                      elsewhere: bool = False) -> list[tuple[Path, str, str | None]]:
    """(folder, what deleting it deletes, the capsule's digest: None for always protected) of
    each protected folder: the ledger, the export roots, the recorded capsules. ``elsewhere``:
    of another project than the one judged for (named; its ledger left out)."""
    home = project / ".labledger"
    protected: list[tuple[Path, str, str | None]] = [] if elsewhere else [
        (home, f"{home}, the labledger ledger and store of this project", None)]
    of = f" of the project {project}" if elsewhere else ""
    settings = f"{home}/hook.toml" if elsewhere else ".labledger/hook.toml"
    for r in config.export_roots:
        root = _resolve(project, r)
        protected.append((root, f"{root}, an export root listed in {settings} "
                                "(always protected)", None))
    for e in events:
        if e.kind == "capsule.sealed" and isinstance(e.body.get("path"), str):
            root = _resolve(project, e.body["path"])
            protected.append((root, f"the capsule {root} of run {e.run}{of}",
                              e.body.get("digest") or ""))
    # each also where it really is, when a symbolic link on its path leads elsewhere (`runs`
    # linked to a scratch disk, the usual layout on a cluster): `rm -rf /scratch/me/runs/exp1`
    # deletes the capsule recorded as runs/exp1
    return protected + [(real, what, digest) for root, what, digest in protected
                        for real in [_real(root)] if real != root]


def _other_homes(targets: Iterable[_Target | _WriteTarget], mine: Collection[Path],
                 fed: Iterable[Path] = ()) -> list[Path]:
    """The ledgers (``.labledger/`` folders) of other projects than the one judged (whose
    ledger is ``mine``, as written and where it really is) that the ``targets`` reach: a
    place inside one, or a folder holding one at its top or one folder down (``rm -rf
    ../exp1``, ``git worktree remove exp1`` from the main worktree, ``rm -rf ~/experiments``
    over ``exp1/.labledger``). A ledger deeper down is not looked for (a walk of a large tree
    on every delete), nor another project's capsules (its own ledger would have to be read).
    A computed delete's places are the folders its feed names or lists (``fed``: ``ls .. |
    xargs -I{} rm -rf ../{}``): the ledgers there are asked about as the project's own is
    (`_Mentions.reach`).
    A glob's first `_HOMES_SCAN` matches are looked at; the folders in places are listed
    for `_HOMES_SCAN` entries in all, a glob's matches counted: ``rm -rf runs/*`` over 1,000
    runs lists none of them."""
    import glob

    found: dict[Path, None] = {}
    budget = [_HOMES_SCAN]
    above: dict[Path, Path | None] = {}  # (a glob's matches share their folders)
    for t in [*targets, None]:
        places = [(place, _ledger_holding((place, *place.parents, *_real(place).parents)))
                  for place in (fed if t is None else t.places)]
        for pattern in [] if t is None else t.globs:  # (matched now: what is not, stays)
            for m in itertools.islice(glob.iglob(pattern), _HOMES_SCAN):
                match = Path(os.path.normpath(m))
                folder = match.parent
                if folder not in above:
                    real = _real(folder)
                    above[folder] = _ledger_holding((folder, *folder.parents, real,
                                                     *real.parents))
                places.append((match, _ledger_holding((match,)) or above[folder]))
                budget[0] -= 1  # (its own ledger is looked for whatever is left)
        for place, holding in places:
            if holding is not None:
                found[holding] = None
            else:
                found.update(dict.fromkeys(_homes_below(place, 2, budget)))
    return [h for h in found if h not in mine and _real(h) not in mine]


_HOMES_SCAN = 1_000  # entries a line's deletes look at for another project's ledger


def _ledger_holding(chain: Iterable[Path]) -> Path | None:
    """The first of ``chain`` (a place, then the folders above it) that is a project's
    ``.labledger/``."""
    return next((a for a in dict.fromkeys(chain) if a.name == ".labledger" and _is_home(a)),
                None)


def _is_home(folder: Path) -> bool:
    """``folder`` is a project's ``.labledger/`` (it holds the ledger or its config)."""
    try:
        return (folder / "ledger").is_dir() or (folder / "config.toml").is_file()
    except (OSError, ValueError):  # a name too long, a NUL byte: no such folder
        return False


def _homes_below(folder: Path, depth: int, budget: list[int]) -> list[Path]:
    """The project ledgers at the top of ``folder`` or, for ``depth`` 2, of a folder in it
    (as many entries as ``budget`` has left, each taken from it; links not followed: ``rm
    -rf`` removes a link, not what it leads to)."""
    found: list[Path] = []
    try:
        if os.path.islink(folder):
            return []
        home = os.path.join(folder, ".labledger")
        if os.path.isdir(home) and _is_home(Path(home)):  # (one stat where there is none)
            return [Path(home)]
        if depth > 1 and budget[0] > 0:
            with os.scandir(folder) as entries:
                for entry in entries:
                    budget[0] -= 1
                    # (one stat for each folder without one: a build tree's 1,000)
                    if entry.name != ".git" and entry.is_dir(follow_symlinks=False) and \
                            os.path.isdir(os.path.join(entry.path, ".labledger")):
                        found += _homes_below(Path(entry.path), depth - 1, budget)
                    if budget[0] <= 0:
                        break
    except (OSError, ValueError):  # no such folder, not one, a NUL byte: nothing below
        pass
    return found


def _real(path: Path) -> Path:
    """``path`` with every symbolic link on it followed, as far as it exists."""
    try:
        return Path(os.path.realpath(path))
    except (OSError, ValueError):  # a loop of links, a NUL byte: as written
        return path


def _refused(said: str, digest: str | None, checker: Any) -> str | None:
    """The reason to refuse what ``said`` says a command does to a protected folder (deletes
    it, overwrites a file of it): always for the ledger and an export root (``digest``
    None); for a capsule, unless its stored copy verifies (every object of its tree)."""
    if digest is None:
        return said
    if not digest:
        return f"{said}, which has no recorded digest"
    problem = checker.problem(digest)
    return None if problem is None else f"{said}, and its stored copy does not verify: {problem}"


def _protected_hits(targets: list[_Target], config: HookConfig, project: Path,
                    events: list[Any], checker: Any, bases: list[Path],
                    writes: Collection[_WriteTarget] = (), own: bool = True,
                    elsewhere: bool = False,
                    mentions: dict[tuple[str, Path], _Mentions] | None = None,
                    reached: list[Path] | None = None) -> list[str]:
    """Reasons to refuse what ``targets`` delete and ``writes`` write of the protected
    places of ``project`` (``own`` false: of none), and of other projects' ledgers they
    reach (`_other_homes`: each looked at is added to ``reached``). ``elsewhere``:
    ``project`` is another project than the one the line is judged for (`_judge_elsewhere`):
    its export roots and capsules alone (its ledger is one of the other ledgers the first
    judgment looked for). ``mentions``: each feeding text's words, read once for each
    project (a word naming a project's folder or one above it feeds none of its places)."""
    home = project / ".labledger"
    mine = (home, _real(home)) if own else ()
    mentions = {} if mentions is None else mentions

    def fed(feed: str, owner: Path) -> _Mentions:
        if (feed, owner) not in mentions:
            mentions[feed, owner] = _Mentions(feed, bases, owner)
        return mentions[feed, owner]

    feeding: list[_Target | _WriteTarget] = [*targets, *writes]
    folders = [] if elsewhere else [
        p for feed in dict.fromkeys(t.feed for t in feeding if t.computed)
        for p in fed(feed, project).fed_folders()]
    others = [] if elsewhere else _other_homes(feeding, mine, folders)
    if reached is not None:
        reached += others
    homes = (*mine, *others)
    protected = _protected_places(config, project, events, elsewhere) if own else []
    protected += [(other, f"{other}, the labledger ledger and store of the project "
                          f"{other.parent}", None) for other in others]
    reasons: list[str] = []
    for t in targets:
        for root, what, digest in protected:
            # its cache is always safe to delete
            spared = root / "cache" if root in homes else None
            if t.writes is not None:
                hit = any(_writes_onto(p, root, t.writes, home) for p in t.places)
            elif t.git is not None and t.git.folders is not None:
                # git's own dry run says, asked when the clean may reach the folder: a
                # pathspec with magic or a wildcard may reach anything in the repository
                hit = (t.git.anywhere or any(_overlaps(p, root) for p in t.places_near(root))) \
                    and t.git.removes(root, spared)
            else:
                hit = any(_deletes_some_of(p, root, t.names, spared)
                          and not _git_excluded(p, root, t.kept)
                          for p in t.places_near(root)
                          if spared is None or spared not in (p, *p.parents)) or (
                    t.staged is not None and t.staged.removes(root, spared))
            if not hit and t.computed:
                # `echo results | xargs rm -rf`, `rm -rf $(echo results)`, `ls | xargs rm -rf`
                owner = root.parent if root in others else project
                hit = fed(t.feed, owner).reach(root, spared, t.recursive)
            if hit:
                said = f"`{t.command}`{t.note} {t.does} {what}"
                asked = t.git if isinstance(t.git, _GitRewrite) else t.staged \
                    if isinstance(t.staged, (_GitDropped, _GitMerged)) else None
                place = None if asked is None else asked.changed_in(root, spared)
                if place is not None and isinstance(t.staged, (_GitDropped, _GitMerged)):
                    said = f"`{t.command}`{t.note} {t.does} {place}, in {what}"
                if place is not None and isinstance(t.git, _GitRewrite):  # name the file
                    said = f"`{t.command}` {'may overwrite' if t.git.widened else t.does} " \
                           f"{place}, in {what}"
                reason = _refused(said, digest, checker)
                if reason is not None and reason not in reasons:  # (a folder and its real path)
                    reasons.append(reason)
    for w in writes:
        for root, what, digest in protected:
            owner = root.parent if root in others else project
            reason = _write_refused(w, root, what, digest, root in homes, checker,
                                    fed(w.feed, owner) if w.computed or (w.feed, owner)
                                    in mentions else None)
            if reason is not None and reason not in reasons:  # (from several folders)
                reasons.append(reason)
    return reasons


# the ledger's files that hold a person's settings (format.md): the rules the agent is judged
# by (hook.toml's export roots and patterns, the profiles' destroy verbs, capsule rules)
_SETTINGS = {"config.toml", "hook.toml", "capsule.toml", "profiles"}


def _write_refused(w: _WriteTarget, root: Path, what: str, digest: str | None,
                   ledger: bool, checker: Any, mentions: _Mentions | None) -> str | None:
    """The reason to refuse the write ``w`` into the protected folder ``root``, as deleting
    what it destroys would be refused (`_refused`); None when it writes nothing of it that
    counts (`_write_hit`). A computed path counts when what may feed it names the folder
    (`_Mentions`, as for a delete), for the ledger whatever the write, for a capsule or an
    export root when it destroys what a file held."""
    always = ledger  # any write into the ledger counts; its cache is spared
    spared = root / "cache" if ledger else None
    hit = _write_hit(w, root, spared, always)
    # (a computed path whose fixed folder part is elsewhere lands there, whatever the line
    # names: `ls capsules/c2 | xargs cp -t ../backup`)
    if hit is None and mentions is not None and (always or w.how in _DESTROYING) and (
            not w.places or any(_overlaps(p, root) for p in w.places)) and \
            mentions.reach(root, spared, w.tree):
        said = f"`{w.command}` {w.how} files whose paths are computed when it runs, which " \
               f"may be in {what}"
    elif hit is None:
        return None
    else:
        how, place = hit
        said = f"`{w.command}` {how} {what}" if place == root else \
            f"`{w.command}` {how} {place}, in {what}"
        if always and place != root and place.relative_to(root).parts[0] in _SETTINGS:
            said += (" (settings a person edits in their own editor: the rules an agent is "
                     "judged by are not the agent's to change)")
    return _refused(said, digest, checker)


# the path-like words of a line (split at blanks, quotes, brackets and shell punctuation)
_PATH_WORD = re.compile(r"[^\s'\"\\(){}\[\];,|&<>=`$]+")
_PATH_WORDS_LIMIT = 4096  # words of one line looked at (a longer line: the first ones)
# Commands that only print (what they print goes to the terminal, or down their own
# pipeline): a line's other pipelines made only of these hand nothing to a delete
# (`du -sh capsules; find /tmp -name '*.tmp' | xargs rm`). Each writes no file and runs
# nothing given on its command line (`find` with `-fprint`/`-fls` aside, checked below).
_LOOK_ONLY = {"ls", "du", "df", "wc", "cat", "head", "tail", "stat", "pwd", "date", "echo",
              "printf", "nvidia-smi", "md5sum", "sha1sum", "sha256sum", "b3sum", "realpath",
              "readlink", "grep", "egrep", "fgrep", "find", "free", "uptime", "nproc", "whoami",
              "hostname", "true", "false", "sleep", "file"}
# what in a pipeline's text may hand a value to a later command: a substitution, an
# assignment (`D=capsules`), a redirection to a file (`> list.txt`; to /dev/null, or from one
# descriptor to another, writes none)
_HANDS_ON = re.compile(r"[$`]\(|`|(^|[\s;&|(])[A-Za-z_]\w*(\[[^\]]*\])?\+?=|[<>]\(")
_HARMLESS_REDIRECT = re.compile(r"\d*(>>?|&>>?)\s*(/dev/(null|stdout|stderr)\b|&\d-?)")


# Commands of a line whose feeds are told apart: a line of more (a generated script of
# thousands of `bash -c "rm -rf $D"`) feeds each of its computed deletes its whole text, a
# superset of each one's feed (fail closed), read once instead of once per delete
_FEEDS_APART_LIMIT = 128


class _Feeds:
    """For each delete whose paths are computed when it runs, the text whose words may feed
    it: its own pipeline (`shell_words.Pipeline`: what is piped into it, its substitutions,
    its program text) and every other pipeline of the line that may hand it something (a
    working folder, a variable, a file, a function), i.e. all but those that only print
    (`_LOOK_ONLY`, with no substitution, assignment or redirection to a file). A command
    whose pipeline is unknown (inside a top-level ``$(...)``) is fed by the whole line.

    A command of a nested script (``bash -c '...'``, `shell_words.Script`) is judged the same
    way inside that script first: its own pipeline there and the script's pipelines that may
    hand it something; then, going out one script at a time, the pipeline that runs the
    script, with the script's text taken out of it (what it held is already judged), and
    that level's handing pipelines (``bash -c 'du -sh capsules; find /tmp -name x | xargs
    rm'``: the ``du`` only prints; ``ls capsules | bash -c 'xargs rm -rf'``: ``ls`` feeds
    it). A script whose text is not found once, as written, in what runs it is left in
    (fail closed: its whole text feeds). The pipelines are read only when a computed delete
    asks (most lines have none)."""

    def __init__(self, parsed: list[Any], command: str) -> None:
        self.parsed = parsed
        self.command = command
        self.pipelines: list[Any] | None = None
        # (script, or None for the line) -> the indexes of its pipelines that hand on
        self.handing: dict[int, set[int]] = {}
        self.others: dict[tuple[int, int], list[Any]] = {}
        self.whole: str | None = None  # the line's handing pipelines, in order
        self.wholes: dict[int, str] = {}  # a nested script's (`_whole_of`), by its identity

    def of(self, cmd: Any) -> str:
        if cmd.pipeline is None or len(self.parsed) > _FEEDS_APART_LIMIT:
            return self.command
        feed: str | None = None  # what the scripts nested deeper feed it
        inner: str | None = None  # the text of the script one level in
        for script, pipeline in cmd.scopes:  # innermost first
            own = _taken_out(pipeline.text, inner, feed)
            if own == pipeline.text and pipeline.index in self._handing(
                    script, self._pipelines_of(script)):
                # the script's handing pipelines, one text for each of its commands fed so
                # (a script file of many computed writes: `_Mentions` reads it once)
                feed = self._whole_of(script)
            else:
                feed = "\n".join([own, *(p.text for p in self._others(script, pipeline))])
            inner = script.text
        own = _taken_out(cmd.pipeline.text, inner, feed)
        # in the line's order, its own text where its pipeline stands: the deletes of a line
        # of many (`rm $F0; rm $F1; ...`) are fed one same text (built once), whose words
        # `_Mentions` reads once, not one text each (which made judging such a line quadratic)
        pipelines = self._pipelines_of(None)
        handing = self._handing(None, pipelines)
        if own == cmd.pipeline.text and cmd.pipeline.index in handing:
            if self.whole is None:
                self.whole = "\n".join(p.text for p in pipelines if p.index in handing)
            return self.whole
        others = self._others(None, cmd.pipeline)
        return "\n".join([*(p.text for p in others if p.index < cmd.pipeline.index), own,
                          *(p.text for p in others if p.index > cmd.pipeline.index)])

    def _whole_of(self, script: Any) -> str:
        """The handing pipelines of the nested ``script``, in its order, built once."""
        if id(script) not in self.wholes:
            pipelines = self._pipelines_of(script)
            handing = self._handing(script, pipelines)
            self.wholes[id(script)] = "\n".join(p.text for p in pipelines
                                                 if p.index in handing)
        return self.wholes[id(script)]

    def _pipelines_of(self, script: Any) -> list[Any]:
        if script is not None:
            return list(script.pipelines)
        from labledger.reconcile.shell_words import line_pipelines

        if self.pipelines is None:
            self.pipelines = line_pipelines(self.command)
        return self.pipelines

    def _others(self, script: Any, pipeline: Any) -> list[Any]:
        """The other pipelines of ``script`` (None: the line) that hand on."""
        key = (id(script), pipeline.index)
        if key not in self.others:
            pipelines = self._pipelines_of(script)
            handing = self._handing(script, pipelines)
            self.others[key] = [p for p in pipelines
                                if p.index != pipeline.index and p.index in handing]
        return self.others[key]

    def _handing(self, script: Any, pipelines: list[Any]) -> set[int]:
        if id(script) not in self.handing:
            members: dict[int, list[Any]] = {}
            for c in self.parsed:
                if script is None:
                    if c.pipeline is not None:
                        members.setdefault(c.pipeline.index, []).append(c)
                    continue
                for s, p in c.scopes:
                    if s is script:
                        members.setdefault(p.index, []).append(c)
            whole = self.command if script is None else script.text
            self.handing[id(script)] = {
                p.index for p in pipelines
                if not _only_prints(p.text, members.get(p.index, []))
                and not _unused_alias(p.text, members.get(p.index, []), whole)}
        return self.handing[id(script)]


def _taken_out(text: str, script: str | None, feed: str | None) -> str:
    """``text`` (a pipeline that runs ``script``) with the script's text replaced by what
    feeds the delete from inside it; left whole when the text is not found exactly once."""
    if script is None or feed is None:
        return text
    if script and text.count(script) == 1:
        return text.replace(script, "", 1) + "\n" + feed
    return text + "\n" + feed


def _unused_alias(text: str, commands: list[Any], whole: str) -> bool:
    """The pipeline ``text`` only defines aliases (``alias ll='ls -la'``: its value runs
    only where a name is used) and none of their names is a word of the rest of ``whole``:
    it hands nothing on."""
    if not commands or commands[0].name != "alias" or re.search(r"[$`]\(|`", text) or \
            not all(c.appended for c in commands[1:]):  # its value's commands, appended
        return False
    names = [d.split("=", 1)[0] for d in commands[0].argv[1:] if "=" in d]
    rest = whole.replace(text, " ", 1)
    return bool(names) and not any(
        re.search(r"(?<![\w.-])" + re.escape(n) + r"(?![\w.=-])", rest) for n in names)


def _only_prints(text: str, commands: list[Any]) -> bool:
    """The pipeline ``text`` runs only ``commands`` that print, and hands nothing on."""
    if _HANDS_ON.search(text) or ">" in _HARMLESS_REDIRECT.sub("", text):
        return False
    return all(c.name in _LOOK_ONLY and not c.remote and not (
        c.name == "find" and any(a.startswith(("-fprint", "-fls")) for a in c.argv))
        for c in commands)


class _Mentions:
    """The folders the words of a text name, from each working folder of the line (a word
    with ``*``/``?`` is a glob: what it matches now): a delete whose paths that text feeds may
    reach a protected folder they name, one between the project and it, or something in it
    (``ls capsules | xargs rm -rf``, ``rmtree('capsules')`` in a program, ``rm -rf $(ls -d
    capsules/*)``), or one whose name a word holds as a path part or a one-part glob word
    matches (``find . -name c2 | xargs rm -rf``, ``-name 'c?'``; ``ec2`` or ``c21`` does not
    name ``c2``). The project folder and those above it
    do not count as words (``find . -name '*.pyc' | xargs rm``), but a command of the text that
    lists a folder whole does (`_Listing`: ``ls``, ``find . -type d``): what it lists is fed,
    and a path the delete takes whole is judged before (`_delete_values`: ``rm -rf $P``).

    Each word is read once per text, whatever the number of protected folders (`reach` asks
    about one). A glob is never expanded where it cannot lead: its parts are matched against
    the protected folder's own path, and only what it may match inside that folder is
    looked for on disk, up to the first match (``ls data/*/*.jpg`` over 100,000 images
    costs nothing: it cannot reach ``capsules/c2``). A text of more words than are read
    (`_PATH_WORDS_LIMIT`) names a folder whose name it holds anywhere (fail closed)."""

    def __init__(self, text: str, bases: list[Path], project: Path) -> None:
        self.above_project = {str(project), *map(str, project.parents)}
        # the lists it reads from files there now (`xargs rm -rf < stale.txt`): their words
        # are what the delete is handed
        text = text + _read_lists(text, bases)
        self.text = text
        self.cut = False
        literal: set[str] = set()
        patterns: set[str] = set()
        self.names: set[str] = set()  # the literal path parts of its words
        self.name_globs: set[str] = set()  # its one-part globs (``'*c2*'``, ``c?``)
        for n, m in enumerate(_PATH_WORD.finditer(text)):
            if n >= _PATH_WORDS_LIMIT:
                self.cut = True
                break
            word = m.group()
            parts = word.split("/")
            self.names.update(p for p in parts if not any(c in p for c in "*?"))
            if len(parts) == 1 and any(c in word for c in "*?"):
                # a name pattern (`find -name 'c?'`); a glob of several parts is a path,
                # matched against the folder's own path below (`*/*/*.jpg` names no `c2`)
                self.name_globs.add(word)
            for base in bases:
                place = str(_resolve(base, word))
                (patterns if any(c in word for c in "*?") else literal).add(place)
        self.literal = literal - self.above_project
        self.patterns = patterns
        self.bases = bases
        self._listings: list[_Listing] | None = None
        self._reached: dict[tuple[Path, Path | None, bool], bool] = {}

    def fed_folders(self) -> list[Path]:
        """The folders what the text feeds may be in: those its words name (a glob's: the
        folder its matches are below), those its listings list, the working folders."""
        return list(dict.fromkeys([
            *map(Path, sorted(self.literal)), *self.bases,
            *(Path(_glob_folder(p)) for p in sorted(self.patterns)),
            *(listing.folder for listing in self.listings())]))

    def reach(self, root: Path, spared: Path | None = None, recursive: bool = True) -> bool:
        """The text feeds a delete something of ``root``. ``recursive``: the delete removes
        folders (``rm -r``); one that does not (``rm -f``) is fed only the files a listing
        prints, and an ``ls`` prints the folder holding ``root``, never a file in it. Asked
        once per folder (the deletes of a line of many share a feed)."""
        key = (root, spared, recursive)
        if key not in self._reached:
            self._reached[key] = self._reach(root, spared, recursive)
        return self._reached[key]

    def _reach(self, root: Path, spared: Path | None, recursive: bool) -> bool:
        top = str(root)
        if self.cut and (root.name in self.text or top in self.text):
            return True
        if any(listing.reaches(root, spared, self.bases) for listing in self.listings()
               if recursive or listing.finds):
            return True
        if root.name in self.names or any(_glob_part_matches(g, root.name)
                                          for g in self.name_globs):
            return True
        inside = top.rstrip(os.sep) + os.sep
        if any(p == top or inside.startswith(p.rstrip(os.sep) + os.sep) or p.startswith(inside)
               for p in self.literal):
            return True
        return any(self._glob_reaches(p, top) for p in self.patterns)

    def listings(self) -> list[_Listing]:
        """What the text's ``ls`` and ``find`` commands list, read once (most feeds have
        none: the text is parsed only when it holds one of their names)."""
        if self._listings is None:
            self._listings = []
            if _LISTERS.search(self.text):
                from labledger.reconcile.shell_words import simple_commands

                for cmd in simple_commands(self.text, str(self.bases[0])):
                    if not cmd.remote:
                        self._listings += _listings_of(cmd.name, cmd.argv[1:], self.bases)
        return self._listings

    def _glob_reaches(self, pattern: str, top: str) -> bool:
        """The glob ``pattern`` (absolute) matches, now, ``top`` or a folder above it (below
        the project) or something inside it."""
        import glob

        wanted, parts = pattern.split(os.sep)[1:], top.split(os.sep)[1:]
        if not all(_glob_part_matches(w, p) for w, p in zip(wanted, parts, strict=False)):
            return False
        if len(wanted) <= len(parts):  # the folder or one above it: there when it is
            matched = os.sep + os.sep.join(parts[:len(wanted)])
            return matched not in self.above_project and os.path.lexists(matched)
        rest = os.sep.join(wanted[len(parts):])
        return next(glob.iglob(os.path.join(glob.escape(top), rest)), None) is not None


# where a text reads a file's words: `cat|tac|head|tail|sort|uniq FILE...`, a `<FILE`
# redirection, `xargs -a|--arg-file FILE`
_FILE_READERS = re.compile(r"(?<![\w.-])(?:cat|tac|head|tail|sort|uniq)((?:[ \t]+[^\s;|&<>()]+)+)")
_FILE_REDIRECT = re.compile(r"(?<![<\d&])<(?![<(&])[ \t]*([^\s;|&<>()]+)")
_ARG_FILE = re.compile(r"(?<![\w.-])xargs\b[^|;&\n]*?(?:-a[ \t]*|--arg-file(?:=|[ \t]+))"
                       r"([^\s;|&<>()]+)")
_LIST_BYTES = 1 << 20  # bytes of the files a text reads that are looked at, in all


def _read_lists(text: str, bases: list[Path]) -> str:
    """The text of the files ``text`` reads (`_FILE_READERS`, `_FILE_REDIRECT`, `_ARG_FILE`)
    that are regular files there now, from each working folder, ``\\n``-joined after a
    ``\\n`` ("" when none): ``cat stale.txt | xargs rm -rf`` deletes the paths the file
    lists. A file the line itself writes first is judged as such (`_Feeds`); past
    `_LIST_BYTES` in all, the rest is not read (its words then do not feed)."""
    if "<" not in text and not _FILE_READERS.search(text) and "xargs" not in text:
        return ""
    names: list[str] = []
    for m in _FILE_READERS.finditer(text):
        names += [w for w in m.group(1).split() if not w.startswith("-") and not w.isdigit()]
    names += [m.group(1) for m in _FILE_REDIRECT.finditer(text)]
    names += [m.group(1) for m in _ARG_FILE.finditer(text)]
    budget = _LIST_BYTES
    read: list[str] = []
    for name in dict.fromkeys(n.strip("'\"") for n in names):
        if not name or any(c in name for c in "$`*?") or name.startswith("/dev/"):
            continue
        for base in bases:
            path = _resolve(base, name)
            try:
                info = path.stat()
                if not stat.S_ISREG(info.st_mode) or budget <= 0:
                    continue
                with open(path, "rb") as f:
                    data = f.read(budget)
            except (OSError, ValueError):
                continue
            budget -= len(data)
            read.append(data.decode("utf-8", "replace"))
    return "".join("\n" + t for t in read)


# the commands that list a folder's entries (what a computed delete they feed may delete)
_LISTERS = re.compile(r"(?<![\w.-])(ls|dir|find|fd|fdfind|rg|du|git)(?![\w.-])")
# GNU ls (coreutils 9.1) options whose value may be the next word (getopt_long: a required
# argument; `--color[=WHEN]`, `--hyperlink[=WHEN]` take one only after `=`)
_LS_SHORT_VALUES = set("ITw")
_LS_LONG_VALUES = ("ignore", "hide", "width", "tabsize", "sort", "format", "time-style", "time",
                   "block-size", "quoting-style", "indicator-style")
# `$(pwd)`, `` `pwd` ``, `$PWD`, `${PWD}`: the working folder, as a start folder or operand
_WORKING_FOLDER = re.compile(r"^(\$\(\s*pwd(\s+-[LP])?\s*\)|`\s*pwd\s*`|\$\{?PWD\}?)")
_FIND_GLOBAL_OPTIONS = ("-H", "-L", "-P")  # before its start folders


@dataclass
class _Listing:
    """A folder a command lists whole: ``ls DIR`` (its entries, dot entries only with
    ``-a``/``-A``/``-f``; printed as bare names, so a delete fed them acts on those names in
    its own working folder), ``find START`` (everything below, limited by its ``-name``/
    ``-path`` tests, `_find_name_tests`: none stands for everything)."""

    folder: Path
    finds: bool
    names: list[tuple[str, str]] = field(default_factory=list)
    dot_entries: bool = True  # ls: its dot entries are listed

    def reaches(self, root: Path, spared: Path | None, bases: list[Path]) -> bool:
        """A delete fed this listing may delete some of ``root`` (``spared`` aside)."""
        if spared is not None and spared in (self.folder, *self.folder.parents):
            return False
        if self.finds:
            if not self.dot_entries and self.folder in root.parents:
                return self._lists_above_hidden(root, spared)
            return _deletes_some_of(self.folder, root, self.names, spared)
        # ls: an entry of the folder holding the root, as listed (`ls /p | xargs -I{} rm -rf
        # /p/{}`) or taken as a name in the delete's working folder (`ls | xargs rm -rf`)
        for top in (self.folder, *bases):
            if top in root.parents:
                entry = root.relative_to(top).parts[0]
                if (self.dot_entries or not entry.startswith(".")) and \
                        os.path.lexists(self.folder / entry):
                    return True
        return False

    def _lists_above_hidden(self, root: Path, spared: Path | None) -> bool:
        """fd without ``-H``: it neither lists a hidden entry nor goes into one, so of
        ``root``'s path below its folder it lists the folders before the first hidden part
        (``project`` on the way to ``project/.labledger``: deleting it deletes the ledger),
        and what is inside ``root`` only where no part is hidden."""
        parts = root.relative_to(self.folder).parts
        hidden = next((k for k, part in enumerate(parts) if part.startswith(".")), None)
        if hidden is None:
            return _deletes_some_of(self.folder, root, self.names, spared)
        return hidden > 0 and (not self.names or any(
            _find_test_passes(test, pattern, self.folder.joinpath(*parts[:k]), self.folder)
            for k in range(1, hidden + 1) for test, pattern in self.names))


def _listings_of(name: str, args: list[str], bases: list[Path]) -> list[_Listing]:
    """The folders ``ls ARGS`` or ``find ARGS`` lists whole, from each working folder: ls's
    folder operands (none: the working folder; with ``-d`` it lists the operands themselves,
    words that name what they name), find's start folders (none: the working folder). A
    computed or glob operand lists what its words name (`_Mentions`)."""
    args = [_WORKING_FOLDER.sub(".", a) for a in _without_redirections(args)]
    if name == "find":
        while args[:1] and args[0] in _FIND_GLOBAL_OPTIONS:
            args = args[1:]
        starts: list[str] = []
        for a in args:
            if a.startswith(("-", "(", "!")):
                break
            starts.append(a)
        names = _find_name_tests(args)
        return [_Listing(place, True, names)
                for start in starts or ["."] for place in _literal_places(start, bases)]
    if name in ("fd", "fdfind"):
        starts, names, hidden = _fd_listing(args)
        return [_Listing(place, True, names, dot_entries=hidden)
                for start in starts or ["."] for place in _literal_places(start, bases)]
    whole = _recursive_listing(name, args)
    if whole is not None:
        return [_Listing(place, True)
                for start in whole or ["."] for place in _literal_places(start, bases)]
    if name not in ("ls", "dir"):
        return []
    operands: list[str] = []
    flags: set[str] = set()
    ended, value_next = False, False
    for a in args:
        if value_next:
            value_next = False
        elif ended or not a.startswith("-") or a == "-":
            operands.append(a)
        elif a == "--":
            ended = True
        elif a.startswith("--"):
            option, eq, _ = a[2:].partition("=")
            flags.add("--" + option)
            value_next = not eq and bool(option) and any(
                long.startswith(option) for long in _LS_LONG_VALUES)
        else:
            for k, ch in enumerate(a[1:], 1):
                flags.add("-" + ch)
                if ch in _LS_SHORT_VALUES:  # `-I PATTERN`, `-Ipattern`: the rest is its value
                    value_next = k == len(a) - 1
                    break
    if flags & {"-d", "--directory"}:
        return []
    dots = bool(flags & {"-a", "-A", "-f", "--all", "--almost-all"})
    places = [p for word in operands for p in _literal_places(word, bases)] if operands \
        else list(bases)
    return [_Listing(p, False, dot_entries=dots) for p in places if p.is_dir()]


# fd(1) (fd 8-10) options taking a value
_FD_VALUES = {"-d", "--max-depth", "--min-depth", "--exact-depth", "-t", "--type", "-e",
              "--extension", "-E", "--exclude", "-S", "--size", "--changed-within",
              "--changed-before", "--newer", "--older", "-o", "--owner", "--batch-size",
              "--ignore-file", "-c", "--color", "-j", "--threads", "--max-buffer-time",
              "--max-results", "--base-directory", "--path-separator", "--search-path",
              "--format", "--and", "--hyperlink"}


def _fd_listing(args: list[str]) -> tuple[list[str], list[tuple[str, str]], bool]:
    """What ``fd [OPTIONS] [PATTERN] [PATH...]`` prints: (its search folders, none: the
    working folder; find-style name tests limiting it, none: every path; whether it goes
    into hidden folders, ``-H``/``-u``). ``-e EXT`` is ``-iname '*.EXT'``; a ``-g`` PATTERN
    ``-name PATTERN``; any other PATTERN a regular expression searched in each name
    (`_fd_pattern`). The words from ``-x``/``-X`` on (also in a bundle, ``-Hx``,
    `fd_exec_start`) are the command it runs, not its own."""
    from labledger.reconcile.shell_words import fd_exec_start

    cut = next((k for k, a in enumerate(args) if fd_exec_start(a) is not None), len(args))
    bundle = re.match(r"-[^-xX][^xX]*", args[cut]) if cut < len(args) else None
    args = args[:cut] + ([bundle.group()] if bundle else [])  # (`-Hx rm`: its -H)
    operands, valued, flags = _options(args, _FD_VALUES)
    starts = operands[1:] + _every_value(args, _FD_VALUES, {"--search-path"})
    # (fd matches an extension whatever its case: `-e json` lists METRICS.JSON, tried)
    names = [("-iname", "*." + ext.lstrip("."))
             for ext in _every_value(args, _FD_VALUES, {"-e", "--extension"})]
    if operands and not names:  # (with -e as well, both must match: -e alone is wider)
        names = _fd_pattern(operands[0], flags)
    hidden = bool(flags & {"H", "--hidden", "u", "--unrestricted"})
    return starts, names, hidden


def _fd_pattern(pattern: str, flags: set[str]) -> list[tuple[str, str]]:
    """fd's PATTERN as a name test (fd(1)): a regular expression searched in the name
    (``-p``/``--full-path``: in the absolute path), a glob matching it whole (``-g``), a
    substring (``-F``); "smart case": case-insensitive unless it holds an upper-case letter
    (``-i``, ``-s`` say which). Tried with fd 8.6: ``fd CHECKPOINT`` does not list
    ``Checkpoint.pt``, ``fd checkpoint`` does. [] (every name) for a regular expression
    Python does not read as fd does, or may take long to search (`_QUANTIFIED_GROUP`)."""
    fold = bool(flags & {"i", "--ignore-case"}) or (
        not flags & {"s", "--case-sensitive"} and pattern == pattern.lower())
    full = bool(flags & {"p", "--full-path"})
    if flags & {"g", "--glob"}:
        return [(("-ipath" if full else "-iname") if fold else ("-path" if full else "-name"),
                 pattern)]
    if flags & {"F", "--fixed-strings"}:
        pattern = re.escape(pattern)
    elif _QUANTIFIED_GROUP.search(pattern):  # (Python's search may backtrack for minutes)
        return []
    try:
        re.compile(pattern)
    except (re.error, RecursionError, OverflowError):  # (Rust's syntax: `\pL`)
        return []
    return [(_FD_PATH_REGEX if full else _FD_NAME_REGEX, ("(?i)" if fold else "") + pattern)]


# a group with a quantifier after it (`(a+)+`): fd's regular expressions never backtrack,
# Python's may, so such a pattern is not searched here
_QUANTIFIED_GROUP = re.compile(r"\)[*+?{]")
# the name tests `_fd_pattern` adds to find's: fd's regular expression, searched in the name
# or in the absolute path
_FD_NAME_REGEX, _FD_PATH_REGEX = "fd-name-regex", "fd-path-regex"


def _recursive_listing(name: str, args: list[str]) -> list[str] | None:
    """The folders a lister that prints every path below its folders lists (empty: the
    working folder), or None for another command: ``fd [PATTERN] [PATH...]`` (fd 8: the
    pattern is matched, so every path may be printed), ``rg --files [PATH...]``, ``git
    ls-files [PATH...]`` (what it lists is below the working folder), ``du -a [PATH...]``."""
    words = [a for a in args if not a.startswith("-")]
    if name in ("fd", "fdfind"):
        return words[1:]
    if name == "rg" and "--files" in args:
        return words
    if name == "du" and any(a == "--all" or (a.startswith("-") and not a.startswith("--")
                                             and "a" in a) for a in args):
        return words
    if name == "git":
        rest = _git_where(args)[1]
        return [] if rest[:1] == ["ls-files"] and not _lists_deleted_only(rest[1:]) else None
    return None


# git-ls-files(1) options that choose what it lists, besides ``-d``/``--deleted``
_LS_FILES_SELECTORS = {"-c", "--cached", "-m", "--modified", "-o", "--others", "-i",
                       "--ignored", "-s", "--stage", "-u", "--unmerged", "-k", "--killed"}


def _lists_deleted_only(args: list[str]) -> bool:
    """``git ls-files -d`` (``--deleted``, no other choice of what to list) prints only
    "files with an unstaged deletion" (git-ls-files(1)): gone from the work tree, a delete of
    them deletes nothing (``git rm $(git ls-files --deleted)``, oh-my-zsh's ``gwip``)."""
    flags: set[str] = set()
    for a in args:
        if a == "--":
            break
        if a.startswith("--"):
            flags.add(a.split("=", 1)[0])
        elif a.startswith("-"):
            flags.update("-" + ch for ch in a[1:])
    return bool(flags & {"-d", "--deleted"}) and not flags & _LS_FILES_SELECTORS


def _literal_places(word: str, bases: list[Path]) -> list[Path]:
    """The places a word names from each working folder, its braces expanded (a glob or a
    computed word: none here; `_Mentions` reads its words)."""
    found: list[Path] = []
    for each in _braces(word):
        places, globs, computed = _expand(each, bases)
        if not computed and not globs:
            found += places
    return found


def _glob_part_matches(pattern: str, name: str) -> bool:
    """One path part of a glob matches ``name`` as the shell matches it (a leading dot only
    by a leading dot)."""
    import fnmatch

    if not any(c in pattern for c in "*?["):
        return pattern == name
    if name.startswith(".") and not pattern.startswith("."):
        return False
    return fnmatch.fnmatchcase(name, pattern)


def _deletes_some_of(place: Path, root: Path, names: list[tuple[str, str]],
                     spared: Path | None = None) -> bool:
    """Deleting ``place`` (limited to entries that pass one of find's ``names`` tests; none:
    everything) deletes some of ``root`` (``spared``, a folder inside it, aside)."""
    if not _overlaps(place, root):
        return False
    if not names or place == root or root in place.parents:
        return True  # at or inside the root: whatever matches there is the root's
    # Above the root: find descends into it, so what it deletes there is whatever the root
    # (or a folder between) holds that passes a test. The root's entries now are what a
    # find run now would meet; too many to look at: cannot tell, so yes.
    between = [p for p in (root, *root.parents) if place in p.parents]
    if any(_find_test_passes(test, pattern, p, place) for p in between
           for test, pattern in names):
        return True
    seen = 0
    for folder, dirs, files in os.walk(root):
        here = Path(folder)
        if spared is not None:
            dirs[:] = [d for d in dirs if here / d != spared]
        for entry in (*dirs, *files):
            seen += 1
            if seen > _WALK_LIMIT:
                return True
            if any(_find_test_passes(test, pattern, here / entry, place)
                   for test, pattern in names):
                return True
    return False


def _find_test_passes(test: str, pattern: str, path: Path, start: Path) -> bool:
    """Whether find's ``-name``/``-iname``/``-path``/``-ipath`` test (or fd's pattern,
    `_fd_pattern`), started at ``start``, passes for ``path``. A path test is tried on the
    forms find may print (``./a/b``, ``a/b``, absolute): started from a word this cannot
    see, any of them may be the one."""
    import fnmatch

    if test in (_FD_NAME_REGEX, _FD_PATH_REGEX):  # (a pattern `_fd_pattern` checked)
        return re.search(pattern, path.name if test == _FD_NAME_REGEX else str(path)) \
            is not None
    fold = test.startswith("-i")
    if test in ("-name", "-iname"):
        candidates = [path.name]
    else:
        rel = os.path.relpath(path, start)
        candidates = [str(path), rel, "./" + rel]
    if fold:
        pattern = pattern.lower()
        candidates = [c.lower() for c in candidates]
    return any(fnmatch.fnmatchcase(c, pattern) for c in candidates)


def _braces(word: str) -> list[str]:
    """Brace expansion, as the shell does it: ``{results,tmp}`` -> results, tmp."""
    m = re.search(r"\{([^{}]*,[^{}]*)\}", word)
    if m is None:
        return [word]
    out: list[str] = []
    for choice in m.group(1).split(",")[:64]:
        out += _braces(word[:m.start()] + choice + word[m.end():])
    return out[:256]


def _expand(target: str, bases: list[Path]) -> tuple[list[Path], list[str], bool]:
    """Where ``target`` may point, from each working folder the command line passes through:
    (places, absolute globs, true when part of it is computed when it runs: then only its
    fixed folder part is a place: `rm -rf "$tmp"` names no place, `rm -rf results/$x` names
    one inside results). A glob is kept as one, never expanded here (``data/*/*.jpg`` may
    match 100,000 files): `_glob_places` matches it against each protected folder."""
    places: list[Path] = []
    globs: list[str] = []
    computed = False
    for base in bases:
        text = _known_folders(target, base)
        try:
            text = os.path.expandvars(os.path.expanduser(text))
        except ValueError:  # a NUL byte: no such path
            computed = True
            continue
        if "$" in text or "`" in text or "\0" in text:
            computed = True
            head = re.split(r"[$`\0]", text, maxsplit=1)[0]
            if "/" not in head:
                continue
            text = head.rsplit("/", 1)[0] or "/"
        if any(c in text for c in "*?["):
            import glob

            # the working folder's own name is literal (a `[` in it is no bracket)
            globs.append(text if os.path.isabs(text) else
                         os.path.normpath(os.path.join(glob.escape(str(base)), text)))
            continue
        place = _resolve(base, text)
        places.append(place)
        # where it really is (`L/config.toml`, L linked to .labledger): its folder's links
        # followed, its own name not (`rm -rf L` removes the link); with a trailing slash
        # (`rm -rf L/`) the name too: rm follows it into the folder it points to
        real = _real(place) if text.endswith(("/", "/.")) else \
            _real(place.parent) / place.name if place.name else place
        if real != place:
            places.append(real)
    return places, globs, computed


# what a word may say of the folder it runs in: `$PWD`, `${PWD}`, `~+`, `$(pwd)`, `` `pwd` ``
# (`-L`/`-P`); `$(git rev-parse --show-toplevel)`: the top of its repository
_PWD_WORD = re.compile(r"\$\{PWD\}|\$PWD(?!\w)|~\+"
                       r"|\$\(\s*pwd(?:\s+-[LP])?\s*\)|`\s*pwd(?:\s+-[LP])?\s*`")
_TOPLEVEL_WORD = re.compile(r"\$\(\s*git\s+rev-parse\s+--show-toplevel\s*\)"
                            r"|`\s*git\s+rev-parse\s+--show-toplevel\s*`")


def _known_folders(word: str, base: Path) -> str:
    """``word`` with what it says of the folder it runs in, ``base``, replaced by that
    folder (`_PWD_WORD`), and ``git rev-parse --show-toplevel`` by the top of the
    repository holding ``base`` (the nearest folder with a ``.git``; left as written where
    there is none): ``rm -rf "$(pwd)"`` deletes the working folder, ledger and all."""
    if "$" not in word and "~" not in word and "`" not in word:
        return word
    text = _PWD_WORD.sub(lambda _: str(base), word)
    if "rev-parse" in text:
        top = next((f for f in (base, *base.parents) if (f / ".git").exists()), None)
        if top is not None:
            text = _TOPLEVEL_WORD.sub(lambda _: str(top), text)
    return text


def _glob_places(pattern: str, root: Path) -> Iterator[Path]:
    """What the absolute glob ``pattern`` matches now (what does not exist cannot be
    deleted) that is ``root``, a folder above it or something inside it, matched part by
    part against ``root``'s own path: a glob that leaves that path costs no look at the disk,
    and inside ``root`` its matches are listed lazily (the caller stops at the first hit)."""
    import glob

    wanted, parts = pattern.split(os.sep)[1:], str(root).split(os.sep)[1:]
    if not all(_glob_part_matches(w, p) for w, p in zip(wanted, parts, strict=False)):
        return
    if len(wanted) <= len(parts):  # root or a folder above it: there when it is
        matched = os.sep + os.sep.join(parts[:len(wanted)])
        if os.path.lexists(matched):
            yield Path(matched)
        return
    rest = os.sep.join(wanted[len(parts):])
    for found in glob.iglob(os.path.join(glob.escape(str(root)), rest)):
        yield Path(os.path.normpath(found))


def _overlaps(place: Path, root: Path) -> bool:
    """Deleting ``place`` recursively deletes some of ``root``: it is the folder, above it,
    or inside it."""
    return place == root or place in root.parents or root in place.parents


def _resolve(base: Path, path: str) -> Path:
    try:
        p = Path(os.path.expanduser(path))
    except ValueError:  # a NUL byte: the shell would refuse it; judged as written
        p = Path(path)
    return Path(os.path.normpath(p if p.is_absolute() else base / p))
