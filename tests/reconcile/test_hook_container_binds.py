"""`labledger hook` against commands a container runs over a folder bound from the host.

``docker run -v /data/exp1:/w img rm -rf /w/.labledger`` deletes ``/data/exp1/.labledger`` on
the host: a bind mount is the host folder itself (docs.docker.com, "Bind mounts": "a file or
directory on the host machine is mounted from the host into a container"). The command the
container runs was judged by its own paths, ``/w/.labledger``, which name nothing here: it
passed, unless the line happened to spell ``$PWD`` (then every path was computed and judged by
the words the line mentions). Now each path under a bind is read as the host path it is:

* ``docker|podman|nerdctl run``, ``docker compose run``, ``docker container run``:
  ``-v|--volume SRC:DST[:OPTS]`` where SRC is a host path (absolute, ``./``, ``~``, ``$PWD``,
  ``$(pwd)``; a bare name is a named volume, left alone), ``--mount
  type=bind,source|src=SRC,target|destination|dst=DST`` (docker's keys); read-only binds
  (``:ro``, ``readonly``) delete nothing and are left out; ``-w|--workdir`` under a bind is
  where relative paths start;
* ``apptainer|singularity exec -B|--bind SRC[:DST[:OPTS]][,...]`` (its default binds,
  ``$HOME``, ``$PWD``, ``/tmp``, keep their paths).

Short options bundle as getopt reads them: ``-itv SRC:DST``, ``-v/data:/w``, ``-v"$(pwd)":/w``
(before, a bundle was read by its LAST letter, so ``-v$(pwd):/w`` took the image for the
value of a ``-w`` and the command for the image: ``rm`` was never judged).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from labledger.reconcile.shell_words import simple_commands, skip_options
from tests.reconcile.test_hook_writes import _judged, box  # noqa: F401 - the project fixture


def _argvs(line: str) -> list[list[str]]:
    return [c.argv for c in simple_commands(line, "/tmp")]


@pytest.mark.parametrize(("line", "inner"), [
    ("docker run -v /data/exp1:/w img rm -rf /w/.labledger",
     ["rm", "-rf", "/data/exp1/.labledger"]),
    ("docker run --volume=/data/exp1:/w:rw,z img rm -rf /w", ["rm", "-rf", "/data/exp1"]),
    ("docker run -itv /data:/w img rm -rf /w/exp1", ["rm", "-rf", "/data/exp1"]),
    ("docker run -v/data:/w img rm -rf /w/exp1", ["rm", "-rf", "/data/exp1"]),
    ("docker run -v=/data:/w img rm -rf /w/exp1", ["rm", "-rf", "/data/exp1"]),
    ("docker run -v \"$(pwd)\":/w img rm -rf /w/x", ["rm", "-rf", "$PWD/x"]),
    ("docker run -v \"$(pwd)\"/runs:/w img rm -rf /w/x", ["rm", "-rf", "$PWD/runs/x"]),
    ("docker run -v ./runs:/w img rm -rf /w/x", ["rm", "-rf", "./runs/x"]),
    ("docker run -v /data:/w -v /scratch:/w/tmp img rm -rf /w/tmp/a /w/b",
     ["rm", "-rf", "/scratch/a", "/data/b"]),  # the deepest bind first
    ("docker run --mount type=bind,source=/data,target=/w img rm -rf /w/x",
     ["rm", "-rf", "/data/x"]),
    ("docker run --mount type=bind,src=/data,dst=/w img rm -rf /w/x", ["rm", "-rf", "/data/x"]),
    ("podman run -v /data:/w img rm -rf /w/x", ["rm", "-rf", "/data/x"]),
    ("docker compose run -v /data:/w svc rm -rf /w/x", ["rm", "-rf", "/data/x"]),
    ("docker container run -v /data:/w img rm -rf /w/x", ["rm", "-rf", "/data/x"]),
    ("apptainer exec -B /data:/w img.sif rm -rf /w/x", ["rm", "-rf", "/data/x"]),
    ("singularity exec --bind /a:/x,/data:/w img.sif rm -rf /w/x", ["rm", "-rf", "/data/x"]),
    # not a bind's path: as written
    ("docker run -v /data:/workspace img rm -rf /w/x", ["rm", "-rf", "/w/x"]),
    ("docker run -v /data:/w img rm -rf /work/x /w.bak", ["rm", "-rf", "/work/x", "/w.bak"]),
    ("docker run -v data:/w img rm -rf /w/x", ["rm", "-rf", "/w/x"]),  # a named volume
    ("docker run -v /w img rm -rf /w/x", ["rm", "-rf", "/w/x"]),  # an anonymous volume
    ("docker run -v /data:/w:ro img rm -rf /w/x", ["rm", "-rf", "/w/x"]),  # read-only
    ("docker run --mount type=bind,src=/data,dst=/w,readonly img rm -rf /w/x",
     ["rm", "-rf", "/w/x"]),
    ("docker run --mount type=volume,src=data,dst=/w img rm -rf /w/x", ["rm", "-rf", "/w/x"]),
    ("docker exec c1 rm -rf /w/x", ["rm", "-rf", "/w/x"]),  # (its binds are not known here)
])
def test_a_containers_paths_under_a_bind_are_the_host_paths(line: str,
                                                             inner: list[str]) -> None:
    assert _argvs(line)[-1] == inner


def test_inside_scripts_and_programs_too() -> None:
    argvs = _argvs("docker run -v /data:/w img bash -c 'rm -rf /w/a && ls /w'")
    assert ["rm", "-rf", "/data/a"] in argvs
    assert ["ls", "/data"] in argvs
    argvs = _argvs("docker run -v /data:/w img python -c 'import shutil; shutil.rmtree(\"/w/a\")'")
    assert argvs[-1] == ["python", "-c", "import shutil; shutil.rmtree(\"/data/a\")"]


@pytest.mark.parametrize(("line", "inner"), [
    ("docker run --rm --entrypoint rm -v /data:/w img -rf /w/x", ["rm", "-rf", "/data/x"]),
    ("docker run --entrypoint=/bin/rm -v /data:/w img -rf /w/x", ["/bin/rm", "-rf", "/data/x"]),
    ("podman run --entrypoint bash -v /data:/w img -c 'rm -rf /w/x'", ["rm", "-rf", "/data/x"]),
    ("docker run --entrypoint rm -v /data:/w img", ["rm"]),
    ("docker run --entrypoint '' -v /data:/w img rm -rf /w/x", ["rm", "-rf", "/data/x"]),
])
def test_an_entrypoint_given_runs_with_the_words_after_the_image(line: str,
                                                                 inner: list[str]) -> None:
    """``--entrypoint CMD`` replaces the image's: the container runs CMD with the words after
    the image as its arguments (riptutorial.com/docker, "Overriding image entrypoint
    directive": ``docker run --entrypoint="/bin/bash" example-app /app/test.sh`` "becomes
    /bin/bash /app/test.sh"; docs.aws.amazon.com Deep Learning Containers, "Custom
    Entrypoints": ``--entrypoint=""`` empties it). Before, the words after the image were
    read as the command: ``-rf /w/x`` ran nothing, and the delete passed."""
    assert inner in _argvs(line)


def test_a_working_folder_under_a_bind_is_entered_first() -> None:
    assert _argvs("docker run -w /w/src -v /data:/w img rm -rf build")[1:] == [
        ["cd", "/data/src"], ["rm", "-rf", "build"]]
    # elsewhere in the container: nothing of the host to enter
    assert _argvs("docker run -w /app -v /data:/w img rm -rf build")[1:] == [
        ["rm", "-rf", "build"]]


@pytest.mark.parametrize(("argv", "rest"), [
    (["-iu", "root", "rm", "x"], ["rm", "x"]),  # -u takes the next word
    (["-uroot", "rm", "x"], ["rm", "x"]),  # -u takes the rest of its word
    (["-v$(pwd):/w", "img", "rm"], ["img", "rm"]),  # -v takes the rest, though it ends in w
    (["-itv", "/a:/b", "img"], ["img"]),
])
def test_a_bundle_of_short_options_is_read_as_getopt_reads_it(argv: list[str],
                                                               rest: list[str]) -> None:
    assert skip_options(argv, {"-u", "-v", "-w"}, 0) == rest


@pytest.mark.parametrize("command", [
    "docker run --rm -v {P}:/workspace img rm -rf /workspace/.labledger",
    "docker run --rm -v {P}:/workspace img rm -rf /workspace/capsules/c2",
    "docker run --rm -v {P}/capsules:/data img rm -rf /data/c2",
    "docker run --rm -v {P}:/workspace -w /workspace img rm -rf capsules/c2",
    "docker run --rm --mount type=bind,source={P},target=/ws img bash -c 'rm -rf /ws/capsules'",
    "docker run --gpus all -itv {P}:/ws img "
    "python -c 'import shutil; shutil.rmtree(\"/ws/capsules/c2\")'",
    "docker run -v{P}:/ws img find /ws/capsules -delete",
    "podman run -v {P}:/ws:z img rm -rf /ws/.labledger/ledger",
    "apptainer exec --nv -B {P}:/ws img.sif rm -rf /ws/capsules/c2",
    "docker compose run --rm -v {P}:/ws trainer rm -rf /ws/capsules",
    "docker run --rm --entrypoint /bin/sh -v {P}:/ws img -c 'rm -rf /ws/capsules/c2'",
])
def test_a_delete_through_a_bind_is_blocked(box: Path, command: str) -> None:  # noqa: F811
    verdict = _judged(box, command.replace("{P}", str(box)))
    assert not verdict.allowed, command
    assert any("capsules/c2" in r or ".labledger" in r for r in verdict.reasons), verdict.reasons


@pytest.mark.parametrize("command", [
    "docker run --rm -v {P}:/workspace img rm -rf /workspace/src",
    "docker run --rm -v {P}:/workspace:ro img rm -rf /workspace/capsules",  # read-only
    "docker run --rm -v {P}:/workspace img rm -rf /workspace/capsules/c3",  # stored, verifies
    "docker run --rm -v {P}/src:/workspace img rm -rf /workspace/capsules",  # src/capsules
    "docker run --rm -v {P}:/workspace -w /workspace img rm -rf build",
    "docker run --rm -v cache:/root/.cache img rm -rf /root/.cache/capsules",
    "docker run --rm -v {P}:/workspace img python train.py --out /workspace/results/r2",
])
def test_what_misses_the_protected_folders_passes(box: Path, command: str) -> None:  # noqa: F811
    verdict = _judged(box, command.replace("{P}", str(box)))
    assert verdict.allowed, (command, verdict.reasons)


# A compose service's volumes are in its compose file (docs.docker.com, "Services top-level
# elements", volumes: the short syntax `SRC:DST[:MODE]`, a relative SRC starting with `.`
# read from the project folder, the compose file's; the long syntax `type: bind`), and they
# are the running container's too: `docker compose exec SERVICE` runs over them as `run` does.
_COMPOSE = """services:
  trainer:
    image: pytorch/pytorch
    working_dir: /workspace
    volumes:
      - .:/workspace
      - ./data:/data:ro
      - cache:/root/.cache
  eval:
    image: pytorch/pytorch
    volumes:
      - type: bind
        source: ./capsules
        target: /caps
      - type: bind
        source: ./results
        target: /results
        read_only: true
volumes:
  cache: {}
"""


@pytest.mark.parametrize("command", [
    "docker compose run --rm trainer rm -rf /workspace/capsules/c2",
    "docker compose exec trainer rm -rf /workspace/capsules",
    "docker compose exec -T trainer bash -c 'rm -rf /workspace/.labledger'",
    "docker compose run trainer rm -rf capsules/c2",  # from working_dir, under the bind
    "docker compose exec eval rm -rf /caps/c2",
    "docker-compose run --rm eval bash -c 'rm -rf /caps/*'",
    "docker compose -f compose.yaml run trainer rm -rf /workspace/capsules/c2",
    "docker compose --project-directory . exec trainer rm -rf /workspace/capsules/c2",
    "cd src && docker compose exec trainer rm -rf /workspace/capsules/c2",  # found up
])
def test_a_delete_through_a_compose_services_volume_is_blocked(
        box: Path, command: str) -> None:  # noqa: F811
    (box / "compose.yaml").write_text(_COMPOSE)
    (box / "src").mkdir(exist_ok=True)
    verdict = _judged(box, command)
    assert not verdict.allowed, command
    assert any("capsules/c2" in r or ".labledger" in r for r in verdict.reasons), \
        verdict.reasons


@pytest.mark.parametrize("command", [
    "docker compose run --rm trainer rm -rf /workspace/build",
    "docker compose run trainer rm -rf /data/x",  # read-only
    "docker compose exec eval rm -rf /results/r1",  # read-only
    "docker compose exec eval ls /caps",
    "docker compose run other rm -rf /workspace/capsules",  # no such service
    "docker compose -f other.yaml run trainer rm -rf /workspace/capsules",  # no such file
])
def test_what_a_compose_service_cannot_reach_passes(box: Path, command: str) -> None:  # noqa: F811
    (box / "compose.yaml").write_text(_COMPOSE)
    verdict = _judged(box, command)
    assert verdict.allowed, (command, verdict.reasons)


@pytest.mark.parametrize("text", [
    "services: [1, 2]", "services:\n  trainer: 3\n", "a: [unclosed", "- x\n- y\n",
    "services:\n  trainer:\n    volumes: 7\n", "services:\n  trainer:\n    volumes:\n"
    "      - {type: bind, source: 1, target: [2]}\n", "&a [*a]", "\x00",
])
def test_a_compose_file_of_any_shape_gets_a_verdict(box: Path, text: str) -> None:  # noqa: F811
    (box / "compose.yaml").write_text(text)
    verdict = _judged(box, "docker compose run trainer rm -rf /workspace/capsules")
    assert verdict.allowed, verdict.reasons  # nothing bound: the container's own paths


def test_an_override_file_adds_its_volumes(box: Path) -> None:  # noqa: F811
    (box / "compose.yaml").write_text("services:\n  t:\n    image: x\n")
    (box / "compose.override.yaml").write_text(
        "services:\n  t:\n    volumes:\n      - ./capsules:/c\n")
    assert not _judged(box, "docker compose exec t rm -rf /c/c2").allowed
