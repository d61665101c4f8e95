"""Who hears about a model call's retries: the context of the request, never the shared client.

A client is shared by the turn and by background side calls (fact extraction, session memory), so a listener
set on it would report another thread's retry as the turn's. A turn opens `retry_notices(listener)` around its
work instead; `chat` reads the listener of the calling context when it starts, so the notice travels with the
request that caused it. A new thread starts with an empty context: background calls have no listener unless
their work is run in a copy of the caller's context (`contextvars.copy_context`), as Plan's parallel tasks are.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

# (retry number, retries allowed, seconds until it, cause)
RetryListener = Callable[[int, int, float, str], None]

_LISTENER: ContextVar[RetryListener | None] = ContextVar("paicli_retry_listener", default=None)


@contextmanager
def retry_notices(listener: RetryListener | None) -> Iterator[None]:
    """Model calls made in this context (and in copies of it) tell `listener` before each retry pause."""
    token = _LISTENER.set(listener)
    try:
        yield
    finally:
        _LISTENER.reset(token)


def current_retry_listener() -> RetryListener | None:
    return _LISTENER.get()
