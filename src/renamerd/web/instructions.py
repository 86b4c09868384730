"""What a user's instructions (customTemplate) will do, in words, for the pages where they are
entered (a connection's settings, Try it): the parts the built-in reader did not understand,
said once.
"""

from __future__ import annotations

import re

from renamerd.engine import compile_template

_JUST_NOT_UNDERSTOOD = re.compile(r"not understood: '(.*)'", re.S)


def misread_words(text: str, reason: str) -> str:
    """A part not understood, as a list item under "Not understood": “text”, and why when
    the reason says more than that ("not understood: '<text>'" again says nothing more; the
    words of it that were not understood do)."""
    quoted = f"“{text}”"
    found = _JUST_NOT_UNDERSTOOD.fullmatch(reason.strip())
    if not reason.strip() or (found and found.group(1).strip() == text.strip()):
        return quoted
    if found:
        words = found.group(1).strip()
        return f"{quoted} (because of “{words}”)"
    return f"{quoted} ({reason.strip()})"


def not_understood_note(parts: list[str], *, llm: bool) -> str:
    """One sentence listing `parts` (misread_words of each); "" for none. With an LLM
    provider configured, they are asked about at each rename instead of left out."""
    if not parts:
        return ""
    listed = "; ".join(parts)
    if llm:
        return (f"Not understood by the built-in reader: {listed}. The AI provider is asked "
                "about these at each rename.")
    return f"Not understood, so left out: {listed}."


def instruction_notes(instructions: str | None, *, llm: bool) -> list[str]:
    """The notes shown under the instructions a user entered: the parts not understood."""
    rules = compile_template((instructions or "").strip())
    notes = [not_understood_note([misread_words(str(m), m.reason)
                                  for m in rules.not_understood], llm=llm)]
    return [note for note in notes if note]
