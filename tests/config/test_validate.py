from __future__ import annotations

import pytest

from paicli.config import knobs_web
from paicli.config.env import ConfigError, EnvLookup
from paicli.config.validate import KNOBS, validate_knobs


def lookup(**values: str) -> EnvLookup:
    return EnvLookup(environ=values)


def test_unset_and_valid_knobs_pass() -> None:
    validate_knobs(lookup())
    validate_knobs(
        lookup(
            PAICLI_MEMORY_STALE_DAYS="0",
            PAICLI_MEMORY_CONFLICT_THRESHOLD="1",
            PAICLI_TOOL_RESULT_CLEARING_KEEP="0",
            PAICLI_MEMORY_AUTO_EXTRACT_ENABLED="off",
            PAICLI_REACT_STAGNATION_WINDOW="2",
            PAICLI_MEMORY_LOCK_TIMEOUT_SECONDS="0.5",
        )
    )


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("PAICLI_MEMORY_STALE_DAYS", "x"),
        ("PAICLI_MEMORY_CONFLICT_THRESHOLD", "abc"),
        ("PAICLI_MEMORY_CONFLICT_THRESHOLD", "0"),
        ("PAICLI_MEMORY_CONFLICT_THRESHOLD", "1.5"),
        ("PAICLI_TOOL_RESULT_CLEARING_KEEP", "-3"),
        ("PAICLI_REACT_STAGNATION_WINDOW", "1"),
        ("PAICLI_MEMORY_AUTO_EXTRACT_ENABLED", "maybe"),
        ("PAICLI_MEMORY_LOCK_TIMEOUT_SECONDS", "0"),
    ],
)
def test_bad_values_are_one_line_errors_naming_the_key(key: str, value: str) -> None:
    with pytest.raises(ConfigError) as error:
        validate_knobs(lookup(**{key: value}))
    message = str(error.value)
    assert key in message and "\n" not in message


def test_every_knob_is_named_once() -> None:
    keys = [k.key for k in KNOBS]
    web = {k.key for k in knobs_web.WEB_KNOBS}  # web_search keeps the reference's names
    assert len(keys) == len(set(keys)) and all(k.startswith("PAICLI_") for k in keys if k not in web)
