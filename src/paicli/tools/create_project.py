"""`create_project(name, type)` (spec 9.1): a new project skeleton in a folder of the project root that does not
exist yet. It changes the workspace, so it asks first in every mode (no auto approval) and runs after the
turn's snapshot; the folder name is one plain path segment, checked by the PathGuard like any path."""

from __future__ import annotations

import os
import re
from pathlib import Path

from paicli.tools.context import ToolContext
from paicli.tools.schema import Args, ToolOutput

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
_GITIGNORE = {  # one entry per kind of registry.PROJECT_KINDS, in its order
    "python": "__pycache__/\n*.pyc\n.venv/\ndist/\n",
    "node": "node_modules/\ndist/\n",
    "java": "target/\n*.class\n",
    "web": "",
}


def _files(name: str, kind: str) -> dict[str, str]:
    module = re.sub(r"\W", "_", name).lower()
    readme = f"# {name}\n"
    if kind == "python":
        return {
            "README.md": readme,
            "pyproject.toml": f'[project]\nname = "{name}"\nversion = "0.1.0"\nrequires-python = ">=3.10"\n',
            f"src/{module}/__init__.py": "",
            f"src/{module}/__main__.py": 'def main() -> None:\n    print("hello")\n\n\nif __name__ == "__main__":\n    main()\n',
            "tests/test_smoke.py": f"import {module}\n\n\ndef test_imports() -> None:\n    assert {module} is not None\n",
        }
    if kind == "node":
        package = f'{{\n  "name": "{name.lower()}",\n  "version": "0.1.0",\n  "main": "src/index.js",\n'
        package += '  "scripts": {"start": "node src/index.js"}\n}\n'
        return {"README.md": readme, "package.json": package, "src/index.js": 'console.log("hello");\n'}
    if kind == "java":
        pom = (
            '<project xmlns="http://maven.apache.org/POM/4.0.0">\n  <modelVersion>4.0.0</modelVersion>\n'
            f"  <groupId>com.example</groupId>\n  <artifactId>{name}</artifactId>\n  <version>0.1.0</version>\n"
            "  <properties>\n    <maven.compiler.release>17</maven.compiler.release>\n  </properties>\n</project>\n"
        )
        main = 'package com.example;\n\npublic class App {\n    public static void main(String[] args) {\n        System.out.println("hello");\n    }\n}\n'
        return {"README.md": readme, "pom.xml": pom, "src/main/java/com/example/App.java": main}
    page = f'<!doctype html>\n<html lang="zh">\n<head>\n<meta charset="utf-8">\n<title>{name}</title>\n'
    page += '<link rel="stylesheet" href="style.css">\n</head>\n<body>\n<script src="main.js"></script>\n</body>\n</html>\n'
    return {"README.md": readme, "index.html": page, "style.css": "body { margin: 0; }\n", "main.js": ""}


def create_project(args: Args, ctx: ToolContext) -> ToolOutput:
    name, kind = str(args["name"]).strip(), str(args["type"])
    if not _NAME.fullmatch(name) or name in (".", ".."):
        return ToolOutput(f"❌ 项目名只能是一个目录名（字母、数字、. _ -）: {name}", success=False)
    if kind not in _GITIGNORE:
        return ToolOutput(f"❌ 不支持的项目类型: {kind}（可选: {', '.join(_GITIGNORE)}）", success=False)
    target = ctx.paths.resolve(name)
    if os.path.lexists(target.real):
        return ToolOutput(f"❌ {target.relative} 已存在，没有改动；换一个名字", success=False)
    files = _files(name, kind)
    if _GITIGNORE[kind]:
        files[".gitignore"] = _GITIGNORE[kind]
    target.real.mkdir()
    for relative, text in files.items():
        _write_new(target.real / relative, text)
    listing = "\n".join(f"  {target.relative}/{path}" for path in sorted(files))
    return ToolOutput(
        f"✅ 已创建 {kind} 项目 {target.relative}（{len(files)} 个文件）:\n{listing}",
        metadata={"path": target.relative},
    )


def _write_new(path: Path, text: str) -> None:
    """Inside the folder just made: every file is new (O_EXCL), nothing is followed through a link."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
