"""The scrubbing rules: what is redacted, in every form, and what is deliberately kept."""

from __future__ import annotations

import json
import tomllib

import pytest
import yaml

from labledger.ingest.secrets import (
    REDACTED,
    is_secret_name,
    scrub_argv,
    scrub_config,
    scrub_env,
    scrub_text,
)


@pytest.mark.parametrize("name", [
    "--api-key", "api_key", "HF_TOKEN", "wandb.apiKey", "--password", "DB_PASSWD", "--auth",
    "X-Api-Key", "client_secret", "GOOGLE_APPLICATION_CREDENTIALS", "WANDB_API_KEY",
    "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "OPENAI_API_KEY", "GITHUB_TOKEN",
    "RUNPOD_API_KEY", "VAST_API_KEY", "HUGGING_FACE_HUB_TOKEN", "--oauth-code", "MYSQL_PWD",
    "session_cookie", "--api-keys",
])
def test_secret_names(name: str) -> None:
    assert is_secret_name(name)


@pytest.mark.parametrize("name", [
    "--lr", "--tokenizer", "--max-new-tokens", "max_tokens", "--author", "keypoints",
    "TOKENIZERS_PARALLELISM", "CUDA_VISIBLE_DEVICES", "--batch-size", "--monkey-patch",
])
def test_ordinary_names_stay(name: str) -> None:
    assert not is_secret_name(name)


def test_argv_forms() -> None:
    argv = ["python", "train.py", "--api-key", "S1", "--token=S2", "wandb.api_key=S3",
            "HF_TOKEN=S4", "+trainer.auth_token=S5", "--password", "-S6", "--lr", "3e-4",
            "--tokenizer", "gpt2", "--max-new-tokens", "128"]
    assert scrub_argv(argv) == [
        "python", "train.py", "--api-key", REDACTED, f"--token={REDACTED}",
        f"wandb.api_key={REDACTED}", f"HF_TOKEN={REDACTED}", f"+trainer.auth_token={REDACTED}",
        "--password", REDACTED, "--lr", "3e-4", "--tokenizer", "gpt2", "--max-new-tokens", "128"]


def test_a_secret_flag_followed_by_an_option_consumes_nothing() -> None:
    assert scrub_argv(["--use-auth-token", "--epochs", "3"]) == [
        "--use-auth-token", "--epochs", "3"]


def test_urls_headers_and_shapes_in_argv() -> None:
    argv = ["curl", "-H", "Authorization: Bearer abcdefgh12345678",
            "https://bob:hunter2@example.com/x", "--data-url=https://u:pw@h.io/d?token=T1&n=2",
            "-H", "X-Api-Key: K1", "--note", "ghp_" + "a" * 36,
            "git clone https://ghp_abcdefghijklmnopqrstuvwx123456@github.com/o/r"]
    scrubbed = scrub_argv(argv)
    joined = "\n".join(scrubbed)
    for secret in ("abcdefgh12345678", "hunter2", ":pw@", "T1", "K1", "ghp_"):
        assert secret not in joined, secret
    assert scrubbed[3] == "https://bob:***@example.com/x"
    assert "n=2" in scrubbed[4]
    assert scrubbed[-1] == "git clone https://***@github.com/o/r"


def test_bearer_outside_a_header() -> None:
    assert scrub_text("curl -H 'bearer abcdefgh12345678'") == f"curl -H 'bearer {REDACTED}'"


def test_plain_usernames_in_urls_stay() -> None:
    assert scrub_text("ssh://git@github.com/o/r") == "ssh://git@github.com/o/r"


def test_shell_snippet_keeps_the_rest_of_the_command() -> None:
    text = "HF_TOKEN=abc123 OMP_NUM_THREADS=4 python train.py --seed 1"
    assert scrub_text(text) == f"HF_TOKEN={REDACTED} OMP_NUM_THREADS=4 python train.py --seed 1"


