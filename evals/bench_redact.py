"""Redactor and terminal sanitiser cost: `python -m evals.bench_redact` from the repository root.

Prints µs per KB for typical ledger text (Chinese and English prose, code, command output, JSON arguments),
for text full of secret shapes, and for inputs built to make a backtracking pattern go quadratic (long dotted
words, many `://`, unterminated PEM headers, many unfinished escape sequences). Linear cost shows as a
µs/KB figure that stays flat as the size grows.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from paicli.redact import Redactor
from paicli.termsafe import TerminalStream, strip_terminal

SEED = 20261201
WORDS = [
    "请帮我检查一下这个模块的错误处理逻辑",
    "上下文压缩之后需要保留最近三轮用户提问",
    "INFO request completed in 12 ms status=200 path=/api/v1/items/7",
    'def handle(request):\n    return {"token_count": 12, "path": "src/app.py"}',
    "git log --oneline | head -20 && pytest tests -q -x",
    '{"path": "src/paicli/cli/render.py", "content": "import re\\n"}',
    "https://github.com/org/repo/blob/main/README.md",
    "the password field is validated by the form; see the secret santa docs",
]
SECRETS = [
    "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
    "DB_PASS=hunter22",
    "curl -u admin:pa55 https://x",
    "https://bob:tok3n@git.example.com/r.git",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abcdefghijk",
    "sk-proj-abcdefghijklmnop1234567890",
]


def typical(size: int, rng: random.Random) -> str:
    parts: list[str] = []
    while sum(map(len, parts)) < size:
        parts.append(rng.choice(WORDS))
    return "\n".join(parts)[:size]


def with_secrets(size: int, rng: random.Random) -> str:
    parts: list[str] = []
    while sum(map(len, parts)) < size:
        parts.append(rng.choice(WORDS + SECRETS))
    return "\n".join(parts)[:size]


HOSTILE: dict[str, Callable[[int], str]] = {
    "dotted words + ://": lambda n: "x://" + "a." * (n // 2),
    "many ://": lambda n: "a://" * (n // 4),
    "PEM headers, no end": lambda n: "-----BEGIN RSA PRIVATE KEY-----\n-a" * (n // 36),
    "name_name_… no value": lambda n: "db_" * (n // 3) + "pass",
    "mysql, no -p": lambda n: "mysql " + "x" * n,
    "long token-like word": lambda n: "token=" + "a" * n,
}


def per_kb(function: Callable[[str], object], text: str, repeat: int = 5) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        function(text)
        best = min(best, time.perf_counter() - started)
    return best * 1e6 / (len(text.encode("utf-8")) / 1024)


def streamed(text: str) -> None:
    stream = TerminalStream()
    for start in range(0, len(text), 40):
        stream.feed(text[start : start + 40])
    stream.flush()


def main() -> None:
    rng = random.Random(SEED)
    redactor = Redactor(["configured-key-0123456789abcdef", "short-key1"])
    print("redactor (Redactor.text), µs per KB, best of 5")
    for size in (1_000, 10_000, 100_000):
        print(
            f"  {size:>7} chars  typical {per_kb(redactor.text, typical(size, rng)):7.1f}"
            f"  with secrets {per_kb(redactor.text, with_secrets(size, rng)):7.1f}"
        )
    print("redactor on hostile inputs (flat across sizes = linear)")
    for name, build in HOSTILE.items():
        figures = "  ".join(
            f"{size:>7}: {per_kb(redactor.text, build(size), 3):8.1f}" for size in (10_000, 100_000)
        )
        print(f"  {name:<24} {figures}")
    escapes = "text \x1b]52;c;SGVsbG8=\x1b\\ more \x1b[31mred\x1b[0m \x9d0;t\x9c " * 50
    print("terminal sanitiser, µs per KB")
    print(f"  strip_terminal, plain text      {per_kb(strip_terminal, typical(100_000, rng)):7.1f}")
    print(f"  strip_terminal, escape-heavy    {per_kb(strip_terminal, escapes):7.1f}")
    print(f"  TerminalStream, 40-char deltas  {per_kb(streamed, escapes):7.1f}")
    print(f"  strip_terminal, unfinished CSIs {per_kb(strip_terminal, chr(0x1B) + '[' * 100_000):7.1f}")


if __name__ == "__main__":
    main()
