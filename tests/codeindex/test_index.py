"""The index over a fixture repository: built, searched in English and Chinese, refreshed incrementally by
content, asked for a symbol's graph, and offered to the model as search_code once it exists."""

from __future__ import annotations

from pathlib import Path

import pytest
from evals.codesearch.score import REPO, cases, golden_index, recall

from paicli.cancel import CancelToken
from paicli.codeindex.indexer import CodeIndex
from paicli.codeindex.tool import NOT_INDEXED, SEARCH_CODE, SearchCodeTool
from paicli.tools.code_search_spec import index_path, offer_search_code
from paicli.tools.context import ToolContext
from paicli.tools.guards import PathGuard
from paicli.tools.registry import Tool

FILES = {
    "app/orders.py": (
        "from app.payments import charge_card\n\n\n"
        "def create_order(cart, card):\n"
        '    """下单：扣款并生成订单。"""\n'
        "    return charge_card(card, cart.total)\n"
    ),
    "app/payments.py": (
        "def charge_card(card, amount):\n"
        "    # Charge a credit card through the payment gateway.\n"
        "    return f'pay-{card}-{amount}'\n"
    ),
    "web/form.ts": "export function validateEmail(text: string): boolean {\n  return text.includes('@');\n}\n",
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    for name, text in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def _context(root: Path) -> ToolContext:
    return ToolContext(root, PathGuard(root), CancelToken())


def test_search_ranks_chunks_with_path_lines_and_symbol_in_both_languages(
    tmp_path: Path, project: Path
) -> None:
    index = CodeIndex(tmp_path / "home", project, max_files=100)
    report = index.refresh_now()
    assert (report.files, report.parsed) == (3, 3) and report.symbols == 3
    first = index.search("charge a credit card", 5)[0]
    assert (first.path, first.start, first.end, first.symbol) == ("app/payments.py", 1, 3, "charge_card")
    assert index.search("下单", 5)[0].symbol == "create_order"
    assert index.search("email validation", 5)[0].path == "web/form.ts"
    assert index.search("zebra giraffe", 5) == []


def test_a_refresh_reads_only_changed_files_and_drops_vanished_ones(tmp_path: Path, project: Path) -> None:
    index = CodeIndex(tmp_path / "home", project, max_files=100)
    index.refresh_now()
    assert index.refresh_now().parsed == 0
    payments = project / "app" / "payments.py"
    payments.write_text(payments.read_text() + "\n\ndef refund_payment(payment_id):\n    return None\n")
    (project / "web" / "form.ts").unlink()
    again = index.refresh_now()
    assert (again.parsed, again.removed, again.files) == (1, 1, 2)
    assert index.search("refund payment", 5)[0].symbol == "refund_payment"
    assert all(hit.path != "web/form.ts" for hit in index.search("validate email", 5))
    touched = project / "app" / "orders.py"
    touched.write_text(touched.read_text())  # same content, new mtime: hashed, not parsed
    assert index.refresh_now().parsed == 0


def test_files_the_session_wrote_are_read_again_before_the_next_search(tmp_path: Path, project: Path) -> None:
    index = CodeIndex(tmp_path / "home", project, max_files=100)
    index.refresh_now()
    added = project / "app" / "shipping.py"
    added.write_text("def shipping_cost(weight):\n    return weight * 4\n")
    index.written(added)
    index.fresh()
    assert index.search("shipping cost", 5)[0].path == "app/shipping.py"


def test_graph_shows_definitions_callers_and_importers(tmp_path: Path, project: Path) -> None:
    index = CodeIndex(tmp_path / "home", project, max_files=100)
    index.refresh_now()
    [definition] = index.definitions("charge_card")
    assert (definition.path, definition.line, definition.kind) == ("app/payments.py", 1, "function")
    callers = index.store.callers("charge_card")
    assert [(c.path, c.symbol) for c in callers] == [("app/orders.py", "create_order")]
    assert index.store.importers("charge_card") == [("app/orders.py", "from app.payments import charge_card")]


def test_search_code_says_how_to_index_first_and_then_returns_ranked_hits(
    tmp_path: Path, project: Path
) -> None:
    index = CodeIndex(tmp_path / "home", project, max_files=100)
    tool = SearchCodeTool(index)
    before = tool({"query": "charge card"}, _context(project))
    assert not before.success and before.content.startswith(NOT_INDEXED) and not before.outside_content
    index.refresh_now()
    after = tool({"query": "charge card", "top_k": 1}, _context(project))
    assert (
        after.success and after.content.splitlines()[2] == "1. app/payments.py:1-3 · charge_card（function）"
    )
    assert "def charge_card(card, amount):" in after.content and "2. " not in after.content


def test_search_code_joins_the_tools_once_the_project_has_an_index(tmp_path: Path, project: Path) -> None:
    index = CodeIndex(tmp_path / "home", project, max_files=100)
    registered: list[Tool] = []
    stored = index_path(tmp_path / "home", project)  # what the turn hook checks without loading the index
    offer = offer_search_code(stored.is_file, SearchCodeTool(index), registered.append)
    offer()
    assert registered == []  # no index: the request carries no tool that could only say "run /index"
    index.refresh_now()
    offer()
    offer()
    assert [tool.spec for tool in registered] == [SEARCH_CODE]


def test_the_golden_set_dev_half_is_all_found(tmp_path: Path) -> None:
    assert REPO.is_dir()
    share, missed = recall(golden_index(tmp_path), cases("dev"))
    assert missed == [] and share == 1.0
