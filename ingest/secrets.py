"""Secrets never reach the ledger: scrub command lines, environments, URLs, diffs and configs.

Everything `labledger run` records about a launch passes through this module first, and only
the scrubbed text is ever encoded into an event or stored in the CAS. The rules, in the order
they apply:

* **Names that look like secrets.** A name (option, variable, config key, header) is secret
  when one of its parts contains ``token``, ``key``, ``secret``, ``password``, ``passwd``,
  ``pwd``, ``credential``, ``auth`` or ``cookie``, or it is a known
  provider variable (`PROVIDER_VARIABLES`). Parts split on ``-``, ``_``, ``.``, spaces and
  camelCase, so ``--api-key``, ``wandb.apiKey`` and ``HF_TOKEN`` are secret. A few ML words
  that merely contain a secret word are not (`BENIGN_PARTS`: ``tokenizer``, ``max_new_tokens``,
  ``keypoints``, ``author`` ...): redacting them would only damage the record.
* **Values of secret names** are replaced by `REDACTED` in every form: ``--api-key VALUE``,
  ``--api-key=VALUE``, ``token=VALUE`` / ``HF_TOKEN=VALUE`` (Hydra overrides, ``env`` prefixes),
  ``"api_key": "VALUE"`` (JSON), ``api_key: VALUE`` (YAML), ``api_key = "VALUE"`` (TOML, .env,
  Python source in a diff).
* **Credentials in URLs**: ``https://user:pass@host`` becomes ``https://user:***@host``; a
  user part alone that looks like a token (``https://ghp_...@github.com``) becomes ``***``.
* **Headers**: ``Authorization: <anything>``, ``Proxy-Authorization: ...``, and ``Bearer X`` /
  ``Token X`` (X at least 20 characters) anywhere in a string.
* **Well-known token shapes** wherever they appear, whatever they are called: GitHub
  (``ghp_``, ``github_pat_``...), Hugging Face (``hf_``), OpenAI/Anthropic (``sk-``), Slack
  (``xox?-``), AWS access key ids (``AKIA``...), GitLab (``glpat-``), JWTs, PEM private keys.

What this cannot catch: a secret under an innocent name with no recognisable shape (a
``--run-name`` that happens to be a password). The environment is therefore recorded as an
allowlist (`ENV_ALLOWLIST`, `ENV_PREFIXES`), not a denylist: a variable nobody listed is simply
absent, and listed values are still scrubbed.

All functions are pure (text in, text out); nothing here touches the ledger.
"""

from __future__ import annotations

import importlib
import json
import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

REDACTED = "<redacted>"
URL_REDACTED = "***"

SECRET_WORDS = ("token", "key", "secret", "password", "passwd", "pwd", "credential", "auth",
                "cookie")

# Parts that contain a secret word but name ordinary training options.
BENIGN_PARTS = frozenset({
    "tokenizer", "tokenizers", "tokenize", "tokenized", "tokenization", "tokens", "keypoint",
    "keypoints", "keyframe", "keyframes", "keyword", "keywords", "monkey", "hotkey",
    "author", "authors", "authored", "authorship",
})
# Full names that are never secret although a part looks like one.
BENIGN_NAMES = frozenset({"tokenizers_parallelism"})

PROVIDER_VARIABLES = frozenset({
    "WANDB_API_KEY", "WANDB_KEY", "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "HUGGINGFACE_TOKEN",
    "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY", "GITHUB_TOKEN", "GH_TOKEN", "GITLAB_TOKEN", "RUNPOD_API_KEY",
    "VAST_API_KEY", "LAMBDA_API_KEY", "PAPERSPACE_API_KEY", "COMET_API_KEY", "NEPTUNE_API_TOKEN",
    "MLFLOW_TRACKING_PASSWORD", "MLFLOW_TRACKING_TOKEN", "KAGGLE_KEY", "AZURE_CLIENT_SECRET",
    "GOOGLE_APPLICATION_CREDENTIALS", "DOCKER_PASSWORD", "PGPASSWORD", "MYSQL_PWD",
    "SSH_AUTH_SOCK", "NGC_API_KEY", "REPLICATE_API_TOKEN", "TOGETHER_API_KEY",
    "AUTODL_TOKEN", "MODELSCOPE_API_TOKEN", "DASHSCOPE_API_KEY",
})

