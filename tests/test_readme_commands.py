"""The README's two commands stay true: the test command needs no torch, and CI runs what it says."""

import re
import tomllib
from pathlib import Path

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
    after_apt = test_command.split("&& ", 1)[1]
    venv_and_install, run_tests = after_apt.rsplit(" && ", 1)
    assert venv_and_install.replace(".venv/bin/pip install", ".venv/bin/pip install -q") in ci
    assert run_tests in ci
    train_command = readme_command("Run them, after the command above")
    assert "torch==2.13.0" in train_command and train_command.endswith("pytest -m train")
    assert train_command.replace("pip install", "pip install -q") in ci
