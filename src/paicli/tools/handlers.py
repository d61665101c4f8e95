"""The built-in tools' implementations, loaded at their first call (issue 49): the table (registry.py) keeps
every spec, so the tools offered to the model are the same bytes, while a run that never reads, edits, searches
or creates a project never imports the modules that do it (nor difflib, the glob walker, the file I/O helpers).
Each implementation module is one deferred seam; the handlers below forward to it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from paicli.deferred import Deferred

if TYPE_CHECKING:
    from paicli.tools.context import ToolContext
    from paicli.tools.guards import PathGuard
    from paicli.tools.schema import Args, ToolOutput


class _Handler(Protocol):
    def __call__(self, args: Args, ctx: ToolContext, /) -> ToolOutput: ...


class _Precheck(Protocol):
    def __call__(self, args: Args, paths: PathGuard, /) -> ToolOutput | None: ...


class _Preview(Protocol):
    def __call__(self, tool: str, args: Args, paths: PathGuard | None, /) -> str | None: ...


class FileTools(Protocol):
    """What tools/files.py provides (the module itself satisfies this)."""

    @property
    def read_file(self) -> _Handler: ...
    @property
    def write_file(self) -> _Handler: ...
    @property
    def edit_file(self) -> _Handler: ...
    @property
    def list_dir(self) -> _Handler: ...
    @property
    def glob_files(self) -> _Handler: ...
    @property
    def write_problem(self) -> _Precheck: ...
    @property
    def edit_problem(self) -> _Precheck: ...
    @property
    def edit_preview(self) -> _Preview: ...


class SearchTools(Protocol):
    @property
    def grep_code(self) -> _Handler: ...


class ProjectTools(Protocol):
    @property
    def create_project(self) -> _Handler: ...


def _load_files() -> FileTools:
    from paicli.tools import files

    return files


def _load_search() -> SearchTools:
    from paicli.tools import search

    return search


def _load_projects() -> ProjectTools:
    from paicli.tools import create_project

    return create_project


FILES: Deferred[FileTools] = Deferred(_load_files)
SEARCH: Deferred[SearchTools] = Deferred(_load_search)
PROJECTS: Deferred[ProjectTools] = Deferred(_load_projects)


def read_file(args: Args, ctx: ToolContext) -> ToolOutput:
    return FILES.get().read_file(args, ctx)


def write_file(args: Args, ctx: ToolContext) -> ToolOutput:
    return FILES.get().write_file(args, ctx)


def edit_file(args: Args, ctx: ToolContext) -> ToolOutput:
    return FILES.get().edit_file(args, ctx)


def list_dir(args: Args, ctx: ToolContext) -> ToolOutput:
    return FILES.get().list_dir(args, ctx)


def glob_files(args: Args, ctx: ToolContext) -> ToolOutput:
    return FILES.get().glob_files(args, ctx)


def write_problem(args: Args, paths: PathGuard) -> ToolOutput | None:
    return FILES.get().write_problem(args, paths)


def edit_problem(args: Args, paths: PathGuard) -> ToolOutput | None:
    return FILES.get().edit_problem(args, paths)


def edit_preview(tool: str, args: Args, paths: PathGuard | None) -> str | None:
    return FILES.get().edit_preview(tool, args, paths)


def grep_code(args: Args, ctx: ToolContext) -> ToolOutput:
    return SEARCH.get().grep_code(args, ctx)


def create_project(args: Args, ctx: ToolContext) -> ToolOutput:
    return PROJECTS.get().create_project(args, ctx)
