"""What a user's instructions (customTemplate) will do, in words, for the pages where they are
entered (a connection's settings, Try it): the parts the built-in reader did not understand,
said once, and the rules the chosen strategy leaves unused.

What applies is the engine's (`engine.rename`): with instructions the pages send
templateMode "custom", so their naming rules (name format, fields, separator, case, date
format) apply under every strategy; their folder rules are used only by the strategy
"follow_custom_prompt" ("As the instructions say"; a document no folder rule takes goes into
the target folder itself); every other strategy makes its own folders.
"""

from __future__ import annotations

import re

from renamerd.engine import compile_template
from renamerd.engine.instructions import Rules
from renamerd.web.render import strategy_words

#: the strategy that files documents as the instructions' folder rules say
BY_INSTRUCTIONS = "follow_custom_prompt"

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


def _names(rules: Rules) -> bool:
    """Whether the rules say anything of the name (format, fields, separator, case, date)."""
    return bool(rules.pattern or rules.fields or rules.separator is not None or rules.case
                or rules.date_format)


def strategy_note(instructions: str, strategy: str) -> str:
    """What of the instructions the strategy leaves unused, in words ("" when all applies):
    folder rules under a strategy other than "As the instructions say"; no folder rule
    under it."""
    rules = compile_template(instructions)
    by_instructions = f"“{strategy_words(BY_INSTRUCTIONS)}”"
    if strategy == BY_INSTRUCTIONS:
        if rules.conditions:
            return ""
        which = "these name no folder" if instructions.strip() else "there are none"
        return (f"With the strategy {by_instructions} the instructions choose the folders, "
                f"and {which}: every document goes into the target folder itself.")
    if not rules.conditions:
        return ""
    naming = " Their naming rules apply with every strategy." if _names(rules) else ""
    own = ("puts every document into the target folder itself" if strategy == "root"
           else "makes its own folders")
    return (f"The folder rules of these instructions are not used with the strategy "
            f"“{strategy_words(strategy)}”, which {own}: folder rules apply only with the "
            f"strategy {by_instructions}.{naming}")


def instruction_notes(instructions: str | None, strategy: str, *, llm: bool) -> list[str]:
    """The notes shown under the instructions a user entered: the parts not understood,
    then what the strategy leaves unused."""
    text = (instructions or "").strip()
    rules = compile_template(text)
    notes = [not_understood_note([misread_words(str(m), m.reason)
                                  for m in rules.not_understood], llm=llm),
             strategy_note(text, strategy)]
    return [note for note in notes if note]
