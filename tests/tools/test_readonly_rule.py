"""Issue 17 item 1: the read-only command allowance cannot be turned into execution, writes or key leaks."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from paicli.cancel import CancelToken
from paicli.tools.approval import ApprovalState
from paicli.tools.context import ToolContext
from paicli.tools.gitrepo import config_is_unsafe, git_is_safe_in
from paicli.tools.guards import PathGuard, is_read_only_command
from paicli.tools.protected import git_dir_of, is_protected_path
from paicli.tools.readonly_specs import GIT_SUBCOMMANDS, PROGRAMS
from paicli.tools.registry import EXECUTE_COMMAND, WRITE_FILE
from paicli.tools.shell import run_command


def git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


@pytest.mark.parametrize(
    "command",
    [
        "sort --compress-prog=sh data.txt",  # the examples: GNU abbreviations
        "sort --out=../x data.txt",
        "sort --compress=sh data.txt",
        "sort --outp ../x data.txt",
        "sort -T /tmp data.txt",
        "grep --colo=always x f",
        "git log --out=../x",
        "git diff --outp=../x",
        "git log --ext-diff",
        "git diff --textcon",
        "git show --show-signature",
        "git grep -Ocat foo",
        "git grep -iOcat foo",
        "git -c core.pager=sh log",
        "git -C ../elsewhere status",
        "git --git-dir=../x/.git status",
        "git --work-tree=.. status",
        "git branch new-branch",
        "git config core.fsmonitor x",
        "rg --pre=sh x",
        "rg --pre-glob '*' x",
        "rg --hostname-bin=./x foo",
        "rg -z foo",
        "find . -fls ../x",
        "find . -fprintf ../x %p",
        "find . -okdir rm {} ;",
        "find . -name x -delete",
        "tree -R -H . -o out.html",
        "tree -Ro x",
        "file -C -m magic",
        "date -s 2020-01-01",
        "date 010101012020",
        "tail -f log.txt",
        "diff -l a b",
        "ls --hyperlink=always --quoting-style=x --color=auto --frob",
    ],
)
def test_unknown_abbreviated_or_writing_options_need_approval(command: str, tmp_path: Path) -> None:
    assert not is_read_only_command(command, tmp_path)


@pytest.mark.parametrize(
    "command",
    [
        "echo $(touch x)",
        "echo `touch x`",
        'echo "$(touch x)"',
        "cat <(touch x)",
        "ls {a,b}",
        "ls & touch x",
        "ls |& cat",
        "cat <<EOF\nx\nEOF",
        "FOO=1 ls",
        "ls # harmless? \n touch x",
        "ls > f",
        "ls >| f",
        "ls 2> f",
        "ls &> f",
        "ls <> f",
        "(ls)",
        "{ ls; }",
        "! ls",
        "ls \\\n -la",
        "/bin/ls",
        "./ls",
        "'sort' --compress-program=sh x",
        "sort '--compress-program=sh' x",
        'sort "--output"=x y',
    ],
)
def test_shell_syntax_beyond_plain_words_needs_approval(command: str, tmp_path: Path) -> None:
    assert not is_read_only_command(command, tmp_path)


@pytest.mark.parametrize(
    "command",
    [
        "ls 2>/dev/null",
        "cat < README.md",
        "grep -rn TODO src 2>&1 | head -20",
        "find . -name '*.py' -type f -print0",
        "git status --porcelain=v2 && git log --oneline -5",
        "sort -k2 -t, -u data.csv | wc -l",
        "head -n5 a; tail -3 b",
        "date +%Y-%m-%d",
        "ls src/*.py",
        "cd src && ls -la",
    ],
)
def test_plain_reads_stay_read_only(command: str, tmp_path: Path) -> None:
    git("init", "-q", ".", cwd=tmp_path)
    assert is_read_only_command(command, tmp_path)


def test_a_glob_that_could_expand_to_an_option_is_not_read_only(tmp_path: Path) -> None:
    (tmp_path / "data.txt").write_text("b\na\n", encoding="utf-8")
    assert is_read_only_command("sort *", tmp_path)
    (tmp_path / "--compress-program=sh").write_text("", encoding="utf-8")
    for command in ("sort *", "sort ?-*", "cat [-]*", "sort *.txt", "wc -l *"):
        assert not is_read_only_command(command, tmp_path), command
    assert is_read_only_command("sort ./*", tmp_path)  # expansions start with ./, never with -


@pytest.mark.parametrize(
    "command",
    [
        "echo $PAICLI_API_KEY",
        'echo "${OPENAI_API_KEY}"',
        "echo ${!PAICLI*}",
        "printenv",
        "printenv PAICLI_API_KEY",
        "env",
        "set",
        "export -p",
        "declare -x",
        "cat /proc/self/environ",
        "cat /proc/1/environ",
        "grep -a KEY /proc/self/environ",
        "cat /dev/fd/../environ",
        "cd /proc/self && cat environ",
        "cd / && cat proc/self/environ",
        "grep -f/proc/self/environ x",
        "grep --file=/proc/self/environ x",
        "cat /pro?/self/environ",
        "ls /",
        "grep -r KEY ~",
    ],
)
def test_commands_that_print_the_environment_need_approval(command: str, tmp_path: Path) -> None:
    assert not is_read_only_command(command, tmp_path)


def test_fifos_and_devices_as_arguments_need_approval(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    for command in (
        "cat pipe",
        "wc -l < pipe",
        "sort /dev/zero",
        "head -c 10 /dev/urandom",
        "grep x ./pipe",
        "file -z a.gz",
    ):
        assert not is_read_only_command(command, tmp_path), command
    assert is_read_only_command("diff a.txt /dev/null 2>/dev/null", tmp_path)


def test_reading_paicli_home_needs_approval(tmp_path: Path, isolated_home: Path) -> None:
    home = isolated_home / ".paicli"
    home.mkdir(exist_ok=True)
    (home / "config.env").write_text("PAICLI_API_KEY=sk-x\n", encoding="utf-8")
    for command in (
        f"cat {home}/config.env",
        "cat ~/.paicli/config.env",
        f"cd {isolated_home} && cat .paicli/config.env",
        f"grep -r KEY {isolated_home}",
    ):
        assert not is_read_only_command(command, tmp_path), command


def test_nested_repository_with_a_hostile_config_is_not_read_only(tmp_path: Path) -> None:
    git("init", "-q", ".", cwd=tmp_path)
    (tmp_path / "sub").mkdir()
    git("init", "-q", ".", cwd=tmp_path / "sub")
    assert is_read_only_command("cd sub && git status", tmp_path)
    config = tmp_path / "sub" / ".git" / "config"
    config.write_text(config.read_text() + "[core]\n\tfsmonitor = touch pwned\n", encoding="utf-8")
    (tmp_path / "-evil").mkdir()
    git("init", "-q", ".", cwd=tmp_path / "-evil")
    evil = tmp_path / "-evil" / ".git" / "config"
    evil.write_text(evil.read_text() + "[core]\n\tfsmonitor = touch pwned\n", encoding="utf-8")
    for command in (
        "cd sub && git status",
        "cd sub; git diff",
        "cd ./sub/ || true; git log",
        "cd sub/.. && cd sub && git status",
        "cd -- -evil && git status",
        "cd -P -- -evil; git log",
    ):
        assert not is_read_only_command(command, tmp_path), command
    assert is_read_only_command("git status", tmp_path)  # the top-level repository is still clean


@pytest.mark.parametrize(
    "config",
    [
        "[core]\n\tfsmonitor = touch pwned\n",
        "[core]\n\thooksPath = hooks\n",
        "[CORE]\n\tPager = sh -c x\n",
        "[core] editor = x\n",
        "[pager]\n\tstatus = touch pwned\n",
        '[diff "x"]\n\ttextconv = touch pwned\n',
        '[diff "x"]\n\tcommand = touch pwned\n',
        "[diff]\n\texternal = touch pwned\n",
        '[filter "lfs"]\n\tclean = touch pwned\n',
        "[include]\n\tpath = ../evil\n",
        '[includeIf "gitdir:/"]\n\tpath = ../evil\n',
        "[gpg]\n\tprogram = touch\n[log]\n\tshowSignature = true\n",
        "[core.x]\n\tfsmonitor = y\n[core]\n\tfsmonitor\\\n= touch pwned\n",
    ],
)
def test_repository_configs_that_run_programs_are_detected(config: str) -> None:
    assert config_is_unsafe(config)


def test_ordinary_repository_config_is_safe() -> None:
    text = (
        "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n"
        '[remote "origin"]\n\turl = git@example.com:x/y.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n'
        '[branch "main"]\n\tremote = origin\n\tmerge = refs/heads/main\n; comment\n# another\n'
    )
    assert not config_is_unsafe(text)


def test_bare_looking_directories_and_git_files_are_checked(tmp_path: Path) -> None:
    bare = tmp_path / "bare"
    (bare / "objects").mkdir(parents=True)
    (bare / "refs").mkdir()
    (bare / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    (bare / "config").write_text("[core]\n\tfsmonitor = touch pwned\n", encoding="utf-8")
    assert not is_read_only_command("cd bare && git status", tmp_path)
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "objects").mkdir(parents=True)
    (elsewhere / "config").write_text("[core]\n\tfsmonitor = touch pwned\n", encoding="utf-8")
    (tmp_path / "linked").mkdir()
    (tmp_path / "linked" / ".git").write_text(f"gitdir: {elsewhere}\n", encoding="utf-8")
    assert not is_read_only_command("cd linked && git log", tmp_path)
    (tmp_path / "odd").mkdir()
    (tmp_path / "odd" / ".git").write_text("not a gitfile\n", encoding="utf-8")
    assert not is_read_only_command("cd odd && git status", tmp_path)


def test_a_submodule_with_a_hostile_config_makes_the_superproject_unsafe(tmp_path: Path) -> None:
    git("init", "-q", ".", cwd=tmp_path)
    lib = tmp_path / "vendor" / "lib"
    lib.mkdir(parents=True)
    git("init", "-q", ".", cwd=lib)
    (tmp_path / ".gitmodules").write_text(
        '[submodule "lib"]\n\tpath = vendor/lib\n\turl = ./x\n', encoding="utf-8"
    )
    assert is_read_only_command("git status", tmp_path)
    config = lib / ".git" / "config"
    config.write_text(config.read_text() + '[filter "x"]\n\tclean = touch pwned\n', encoding="utf-8")
    assert not is_read_only_command("git status", tmp_path)
    assert not is_read_only_command("cd vendor && git diff", tmp_path)


def test_a_git_directory_written_this_session_makes_git_there_unsafe(tmp_path: Path) -> None:
    git("init", "-q", ".", cwd=tmp_path)
    (tmp_path / "sub").mkdir()
    git("init", "-q", ".", cwd=tmp_path / "sub")
    state = ApprovalState("auto")
    assert state.needs_approval(EXECUTE_COMMAND, {"command": "cd sub && git status"}, None, tmp_path) is None
    state.note_write(tmp_path, "sub/.git/info/exclude")
    for command in ("cd sub && git status", "git status", "cd sub && git log --oneline"):
        need = state.needs_approval(EXECUTE_COMMAND, {"command": command}, None, tmp_path)
        assert need is not None, command
    assert not git_is_safe_in(tmp_path / "sub", [tmp_path / "sub" / ".git"], {})
    assert state.needs_approval(EXECUTE_COMMAND, {"command": "ls sub"}, None, tmp_path) is None


@pytest.mark.parametrize(
    "path",
    [
        ".git/config",
        "sub/.git/config",
        "a/b/.GIT/hooks/pre-commit",
        "sub/.git",
        "PAI.md",
        "docs/pai.local.md",
        "x/PAI.LOCAL.MD",
        "sub/.paicli/prompts/base.md",
    ],
)
def test_git_folders_at_any_depth_and_project_memory_files_are_protected(path: str) -> None:
    assert is_protected_path(path)
    state = ApprovalState("auto")
    assert state.needs_approval(WRITE_FILE, {"path": path, "content": "x"}, path) is not None


@pytest.mark.parametrize(
    "path", ["PAI.md.bak", "src/pai.py", ".github/workflows/ci.yml", "src/.gitkeep", "my.git/x"]
)
def test_lookalike_paths_are_not_protected(path: str) -> None:
    assert not is_protected_path(path)


def test_git_dir_of_finds_the_nearest_git_component() -> None:
    assert git_dir_of("a/.git/hooks/x") == "a/.git"
    assert git_dir_of("A/.GIT") == "A/.GIT"
    assert git_dir_of("src/x.py") is None and git_dir_of(None) is None


def test_option_tables_never_list_a_letter_as_both_flag_and_value() -> None:
    for name, spec in {**PROGRAMS, **{f"git {k}": v for k, v in GIT_SUBCOMMANDS.items()}}.items():
        assert not set(spec.flags) & set(spec.value), name


def test_read_only_git_runs_with_fsmonitor_hooks_and_pager_switched_off(tmp_path: Path) -> None:
    git("init", "-q", ".", cwd=tmp_path)
    (tmp_path / "a.txt").write_text("x\n", encoding="utf-8")
    git("add", "a.txt", cwd=tmp_path)
    marker = tmp_path / "pwned"
    hook = tmp_path / "monitor.sh"
    hook.write_text(f"#!/bin/sh\ntouch {marker}\n", encoding="utf-8")
    hook.chmod(0o755)
    config = tmp_path / ".git" / "config"
    config.write_text(config.read_text() + f"[core]\n\tfsmonitor = {hook}\n", encoding="utf-8")
    ctx = ToolContext(tmp_path, PathGuard(tmp_path), CancelToken(), None, 30.0)
    # A human approved it (the config makes it not read-only), yet git still runs without the monitor.
    run = run_command("git status --porcelain", ctx, 8000)
    assert run.exit_code == 0, run.capture.text
    assert not marker.exists()
    # The same command outside the read-only shapes keeps the user's git configuration.
    run = run_command("git status --porcelain && touch done.txt", ctx, 8000)
    assert run.exit_code == 0
    assert marker.exists()
    os.unlink(marker)


def test_hooks_planted_in_a_nested_repository_do_not_run_from_read_only_git(tmp_path: Path) -> None:
    sub = tmp_path / "sub"
    sub.mkdir()
    git("init", "-q", ".", cwd=sub)
    (sub / "a.txt").write_text("x\n", encoding="utf-8")
    git("add", "a.txt", cwd=sub)
    marker = tmp_path / "hook-ran"
    for name in ("post-index-change", "reference-transaction", "post-checkout"):
        hook = sub / ".git" / "hooks" / name
        hook.write_text(f"#!/bin/sh\ntouch {marker}\n", encoding="utf-8")
        hook.chmod(0o755)
    (sub / "a.txt").write_text(
        "changed\n", encoding="utf-8"
    )  # stale stat data: status would refresh the index
    assert is_read_only_command("cd sub && git status && git diff --stat", tmp_path)
    ctx = ToolContext(tmp_path, PathGuard(tmp_path), CancelToken(), None, 30.0)
    run = run_command("cd sub && git status && git diff --stat", ctx, 8000)
    assert run.exit_code == 0, run.capture.text
    assert not marker.exists()