@pytest.mark.parametrize(("text", "expected"), [
    ('api_key = "S1"\n', f'api_key = "{REDACTED}"\n'),
    ("password: two words # note\n", f'password: "{REDACTED}" # note\n'),
    ('"secret": "a\\"b",\n', f'"secret": "{REDACTED}",\n'),
    ("+    self.token = 'abc'\n", f"+    self.token = '{REDACTED}'\n"),
    ("lr: 0.1\n", "lr: 0.1\n"),
])
def test_line_mode(text: str, expected: str) -> None:
    assert scrub_text(text, line_values=True) == expected


def test_private_keys_are_removed_whole() -> None:
    text = ("x\n-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\nBBBB\n"
            "-----END OPENSSH PRIVATE KEY-----\ny")
    assert scrub_text(text) == f"x\n{REDACTED}\ny"


def test_env_is_an_allowlist_with_scrubbed_values() -> None:
    env = {"CUDA_VISIBLE_DEVICES": "0,1", "HF_TOKEN": "S1", "PATH": "/usr/bin",
           "HOME": "/root", "NCCL_DEBUG": "INFO", "TORCH_HUB_TOKEN": "S2",
           "TORCH_HOME": "https://u:S3@h", "MY_VAR": "x", "WORLD_SIZE": "8"}
    assert scrub_env(env) == {"CUDA_VISIBLE_DEVICES": "0,1", "NCCL_DEBUG": "INFO",
                              "TORCH_HOME": "https://u:***@h", "TORCH_HUB_TOKEN": REDACTED,
                              "WORLD_SIZE": "8"}


def test_env_extra_allow() -> None:
    assert scrub_env({"MY_VAR": "x", "MY_KEY": "y"}, allow=["MY_VAR", "MY_KEY"]) == {
        "MY_VAR": "x", "MY_KEY": REDACTED}


YAML = """\
model:
  lr: 0.001   # tuned
  tokenizer: gpt2
wandb:
  project: denoise
  api_key: 0123456789abcdef
  token: |
    line-one-secret
    line-two-secret
  entity: lab
data: https://reader:pa55word@data.example.com/set
"""


def test_yaml_config_keeps_its_layout() -> None:
    result = scrub_config("config.yaml", YAML.encode())
    text = result.data.decode()
    for secret in ("0123456789abcdef", "line-one-secret", "line-two-secret", "pa55word"):
        assert secret not in text, secret
    assert (result.method, result.verified) == ("text", True)
    assert "  lr: 0.001   # tuned\n" in text
    assert yaml.safe_load(text) == {
        "model": {"lr": 0.001, "tokenizer": "gpt2"},
        "wandb": {"project": "denoise", "api_key": REDACTED, "token": REDACTED, "entity": "lab"},
        "data": "https://reader:***@data.example.com/set"}


def test_json_config() -> None:
    raw = json.dumps({"lr": 0.1, "auth": {"password": "pw1"}, "api_key": 12345,
                      "urls": ["https://a:pw2@h"]}, indent=2).encode()
    result = scrub_config("c.json", raw)
    assert json.loads(result.data) == {"lr": 0.1, "auth": {"password": REDACTED},
                                       "api_key": REDACTED, "urls": ["https://a:***@h"]}
    assert result.redactions == 3


def test_toml_config() -> None:
    raw = b'lr = 0.1\n[wandb]\napi_key = "k1"\ntoken = 5\nname = "x"\n'
    result = scrub_config("c.toml", raw)
    assert tomllib.loads(result.data.decode()) == {
        "lr": 0.1, "wandb": {"api_key": REDACTED, "token": REDACTED, "name": "x"}}


def test_a_config_that_cannot_be_scrubbed_safely_is_withheld() -> None:
    raw = b'[wandb]\napi_key = """\nmultiline-secret\n"""\n'
    result = scrub_config("c.toml", raw)
    assert b"multiline-secret" not in result.data
    assert result.method == "withheld"


def test_a_clean_config_is_stored_byte_for_byte() -> None:
    raw = b"lr: 0.1\nbatch: 8\n"
    result = scrub_config("c.yaml", raw)
    assert (result.data, result.method, result.redactions) == (raw, "unchanged", 0)