# The environment is recorded only for these names (and prefixes); values are still scrubbed.
ENV_ALLOWLIST = frozenset({
    "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "CUDA_LAUNCH_BLOCKING",
    "CUBLAS_WORKSPACE_CONFIG", "PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_ENABLE_MPS_FALLBACK",
    "OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NUMEXPR_NUM_THREADS",
    "PYTHONHASHSEED", "PYTHONOPTIMIZE", "TOKENIZERS_PARALLELISM",
    "WORLD_SIZE", "RANK", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "GROUP_RANK", "NODE_RANK",
    "MASTER_ADDR", "MASTER_PORT",
    "SLURM_JOB_ID", "SLURM_JOB_NAME", "SLURM_ARRAY_JOB_ID", "SLURM_ARRAY_TASK_ID", "SLURM_PROCID",
    "SLURM_LOCALID", "SLURM_NODEID", "SLURM_NTASKS", "SLURM_JOB_NODELIST", "SLURM_JOB_PARTITION",
    "SLURM_CPUS_PER_TASK", "SLURM_GPUS", "SLURM_STEP_ID",
    "HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE", "WANDB_MODE",
    "WANDB_PROJECT", "WANDB_ENTITY", "CONDA_DEFAULT_ENV",
})
ENV_PREFIXES = ("NCCL_", "TORCH_", "TORCHELASTIC_", "CUDNN_", "XLA_", "NVIDIA_", "ROCM_", "HIP_")

_SPLIT_RE = re.compile(r"[-_.\s/:]+|(?<=[a-z0-9])(?=[A-Z])")
_NAME_RE = r"[A-Za-z_][A-Za-z0-9_.\-]*"

# scheme://user:pass@ or scheme://user@ (user kept unless it looks like a token)
_URL_RE = re.compile(r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.\-]*://)(?P<user>[^\s:/?#@'\"]*)"
                     r"(?::(?P<password>[^\s/?#@'\"]*))?@")
_AUTH_HEADER_RE = re.compile(r"(?i)\b((?:proxy-)?authorization\s*[:=]\s*)"
                             r"(\"[^\"]*\"|'[^']*'|[^\r\n\"']+)")
_SCHEME_RE = re.compile(r"(?i)\b(bearer(?=\s+[A-Za-z0-9._~+/=\-]{8,})"
                        r"|token(?=\s+[A-Za-z0-9._~+/=\-]{20,}))"
                        r"(\s+)(?!<redacted>)[A-Za-z0-9._~+/=\-]+")
_SHAPES = [
    re.compile(r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}"),
    re.compile(r"\bgithub_pat_[A-Za-z0-9_]{20,}"),
    re.compile(r"\bglpat-[A-Za-z0-9_\-]{16,}"),
    re.compile(r"\bhf_[A-Za-z0-9]{20,}"),
    re.compile(r"\bsk-(?:[A-Za-z0-9_\-]{16,})"),
    re.compile(r"\bxox[abprs]-[A-Za-z0-9\-]{10,}"),
    re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    re.compile(r"\beyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"),
]
_PEM_RE = re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?"
                     r"(?:-----END [A-Z ]*PRIVATE KEY-----|\Z)", re.DOTALL)
_TOKENISH_USER_RE = re.compile(r"^(?:[A-Za-z0-9_\-]{24,}|(?:ghp|gho|ghs|hf|glpat)[_\-].+|"
                               r"x-access-token|oauth2|x-token-auth)$")

# name <sep> value, where the name is checked by `is_secret_name`. Quoted values are matched
# whole (JSON escapes included); unquoted ones stop at whitespace, or at the end of the line in
# line mode (YAML/TOML/.env), where a value may contain spaces.
_QUOTED = r"\"(?:[^\"\\\n]|\\.)*\"|'[^'\n]*'"
_ASSIGN_RE = re.compile(
    r"(?P<lead>(?<![A-Za-z0-9_])[\"']?)(?P<name>" + _NAME_RE + r")(?P<close>[\"']?)"
    r"(?P<sep>[ \t]*(?::|=|:=)[ \t]*)"
    r"(?P<value>" + _QUOTED + r"|(?![\[{(|>&\s])[^\s\"',;&}\]]+)")
_ASSIGN_LINE_RE = re.compile(
    r"(?P<lead>(?<![A-Za-z0-9_])[\"']?)(?P<name>" + _NAME_RE + r")(?P<close>[\"']?)"
    r"(?P<sep>[ \t]*(?::|=|:=)[ \t]*)"
    r"(?P<value>" + _QUOTED + r"|(?![\[{(|>&\s])[^\n\"',;}\]]*?"
    r"(?=[ \t]+#|[ \t]*[,;}\]\n]|[ \t]*$))", re.MULTILINE)
# A YAML key whose value is a block scalar (| or >): its more-indented lines are the value.
_YAML_BLOCK_RE = re.compile(r"^(?P<indent>[ \t]*)(?:- )?[\"']?(?P<name>" + _NAME_RE +
                            r")[\"']?[ \t]*:[ \t]*[|>][+\-0-9]*[ \t]*$", re.MULTILINE)


def _parts(name: str) -> list[str]:
    return [p.lower() for p in _SPLIT_RE.split(name.strip().lstrip("-+~")) if p]


