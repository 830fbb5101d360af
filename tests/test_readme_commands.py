"""The README's two commands stay true: the test command needs no torch, and CI runs what it says."""

import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def shell_blocks(markdown: str) -> list[str]:
    return [b.strip() for b in re.findall(r"```sh\n(.*?)```", markdown, re.S)]


def readme_command(after: str) -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return shell_blocks(text[text.index(after) :])[0]


def test_the_test_command_installs_no_torch():
    command = readme_command("Set up and run the tests")
    assert "torch" not in command, command
    assert "-e '.[dev]'" in command and "pytest" in command
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert not [d for d in extras["dev"] if re.match(r"(torch|safetensors|matplotlib)\b", d)], extras["dev"]


def test_ci_runs_the_readme_test_command_and_the_training_command():
    ci = (ROOT / ".ci" / "run").read_text()
    test_command = readme_command("Set up and run the tests")
    # CI installs the apt packages itself, then runs the rest of the command in the same order.
    after_apt = " && ".join(
        step for step in test_command.split("; ", 1)[1].split(" && ") if "apt-get" not in step
    )
    venv_and_install, run_tests = after_apt.rsplit(" && ", 1)
    assert venv_and_install.replace(".venv/bin/pip install", ".venv/bin/pip install -q") in ci
    assert run_tests in ci
    train_command = readme_command("Run them, after the command above")
    assert "torch==2.13.0" in train_command and train_command.endswith("pytest -m train")
    # CI installs the train extra together with the packaging one (one pip run into the venv), then
    # runs the training tests beside the packaging: each part of the command, in that order.
    torch, extras, train = train_command.replace("pip install", "pip install -q").split(" && ")
    assert extras.endswith("-e '.[dev,train]'")
    places = [ci.index(torch), ci.index(extras.replace("train]", "train,package]")), ci.index(train)]
    assert places == sorted(places)


def apt_packages(command: str) -> set[str]:
    install = next(step for step in command.split(" && ") if "apt-get install" in step)
    return {word for word in install.split("-y", 1)[1].split()}


@pytest.mark.parametrize("after", ["Set up and start livecap", "Set up and run the tests"])
def test_the_readme_commands_work_as_root_without_sudo_and_as_a_user(after, tmp_path):
    """A fresh container's root shell has no sudo, a user's shell needs it: the command's prefix
    must expand to nothing in the first and to sudo in the second; apt's lists are read first."""
    import subprocess

    command = readme_command(after)
    prefix, rest = command.split("; ", 1)
    assert rest.startswith("$s apt-get update && $s apt-get install -y"), command
    assert "python3-venv" in apt_packages(command) and "python3" in apt_packages(command)
    fake_sudo = tmp_path / "with" / "sudo"
    fake_sudo.parent.mkdir()
    fake_sudo.write_text("#!/bin/sh\n")
    fake_sudo.chmod(0o755)
    for path, expected in ((str(tmp_path), ""), (str(fake_sudo.parent), str(fake_sudo))):
        shown = subprocess.run(
            ["/bin/sh", "-c", f'{prefix}; printf "%s" "$s"'],
            env={"PATH": path},
            capture_output=True,
            text=True,
        )
        assert shown.stdout == expected


def test_the_test_command_names_why_each_test_skipped():
    assert " -m pytest -rs" in readme_command("Set up and run the tests")
    ci = (ROOT / ".ci" / "run").read_text()
    assert "-m pytest -rs " in ci
