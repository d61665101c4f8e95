"""Deterministic rules of automatic fact extraction (spec 5.2 and 5.4), plus paicli's hardening.

The reference rules alone let a careless or poisoned extractor model save text taken from quotations, quote
lines, code, pasted material and task requests. The hardened rules assume the model is hostile: a quote is kept
only when the words around it show the user stating a durable fact in their own voice. Every rule is a pure
function of the quote and the safe input, so the same checks run in the product, the tests and the evals.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from paicli.context.estimate import utf16_len
from paicli.memory.extract_batch import Verdict, parse_quotes, without_parts
from paicli.memory.extract_framing import own_speech, unframed_parts
from paicli.memory.extract_limits import MIN_INPUT
from paicli.memory.extract_limits import input_in_range as input_in_range
from paicli.memory.extract_secrets import carries_secret
from paicli.memory.extract_secrets import safe_input as safe_input
from paicli.memory.extract_statement import (
    before_request,
    cuts_word,
    has_statement,
    numeric_note,
    reads_as_statement,
    sentence_start,
)
from paicli.memory.extract_voice import (
    acceptable_label,
    adverb_lead_in,
    after_own_label,
    after_own_lead_in,
    asks,
    colon_statement,
    correction_frame,
    declares,
    denies_own_subject,
    imperative,
    java_trim,
    names_its_subject,
    opened,
    passing,
    retires_value,
    subject_label,
)
from paicli.memory.extract_words import (
    ATTENTION,
    AUXILIARY_START,
    BOUNDED_TIME,
    CLAUSE_JOIN,
    CONDITIONAL,
    COORDINATED,
    DISCOURSE_MARKERS,
    DURABLE,
    FACT_WORDS,
    FICTION,
    INJECTION,
    INNER_END,
    LABELLED_LINE,
    LIST_MARKER,
    MATERIAL,
    MEMORY_DIRECTIVE,
    OWN_VOICE_LABEL,
    POSSIBLE_FACT,
    PREFERENCE,
    REPORTED,
    REQUEST,
    REQUEST_DURABLE,
    SENSITIVE,
    SPECULATION,
    TEMPORARY,
    TEMPORARY_WIDE,
    TERMINATED,
    THIRD_PARTY,
    TRAILING_END,
    WH_WORDS,
)
from paicli.memory.quote_context import InputAnalysis, is_term, overlapping

MIN_QUOTE = 5
MAX_QUOTE = 180

# Whether a quote gives a stored subject a new value (the memory store answers; None: no store to ask).
Corrects = Callable[[str], bool]


def worth_asking(safe: str, hardened: bool = True, corrects: Corrects | None = None) -> bool:
    """Spec 5.2 step 3: long enough and mentions something a fact could be about. Hardened, any statement does
    (issue 37: a durable fact needs no cue word; the rules after the model's answer decide what is kept), and so
    does a part that gives a subject the memory holds a new value."""
    if utf16_len(safe) < MIN_INPUT:
        return False
    if not hardened:
        return POSSIBLE_FACT.search(safe) is not None
    if has_statement(safe):
        return True
    if corrects is None:
        return False
    clauses = _CLAUSE_ENDS.split(safe)
    parts = [
        part for part in (safe, *clauses, *(p for c in clauses for p in _LABEL_END.split(c))) if part.strip()
    ]
    return any(map(corrects, parts))


_CLAUSE_ENDS = re.compile(r"[，,；;。！!？?\n]|[.!?](?=\s)")
_LABEL_END = re.compile(r"：|:(?=\s)")  # what follows the user's label is a part too (`Heads-up: …`)


def reference_reason(
    quote: str, safe: str, corrects: Corrects | None = None, hardened: bool = False
) -> str | None:
    """The reference's per-quote checks (spec 5.4), in its order. A new value for a stored subject is checked
    for bounded time only: `连接池现在是 32` corrects the stored size, it is no temporary remark."""
    if not MIN_QUOTE <= utf16_len(quote) <= MAX_QUOTE or "\n" in quote:
        return "length"
    if quote not in safe:
        return "not_verbatim"
    if carries_secret(quote) if hardened else SENSITIVE.search(quote):
        return "secret_shape" if hardened else "sensitive"  # hardened: a secret's value, not a word
    if corrects is not None and corrects(quote):
        if BOUNDED_TIME.search(opened(correction_frame(quote, quote))):
            return "temporary"
    elif passing(TEMPORARY, quote, opened(quote) if hardened else quote, hardened):
        return "temporary"
    if _reference_quoted_or_question(safe, quote, hardened):
        return "quoted_or_question"
    return None


def _reference_quoted_or_question(safe: str, quote: str, hardened: bool = False) -> bool:
    """The reference ends a sentence at 。；; and a line break only; hardened, an English full stop ends one too
    (`The port is 9090. Can you check the config?`: the question is the next sentence)."""
    p = safe.find(quote)
    before = safe[:p]
    if before.count("```") % 2 == 1:
        return True
    line_start = before.rfind("\n") + 1
    if java_trim(before[line_start:]).startswith(">"):
        return True
    for opener, closer in (("‘", "’"), ("“", "”")):
        if before.rfind(opener) > before.rfind(closer) and safe.find(closer, p) >= 0:
            return True
    start = sentence_start(safe, line_start, p) if hardened else line_start  # `Why? The S is B.`
    ends = [i for i in (safe.find(d, p + len(quote)) for d in "。；;\n") if i >= 0]
    stop = _FULL_STOP.search(safe, max(p, p + len(quote) - 1)) if hardened else None
    if stop is not None:
        ends.append(stop.start())
    stop_at = min(ends) if ends else len(safe)
    if hardened:
        stop_at = p + len(quote) + len(before_request(safe[p + len(quote) : stop_at]))
    sentence = safe[start:stop_at]
    return "？" in sentence or "?" in sentence


_FULL_STOP = re.compile(r"[.!](?=\s)")


def _labelled_by_owner(a: InputAnalysis, quote: str, p: int) -> bool:
    """`团队约定：提交信息用英文写`: a quote right after the user's own label takes the label's subject."""
    before = java_trim(a.text_before_in_sentence(p))
    if not before.endswith(("：", ":")):
        return False
    label = re.split(r"[，,。；;]", before[:-1])[-1]
    return FACT_WORDS.search(label) is not None and acceptable_label(label)


OccurrenceRule = Callable[[InputAnalysis, str, int], bool]


def _in_code(a: InputAnalysis, quote: str, p: int) -> bool:
    return bool(overlapping(a.code_regions, p, p + len(quote))) or a.text[:p].count("```") % 2 == 1


def _on_quote_line(a: InputAnalysis, quote: str, p: int) -> bool:
    return bool(overlapping(a.quote_line_regions, p, p + len(quote)))


def _in_quotation(a: InputAnalysis, quote: str, p: int) -> bool:
    hits = overlapping(a.quotation_regions, p, p + len(quote))
    return any(not is_term(region, FACT_WORDS) for region in hits)


def analyze(safe: str) -> InputAnalysis:
    return InputAnalysis(safe, acceptable_label)


def _pasted_or_reported(a: InputAnalysis, quote: str, p: int, stored_subject: bool = False) -> bool:
    """`stored_subject`: the quote gives a subject the memory holds a new value, so a label inside it that is
    nothing but that subject (`CI: Jenkins is out, GitLab CI is in`) is the user's own note, not a speaker's."""
    end = p + len(quote)
    if overlapping(a.pasted_regions, p, end):
        return True
    if java_trim(a.clauses_around(p, end)).endswith(("：", ":")):
        return True  # a label that introduces something else (`下面是构建日志：`), not a statement
    sentence = after_own_lead_in(a.sentence_around(p, end), a.text_before_in_sentence(p))  # `顺便说下，…`
    sentence = own_speech(correction_frame(quote, sentence))  # `之前说的 8080 是旧的` is the user's own
    if REPORTED.search(sentence) or MATERIAL.search(sentence):
        return True
    start = p - len(a.text_before_in_sentence(p))
    labels = re.split(r"[：:]", a.text[start:p])[:-1]
    inner = re.split(r"[：:]", a.text[p:end])[:-1]
    # a whole `subject: value` note (not `写：本项` cut from `本项目…`), not a line of a transcript or a table
    whole_note = (
        colon_statement(quote) and _VALUE_ENDS.match(a.text, end) and len(LABELLED_LINE.findall(a.text)) < 2
    )
    stored = [stored_subject and names_its_subject(label, quote) for label in inner]
    if inner and (colon_statement(a.sentence_around(p, end)) or whole_note):
        return not all(map(acceptable_label, labels)) or not all(
            subject_label(label) or known for label, known in zip(inner, stored, strict=True)
        )
    return not all(map(acceptable_label, labels)) or not all(
        acceptable_label(label) or retires_value(label) or known
        for label, known in zip(inner, stored, strict=True)
    )


_VALUE_ENDS = re.compile(r"$|[\s。；;！!？?，,.…]")


def _after_request(a: InputAnalysis, quote: str, p: int) -> bool:
    """Text that follows a request in its sentence is the task's material (`帮我写个说明，大意是…`)."""
    if REQUEST_DURABLE.search(quote):
        return False
    before = a.text_before_in_sentence(p)
    if ATTENTION.fullmatch(before):
        return False  # `Please note the S is B`: asks for attention to the statement, not for a task
    return REQUEST.search(before) is not None or any(
        imperative(after_own_label(part)) for part in unframed_parts(before)
    )


def _third_party(a: InputAnalysis, quote: str, p: int) -> bool:
    """Someone else's thing in the quote's clauses or before it in its sentence (`我朋友的公司，日志保留 7 天`)."""
    return THIRD_PARTY.search(a.text_before_in_sentence(p) + a.clauses_around(p, p + len(quote))) is not None


def _question(a: InputAnalysis, quote: str, p: int) -> bool:
    end = p + len(quote)
    around = a.sentence_around(p, end)
    cut = end - (p - len(a.text_before_in_sentence(p)))  # where the quote ends in `around`
    # a request after the statement asks its own question (`…，帮我看看有没有问题？`)
    sentence = java_trim(around[:cut] + before_request(around[cut:]))
    if asks(sentence):
        return True
    # an English question opens with its auxiliary; a later clause that starts with one continues a statement
    # (`The default branch, for the record, is develop.`)
    if AUXILIARY_START.match(java_trim(re.split(r"[，,]", sentence)[0])):
        return True
    return WH_WORDS.search(sentence) is not None and not TERMINATED.search(sentence)


def _mid_clause(a: InputAnalysis, quote: str, p: int) -> bool:
    """A quote starts its sentence or a clause; a fragment cut from inside one has lost what framed it."""
    before = COORDINATED.sub("", java_trim(a.text_before_in_sentence(p)))
    if not before or LIST_MARKER.fullmatch(before):
        return False
    joined = CLAUSE_JOIN.search(before)
    if joined and reads_as_statement(before[: joined.start()]):
        return False  # `Logs are in Loki and the S is B`: a coordinator after a whole clause opens a clause
    if OWN_VOICE_LABEL.match(re.sub(r"(?i)\s+that$", "", before)):
        return False  # `Note that the port is 9090`: the user's own aside, then the statement
    if DISCOURSE_MARKERS.fullmatch(before) or ATTENTION.fullmatch(before) or adverb_lead_in(before, quote):
        return False  # `ok so the CI runs on Jenkins now`, `Keep in mind we …`: the user's own opening
    if before.endswith(("—", "–", " -")):  # `Reminder — the port is 9090`: a dash ends the user's own label
        return not acceptable_label(before.rstrip("—–- "))
    return not before.endswith(("，", ",", "：", ":", "、", "；", ";"))


def _temporary(a: InputAnalysis, quote: str, p: int) -> bool:
    """Temporary words in the quote's clauses or anywhere before it in its sentence (`今天，我们切换到…`)."""
    framed = a.text_before_in_sentence(p) + a.clauses_around(p, p + len(quote))
    return passing(TEMPORARY_WIDE, quote, opened(framed), True)


def _bounded(a: InputAnalysis, quote: str, p: int) -> bool:
    """The temporary rule for a correction: only a bounded time or a broken state around it counts."""
    framed = a.text_before_in_sentence(p) + a.clauses_around(p, p + len(quote))
    return BOUNDED_TIME.search(opened(correction_frame(quote, framed))) is not None


def _speculative(a: InputAnalysis, quote: str, p: int) -> bool:
    clauses = a.text_before_in_sentence(p) + a.clauses_around(p, p + len(quote))
    if SPECULATION.search(clauses):
        return True
    return CONDITIONAL.search(clauses) is not None and DURABLE.search(quote) is None


def _task_request(a: InputAnalysis, quote: str, p: int) -> bool:
    if REQUEST_DURABLE.search(quote):
        return False
    clauses = a.clauses_around(p, p + len(quote))
    heard = ATTENTION.sub("", clauses)
    if heard != clauses and declares(heard):  # `Please note the S is B` asks for nothing to be done
        clauses = heard
    if REQUEST.search(clauses):
        return True
    if PREFERENCE.search(quote):
        return False
    parts = re.split(r"[，,：:]", clauses)
    return any(
        imperative(after_own_label(part)) and not (i and denies_own_subject(parts[i - 1]))
        for i, part in enumerate(parts)
    )


def _memory_directive(a: InputAnalysis, quote: str, p: int) -> bool:
    return MEMORY_DIRECTIVE.search(a.sentence_around(p, p + len(quote))) is not None


def _under_own_label(a: InputAnalysis, quote: str, p: int) -> bool:
    """List items under the user's own label (`我们团队的约定：\n- 分支名用小写`) take the label's subject."""
    return bool(overlapping(a.owned_regions, p, p + len(quote)))


OCCURRENCE_RULES: tuple[tuple[str, OccurrenceRule], ...] = (
    ("cuts_word", cuts_word),
    ("mid_clause", _mid_clause),
    ("code", _in_code),
    ("quote_line", _on_quote_line),
    ("quotation", _in_quotation),
    ("reported", _pasted_or_reported),
    ("third_party", _third_party),
    ("question", _question),
    ("temporary_context", _temporary),
    ("speculative", _speculative),
    ("task_request", _task_request),
    ("after_request", _after_request),
    ("memory_directive", _memory_directive),
)


def hardened_reason(quote: str, analysis: InputAnalysis, corrects: Corrects | None = None) -> str | None:
    """paicli's checks on top of the reference's; the first failing rule names the reason."""
    if INJECTION.search(analysis.text):
        return "injection"
    if FICTION.search(analysis.text):
        return "fictional"
    if INNER_END.search(TRAILING_END.sub("", quote)):
        return "spans_sentences"
    occurrences = analysis.occurrences(quote)
    correction = corrects is not None and corrects(quote)  # the store knows its subject
    if (
        not FACT_WORDS.search(quote)
        and not correction
        and not declares(quote)
        and not reads_as_statement(quote)
        and not numeric_note(quote)
        and not all(
            _under_own_label(analysis, quote, p) or _labelled_by_owner(analysis, quote, p)
            for p in occurrences
        )
    ):
        return "no_subject"
    for p in occurrences:
        for name, rule in OCCURRENCE_RULES:
            if name == "temporary_context" and correction:
                if _bounded(analysis, quote, p):
                    return name
            elif name == "reported" and correction:
                if _pasted_or_reported(analysis, quote, p, stored_subject=True):
                    return name
            elif rule(analysis, quote, p):
                return name
    return None


def judge_quotes(
    candidates: list[str], safe: str, hardened: bool = True, corrects: Corrects | None = None
) -> list[Verdict]:
    """Trim, check and de-duplicate each candidate quote (order kept)."""
    analysis = analyze(safe) if hardened else None
    verdicts: list[Verdict] = []
    seen: set[str] = set()
    for raw in candidates:
        quote = java_trim(raw)
        reason = reference_reason(quote, safe, corrects, hardened)
        if reason is None and analysis is not None:
            reason = hardened_reason(quote, analysis, corrects)
        if reason is None and quote in seen:
            reason = "repeated"
        if reason is None:
            seen.add(quote)
        verdicts.append(Verdict(quote, reason))
    return without_parts(verdicts)


def validate_quotes(
    raw_content: str | None, safe: str, hardened: bool = True, corrects: Corrects | None = None
) -> list[str]:
    """Spec 5.4 `validateQuotes` (+ hardening): the quotes that may be saved, in order."""
    candidates = parse_quotes(raw_content)
    if candidates is None:
        return []
    return [v.quote for v in judge_quotes(candidates, safe, hardened, corrects) if v.accepted]
