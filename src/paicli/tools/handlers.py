"""The built-in tools' implementations, loaded at their first call (issue 49): the table (registry.py) keeps
every spec, so the tools offered to the model are the same bytes, while a run that never reads, edits, searches
or creates a project (or runs a command) never imports the modules that do it (nor difflib, the glob walker, the file I/O helpers),
and web.py's fetch and search load their HTML reader and search providers with the first page or search.
Each implementation module is one deferred seam; the handlers below forward to it."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from paicli.deferred import Deferred

if TYPE_CHECKING:
    from paicli.config.tool_values import WebSearchValues
    from paicli.tools.context import ToolContext
    from paicli.tools.guards import PathGuard
    from paicli.tools.schema import Args, ToolOutput
    from paicli.tools.web_search import Search, SearchConfigError

    # What each deferred module provides, for the type checker only: the protocols cost class creation at
    # start-up and nothing checks them at run time.

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

    class ShellTools(Protocol):
        @property
        def execute_command(self) -> _Handler: ...

    class ProjectTools(Protocol):
        @property
        def create_project(self) -> _Handler: ...

    class WebHandlers(Protocol):
        """web_fetch and web_search: what tools/web.py's WebTools provides."""

        def web_fetch(self, args: Args, ctx: ToolContext, /) -> ToolOutput: ...
        def web_search(self, args: Args, ctx: ToolContext, /) -> ToolOutput: ...

    class WebSearch(Protocol):
        """What tools/web_search.py provides (the module itself satisfies this): loaded with the first search."""

        @property
        def SearchConfigError(self) -> type[SearchConfigError]: ...
        @property
        def choose_provider(self) -> Callable[[WebSearchValues], str]: ...
        @property
        def provider_search(self) -> Callable[[WebSearchValues, str], Search]: ...
        @property
        def decode_json(self) -> Callable[[bytes], Any]: ...


def _load_files() -> FileTools:
    from paicli.tools import files

    return files


def _load_search() -> SearchTools:
    from paicli.tools import search

    return search


def _load_shell() -> ShellTools:
    from paicli.tools import shell

    return shell


def _load_projects() -> ProjectTools:
    from paicli.tools import create_project

    return create_project


FILES: Deferred[FileTools] = Deferred(_load_files)
SEARCH: Deferred[SearchTools] = Deferred(_load_search)
PROJECTS: Deferred[ProjectTools] = Deferred(_load_projects)
SHELL: Deferred[ShellTools] = Deferred(_load_shell)  # with the command runner's executors (tools/runner.py)


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


def execute_command(args: Args, ctx: ToolContext) -> ToolOutput:
    return SHELL.get().execute_command(args, ctx)


def create_project(args: Args, ctx: ToolContext) -> ToolOutput:
    return PROJECTS.get().create_project(args, ctx)


HtmlToText = Callable[[str], tuple[str, str]]  # page -> (title, text)


def _load_html_reader() -> HtmlToText:
    from paicli.tools.html_text import html_to_text

    return html_to_text


# web_fetch's HTML reader (and the standard library's parser under it) loads with the first page fetched
HTML_READER: Deferred[HtmlToText] = Deferred(_load_html_reader)


def _load_web_search() -> WebSearch:
    from paicli.tools import web_search

    return web_search


WEB_SEARCH: Deferred[WebSearch] = Deferred(_load_web_search)