def is_secret_name(name: str) -> bool:
    """Whether an option, variable, key or header called ``name`` carries a secret value."""
    bare = name.strip().lstrip("-+~")
    if bare.upper() in PROVIDER_VARIABLES:
        return True
    lowered = bare.lower().replace("-", "_")
    if lowered in BENIGN_NAMES:
        return False
    for part in _parts(bare):
        if part in BENIGN_PARTS:
            continue
        if any(word in part for word in SECRET_WORDS):
            return True
    return False


def _scrub_url(match: re.Match[str]) -> str:
    user, password = match.group("user"), match.group("password")
    if password is not None:
        return f"{match.group('scheme')}{user}:{URL_REDACTED}@"
    if user and _TOKENISH_USER_RE.match(user):
        return f"{match.group('scheme')}{URL_REDACTED}@"
    return match.group(0)


def _redact_value(value: str, *, quote_bare: bool = False) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[0] + REDACTED + value[0]
    # In files a bare marker would break JSON and TOML; quoted it is a string in every format.
    return f'"{REDACTED}"' if quote_bare else REDACTED


def _sub_assignments(pattern: re.Pattern[str], text: str, *, quote_bare: bool) -> str:
    """Redact the values of secret names. A non-secret match consumes only its name and
    separator, so an assignment inside its value (``url: https://h/?token=X``) is still seen."""
    out: list[str] = []
    pos = 0
    while True:
        match = pattern.search(text, pos)
        if match is None:
            break
        value = match.group("value")
        if is_secret_name(match.group("name")) and value and REDACTED not in value:
            out.append(text[pos:match.start("value")])
            out.append(_redact_value(value, quote_bare=quote_bare))
            pos = match.end("value")
        else:
            out.append(text[pos:match.end("sep")])
            pos = match.end("sep")
    out.append(text[pos:])
    return "".join(out)


def scrub_text(text: str, *, line_values: bool = False) -> str:
    """Redact every secret the rules above can see in free text.

    ``line_values`` treats an unquoted value after ``name:``/``name=`` as running to the end of
    the line (YAML, TOML, .env files and diffs); otherwise it stops at whitespace (a command
    line or a shell snippet).
    """
    if not text:
        return text
    text = _PEM_RE.sub(REDACTED, text)
    text = _URL_RE.sub(_scrub_url, text)
    text = _AUTH_HEADER_RE.sub(lambda m: m.group(1) + _redact_value(m.group(2).strip()), text)
    text = _SCHEME_RE.sub(lambda m: m.group(1) + m.group(2) + REDACTED, text)
    for shape in _SHAPES:
        text = shape.sub(REDACTED, text)
    return _sub_assignments(_ASSIGN_LINE_RE if line_values else _ASSIGN_RE, text,
                            quote_bare=line_values)


def _option_name(arg: str) -> str | None:
    """``--api-key`` / ``-p`` -> the name; anything else -> None."""
    if arg.startswith("-") and len(arg) > 1 and not arg[1:2].isdigit() and arg != "--":
        return arg.lstrip("-")
    return None


def scrub_argv(argv: Sequence[str]) -> list[str]:
    """A command line with every secret value replaced by `REDACTED`.

    Handles ``--name VALUE``, ``--name=VALUE``, ``name=VALUE`` (any element, Hydra style),
    ``-H "Authorization: ..."``, URLs with credentials and well-known token shapes. A secret
    option's next element is taken as its value unless it is itself a long option (``--x``).
    """
    out: list[str] = []
    redact_next = False
    for arg in argv:
        if redact_next:
            redact_next = False
            if not arg.startswith("--"):
                out.append(REDACTED)
                continue
        name = _option_name(arg)
        if name is not None:
            key, eq, value = name.partition("=")
            if eq:
                prefix = arg[: len(arg) - len(value)]
                out.append(prefix + (REDACTED if is_secret_name(key) else scrub_text(value)))
                continue
            redact_next = is_secret_name(key)
            out.append(arg)
            continue
        out.append(scrub_text(arg))
    return out


def scrub_env(environ: Mapping[str, str], *, allow: Iterable[str] = ()) -> dict[str, str]:
    """The allowlisted part of an environment, with secret values redacted.

    Only `ENV_ALLOWLIST`, names starting with one of `ENV_PREFIXES`, and ``allow`` are kept.
    """
    extra = frozenset(allow)
    kept: dict[str, str] = {}
    for name in sorted(environ):
        if not (name in ENV_ALLOWLIST or name in extra or name.startswith(ENV_PREFIXES)):
            continue
        value = environ[name]
        kept[name] = REDACTED if is_secret_name(name) else scrub_text(value)
    return kept


# --- structured files ------------------------------------------------------------------------
@dataclass(frozen=True)
class Scrubbed:
    """Scrubbed bytes and what was done to them.

    ``redactions`` counts replaced values; ``method`` says how (``"text"``, ``"json"``,
    ``"unchanged"``); ``verified`` is True when the scrubbed file was parsed again and no secret
    key still holds a plain value (False when the format has no parser here: the text rules
    alone applied).
    """

    data: bytes
    redactions: int
    method: str
    verified: bool


