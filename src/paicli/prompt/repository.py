"""Prompt file lookup: project override, then user override, then the bundled copy (spec 7.1)."""

from __future__ import annotations

import threading
from importlib import resources
from pathlib import Path

from paicli.config.env import ConfigError, home_dir
from paicli.config.projectfile import contained_file, read_project_bytes
from paicli.config.trust import ProjectTrust

_bundled_cache: dict[str, str] = {}
_bundled_lock = threading.Lock()


class PromptNotFoundError(LookupError):
    """No override and no bundled file for a prompt path."""


def check_relative(rel: str) -> str:
    """Reject absolute paths and parent references so overrides stay inside their prompt folders."""
    normalized = rel.replace("\\", "/")
    if not normalized or normalized.startswith("/") or ".." in normalized:
        raise ValueError(f"非法的提示词路径: {rel!r}")
    return normalized


def load_bundled(rel: str) -> str | None:
    rel = check_relative(rel)
    with _bundled_lock:
        if rel in _bundled_cache:
            return _bundled_cache[rel]
    resource = resources.files("paicli") / "prompts"
    for part in rel.split("/"):
        resource = resource / part
    try:
        text = resource.read_text(encoding="utf-8")
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None
    with _bundled_lock:
        _bundled_cache[rel] = text
    return text


class PromptRepository:
    """Loads `rel` from `<project>/.paicli/prompts`, else `<paicli home>/prompts`, else the package.

    Overrides are re-read on every load so an edited file applies to the next prompt; bundled
    files are cached for the life of the process. The project's overrides change what the model is told, so
    they apply only in a folder the user trusted (`project_trusted`), and only files whose real path lies in
    the project (a `handoff.md` symlinked to /proc/self/environ is ignored).
    """

    def __init__(
        self,
        project_root: Path | str | None = None,
        paicli_home: Path | str | None = None,
        *,
        project_trusted: bool | ProjectTrust = True,
    ) -> None:
        self._project_root = Path(project_root or Path.cwd())
        self._project_dir = self._project_root / ".paicli" / "prompts"
        self._user_dir = Path(paicli_home or home_dir()) / "prompts"
        self._trust = ProjectTrust.of(project_trusted)

    @property
    def project_trusted(self) -> bool:
        """Asked again on every load: overrides that appear mid-session in a folder trusted only for
        bringing nothing do not apply (config.trust.ProjectTrust)."""
        return self._trust.trusted

    def override_path(self, rel: str) -> Path | None:
        rel = check_relative(rel)
        if self.project_trusted:
            candidate = contained_file(self._project_dir / rel, self._project_root)
            if candidate is not None:
                return candidate
        candidate = self._user_dir / rel
        return candidate if candidate.is_file() else None

    def load(self, rel: str) -> str:
        path = self.override_path(rel)
        if path is not None:
            try:
                data = self._read(path)
                return data.decode("utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise ConfigError(
                    f"提示词覆盖文件 {path} 读不出来（{exc}）：请把它改成 UTF-8 文本，或删掉它改用内置版本"
                ) from exc
        text = load_bundled(rel)
        if text is None:
            raise PromptNotFoundError(f"找不到提示词文件: prompts/{rel}")
        return text

    def _read(self, path: Path) -> bytes:
        if path.is_relative_to(self._user_dir):
            return path.read_bytes()
        data = read_project_bytes(path, self._project_root)
        if data is None:
            raise OSError("不是项目目录内的普通文件")
        return data
