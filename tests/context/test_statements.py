"""The budgeted list of the user's statements: routine requests shortened first, then long ones, then the middle
left out; counts and shortened texts survive a parse and a second render."""

from __future__ import annotations

from paicli.context.statements import CLIPPED, Entry, parse, render

FACTS = [f"服务 {i} 跑在 svc-{i}.lan:{8000 + i}" for i in range(1, 9)]
ROUTINE = "请把这一轮的结果按模块整理一下每个模块写清楚现状风险和下一步打算然后再看看还有哪些地方需要补充" * 2


def size(text: str) -> int:
    return len(text)


def test_routine_requests_are_shortened_before_any_statement_of_a_value() -> None:
    entries = []
    for i, fact in enumerate(FACTS):
        entries += [Entry(fact), Entry(f"第 {i} 轮{ROUTINE}")]
    full = sum(len(e.text) + 3 for e in entries)
    listing = render(entries, full - 100, size)
    assert all(f"- {fact}\n" in listing.text + "\n" for fact in FACTS)  # facts whole
    assert listing.shortened > 0 and listing.left_out == 0
    assert listing.text.count(CLIPPED) == listing.shortened


def test_the_middle_is_left_out_first_and_counted_in_one_line() -> None:
    entries = [Entry(f"第 {i} 个请求：检查 module_{i}") for i in range(1, 21)]
    listing = render(entries, 10 * 30, size)
    shown = [i for i in range(1, 21) if f"module_{i}\n" in listing.text + "\n"]
    assert shown[0] == 1 and shown[-1] == 20 and listing.left_out == 20 - len(shown)
    assert listing.text.count("这里还有") == 1
    assert f"这里还有 {listing.left_out} 条用户请求未列出" in listing.text


def test_a_parsed_list_renders_again_with_its_counts_and_shortened_texts() -> None:
    entries = [Entry(gap=4), Entry("第一条"), Entry("很长的请求" * 60), Entry(gap=2), Entry("最后一条")]
    first = render(entries, 180, size)
    again = render(parse(first.text.splitlines()), 10_000, size)
    assert again.text == first.text
    assert (again.left_out, again.shortened) == (first.left_out, first.shortened) == (6, 1)


def test_everything_fits_verbatim_and_the_listing_says_so() -> None:
    entries = [Entry(fact) for fact in FACTS]
    listing = render(entries, 10_000, size)
    assert listing.complete and listing.listed == len(FACTS)
    assert listing.text == "\n".join(f"- {fact}" for fact in FACTS)