def _leaks(value: Any) -> bool:
    """Whether a parsed document still holds a non-redacted scalar under a secret key."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            if isinstance(key, str) and is_secret_name(key) and not isinstance(
                    item, Mapping | list) and item not in (None, "", REDACTED) and not (
                    isinstance(item, bool)):
                return True
            if _leaks(item):
                return True
    elif isinstance(value, list):
        return any(_leaks(item) for item in value)
    elif isinstance(value, str):
        return scrub_text(value) != value
    return False


def _redact_tree(value: Any) -> tuple[Any, int]:
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        count = 0
        for key, item in value.items():
            if isinstance(key, str) and is_secret_name(key) and not isinstance(
                    item, Mapping | list) and item not in (None, "", REDACTED) and not (
                    isinstance(item, bool)):
                out[key] = REDACTED
                count += 1
            else:
                out[key], sub = _redact_tree(item)
                count += sub
        return out, count
    if isinstance(value, list):
        items = [_redact_tree(item) for item in value]
        return [i for i, _ in items], sum(c for _, c in items)
    if isinstance(value, str):
        scrubbed = scrub_text(value)
        return scrubbed, int(scrubbed != value)
    return value, 0


def _yaml_blocks(text: str) -> str:
    """A YAML block scalar (``key: |`` + indented lines) under a secret key becomes one
    ``key: "<redacted>"`` line."""
    out: list[str] = []
    skip_indent: int | None = None
    for line in text.split("\n"):
        if skip_indent is not None:
            stripped = line.lstrip(" \t")
            if not stripped or len(line) - len(stripped) > skip_indent:
                continue
            skip_indent = None
        match = _YAML_BLOCK_RE.match(line)
        if match and is_secret_name(match.group("name")):
            skip_indent = len(match.group("indent"))
            head = line.rstrip()
            line = head[: head.rindex(":") + 1] + f' "{REDACTED}"'
        out.append(line)
    return "\n".join(out)


def _parse(kind: str, text: str) -> tuple[bool, Any]:
    """(parser available, parsed document); raises ValueError when the text does not parse."""
    if kind == "json":
        return True, json.loads(text)
    if kind == "toml":
        return True, tomllib.loads(text)
    if kind == "yaml":
        try:  # optional (and untyped): only used to double-check the text rules
            yaml: Any = importlib.import_module("yaml")
        except ImportError:
            return False, None
        try:
            return True, yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise ValueError(str(exc)) from None
    return False, None


def config_kind(name: str) -> str:
    lowered = name.lower()
    for suffix, kind in ((".json", "json"), (".toml", "toml"), (".yaml", "yaml"),
                         (".yml", "yaml")):
        if lowered.endswith(suffix):
            return kind
    return "text"


def scrub_config(name: str, data: bytes) -> Scrubbed:
    """Scrub a configuration file's bytes, keeping its formatting wherever possible.

    The line rules of `scrub_text` run first (they keep every other byte as it was). For JSON,
    TOML and YAML (when PyYAML is installed) the result is parsed again: if a secret key still
    holds a plain value, JSON is re-serialised from the redacted document, and any other format
    is replaced by a one-line notice (its digest then stands for a file the ledger will not hold).
    Binary (non-UTF-8) files are returned unchanged with ``verified`` False.
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return Scrubbed(data, 0, "unchanged", False)
    kind = config_kind(name)
    scrubbed = scrub_text(text, line_values=True)
    if kind == "yaml":
        scrubbed = _yaml_blocks(scrubbed)
    redactions = scrubbed.count(REDACTED) + scrubbed.count(URL_REDACTED + "@") - (
        text.count(REDACTED) + text.count(URL_REDACTED + "@"))
    try:
        has_parser, parsed = _parse(kind, scrubbed)
    except (ValueError, TypeError):
        has_parser, parsed = True, None
        parses = False
    else:
        parses = True
    if not has_parser:
        return Scrubbed(scrubbed.encode(), redactions, "text" if redactions else "unchanged",
                        False)
    if parses and not _leaks(parsed):
        return Scrubbed(scrubbed.encode(), redactions, "text" if redactions else "unchanged",
                        True)
    if kind == "json":
        try:
            original = json.loads(text)
        except ValueError:
            original = None
        if original is not None:
            tree, count = _redact_tree(original)
            return Scrubbed((json.dumps(tree, indent=2, ensure_ascii=False) + "\n").encode(),
                            count, "json", True)
    notice = f"# labledger: {name} could not be scrubbed safely; its content was not stored\n"
    return Scrubbed(notice.encode(), max(redactions, 1), "withheld", True)
