"""One declaration per setting: names, README table and start-up validation all come from config/knobs.py."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from paicli.config import knobs, knobs_browser, knobs_code, knobs_compaction, knobs_memory, knobs_web
from paicli.config.env import ConfigError, EnvLookup
from paicli.config.providers import GENERIC, provider
from tests.sources import product_sources

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "paicli"
NAME = re.compile(r"\bPAICLI_[A-Z][A-Z0-9_]*\b")


def files_naming(name: str) -> list[str]:
    return sorted(
        str(path.relative_to(SRC))
        for path in product_sources(SRC)
        if name in path.read_text(encoding="utf-8")
    )


# where a group of settings is declared beside each other (every other setting: config/knobs.py)
GROUP_HOMES = {
    **{knob.key: "config/knobs_compaction.py" for knob in knobs_compaction.COMPACTION_KNOBS},
    **{knob.key: "config/knobs_memory.py" for knob in knobs_memory.MEMORY_KNOBS},
    **{knob.key: "config/knobs_code.py" for knob in knobs_code.CODE_KNOBS},
    **{knob.key: "config/knobs_browser.py" for knob in knobs_browser.BROWSER_KNOBS},
}


def home_of(key: str) -> str:
    return GROUP_HOMES.get(key, "config/knobs.py")


def test_every_setting_is_named_in_exactly_one_module() -> None:
    keys = [knob.key for knob in knobs.ALL_KNOBS]
    assert len(keys) == len(set(keys))
    for key in keys:
        if not key.startswith("PAICLI_"):
            continue
        found = [
            f for f in files_naming(key) if re.search(rf"\b{key}\b", (SRC / f).read_text(encoding="utf-8"))
        ]
        assert found == [home_of(key)], f"{key} is named in {found}"


def test_the_web_search_settings_are_declared_and_read_only_through_their_declarations() -> None:
    web = [knob.key for knob in knobs_web.WEB_KNOBS]
    assert set(web) <= {knob.key for knob in knobs.ALL_KNOBS} and len(web) == 8
    for key in web:
        assert files_naming(f'"{key}"') == ["config/knobs_web.py"], f"{key} is read outside its declaration"


def test_every_paicli_name_in_src_has_one_home() -> None:
    generic = provider(GENERIC)
    homes = {knob.key: home_of(knob.key) for knob in knobs.ALL_KNOBS}
    for key in (*generic.key_envs, *generic.model_envs, *generic.base_url_envs):
        homes[key] = "config/providers.py"
    homes["PAICLI_SKILL_INJECTION"] = "context/internal.py"  # a protocol marker, not a setting
    homes["PAICLI_WORKSPACE_NOTE"] = (
        "context/internal.py"  # likewise (files restored outside the conversation)
    )
    homes["PAICLI_COMMAND_MARKER"] = "config/env.py"  # tags a command's processes, not a setting
    for path in product_sources(SRC):
        relative = str(path.relative_to(SRC))
        for name in set(NAME.findall(path.read_text(encoding="utf-8"))):
            assert homes.get(name) == relative, f"{name} in {relative}: declare it in config/knobs.py"


def test_readme_settings_table_matches_the_declarations() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("<!-- settings:begin -->", 1)[1].split("<!-- settings:end -->", 1)[0]
    assert block.strip() == knobs.markdown_table()


@pytest.mark.parametrize("knob", knobs.ALL_KNOBS, ids=lambda k: k.key)
def test_every_setting_reads_its_default_and_rejects_nonsense_in_one_line(knob: knobs.Knob[object]) -> None:
    assert knob.read(EnvLookup(environ={})) == knob.default
    if knob.kind in ("bool", "int", "float", "choice"):
        with pytest.raises(ConfigError) as error:
            knob.read(EnvLookup(environ={knob.key: "no-such-value"}))
        assert knob.key in str(error.value) and "\n" not in str(error.value)


def test_values_are_typed_and_range_checked() -> None:
    env = EnvLookup(
        environ={
            "PAICLI_TOOL_RESULT_CLEARING_KEEP": "5",
            "PAICLI_MEMORY_VECTOR": "off",
            "PAICLI_TOOL_RESULT_CLEARING_EXCLUDE_TOOLS": "Read_File, web_fetch,",
            "PAICLI_MEMORY_PLACEMENT": "SYSTEM",
        }
    )
    assert knobs_compaction.TOOL_RESULT_CLEARING_KEEP.read(env) == 5
    assert knobs.MEMORY_VECTOR.read(env) is False
    assert knobs_compaction.TOOL_RESULT_CLEARING_EXCLUDE_TOOLS.read(env) == ("read_file", "web_fetch")
    assert knobs.MEMORY_PLACEMENT.read(env) == "system"
    with pytest.raises(ConfigError, match=r"PAICLI_LLM_MAX_RETRIES=11 超出允许范围 \[0, 10\]"):
        knobs.LLM_MAX_RETRIES.read(EnvLookup(environ={"PAICLI_LLM_MAX_RETRIES": "11"}))


def test_unknown_paicli_names_are_named_with_the_closest_known_one_only_when_close() -> None:
    from paicli.config.validate import unknown_name_warnings

    env = EnvLookup(
        environ={
            "PAICLI_CONTEX_WINDOW": "1",
            "PAICLI_FOO": "1",
            "PAICLI_MODEL": "m",
            "PAICLI_COMMAND_MARKER": "x",
        }
    )
    lines = unknown_name_warnings(env, ("PAICLI_COMMAND_MARKER",))
    assert lines == [
        "⚠️ 未知的设置 PAICLI_CONTEX_WINDOW，已忽略，是不是 PAICLI_CONTEXT_WINDOW？",
        "⚠️ 未知的设置 PAICLI_FOO，已忽略（paicli 没有这个设置）。",
    ]
