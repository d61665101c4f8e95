"""What the model reads of a page: its rendered text and the elements it can click, numbered. The script runs in
the page and marks each listed element with `data-paicli-ref`, so a click finds the very element it listed;
the rest is pure formatting."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

MAX_TEXT_CHARS = 8000
MAX_ELEMENTS = 60
REF_ATTRIBUTE = "data-paicli-ref"

# Rendered text (innerText: what a person sees, after scripts ran) and the visible clickable elements.
SNAPSHOT_SCRIPT = """
(maxElements) => {
  const picked = [];
  const selector = 'a[href], button, input, select, textarea, summary, [role=button], [role=link], [onclick]';
  document.querySelectorAll('[data-paicli-ref]').forEach((el) => el.removeAttribute('data-paicli-ref'));
  for (const el of document.querySelectorAll(selector)) {
    if (picked.length >= maxElements) break;
    const box = el.getBoundingClientRect();
    const style = window.getComputedStyle(el);
    if (box.width === 0 || box.height === 0 || style.visibility === 'hidden' || style.display === 'none') continue;
    const ref = picked.length + 1;
    el.setAttribute('data-paicli-ref', String(ref));
    const label = (el.innerText || el.value || el.getAttribute('aria-label') || el.getAttribute('placeholder')
      || el.getAttribute('title') || el.getAttribute('href') || '').trim().replace(/\\s+/g, ' ').slice(0, 80);
    picked.push({ref, tag: el.tagName.toLowerCase(), type: el.getAttribute('type') || '', label});
  }
  return {title: document.title, text: document.body ? document.body.innerText : '', elements: picked};
}
"""

_KINDS = {"a": "链接", "button": "按钮", "select": "下拉框", "textarea": "文本框", "summary": "展开"}


@dataclass(frozen=True)
class PageView:
    url: str
    title: str
    text: str
    elements: tuple[tuple[int, str, str], ...]  # (ref, kind in words, label)

    @staticmethod
    def from_script(url: str, raw: Any) -> PageView:
        data = raw if isinstance(raw, dict) else {}
        elements: list[tuple[int, str, str]] = []
        for item in data.get("elements") or []:
            if isinstance(item, dict) and isinstance(item.get("ref"), int):
                elements.append((item["ref"], _kind(item), str(item.get("label") or "")))
        return PageView(url, str(data.get("title") or ""), str(data.get("text") or ""), tuple(elements))

    def render(self, mode_line: str, max_chars: int = MAX_TEXT_CHARS) -> str:
        lines = [mode_line, f"URL: {self.url}"] + ([f"标题: {self.title}"] if self.title else [])
        text = "\n".join(line.rstrip() for line in self.text.splitlines() if line.strip())
        if len(text) > max_chars:
            text = text[:max_chars] + f"\n...(正文已截断，共 {len(text)} 字符)"
        lines += ["", text or "(页面没有文字)"]
        if self.elements:
            lines += ["", "可点击的元素（click 填编号）:"]
            lines += [f"[{ref}] {kind} {label}".rstrip() for ref, kind, label in self.elements]
        return "\n".join(lines)


def _kind(item: dict[str, Any]) -> str:
    tag = str(item.get("tag") or "")
    if tag == "input":
        kind = str(item.get("type") or "text").lower()
        return "按钮" if kind in ("button", "submit", "reset") else f"输入框({kind})"
    return _KINDS.get(tag, tag or "元素")
