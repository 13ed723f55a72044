"""Reading the chosen option letter out of a model's free-form answer (001's generation protocol).

001 asks for "ONLY the letter" (Figs. 8-9) but does not say how it reads answers that add text, nor
how it scores answers with no letter. Here an answer is read by the first rule that applies:

1. ``whole``:    the answer is one letter, optionally wrapped (``B``, ``b``, ``**B**``, ``(B)``, ``B.``);
2. ``cue``:      a letter after an answer cue, English or Italian ("the answer is B", "Answer: (C)",
                 "La risposta corretta è C", "E' la risposta C", "Scelta: d."); the last such letter wins;
3. ``leading``:  a letter opening the answer and closed by ``)``, ``.``, ``:``, ``-`` or a tab
                 ("C) le pittrici ...", "(c) ...", "C. La frase ...");
4. ``sentence``: the answer quotes exactly one option's sentence (when the sentences are given);
5. ``alone``:    exactly one distinct option letter stands alone in the text, not counting the
                 pronoun "I" before a word nor elided "E'"/"L'" (more than one: ambiguous, invalid).

Anything else is invalid (``None``): counted as a wrong answer and never as a label in macro-F1
(``llm_eval.macro_f1``). Lower-case letters count only in rules 1-3, where they cannot be an article
or a preposition ("the answer is a sentence" is not A).
"""

from __future__ import annotations

import re
import unicodedata
from typing import Sequence

RULES = ("whole", "cue", "leading", "sentence", "alone")

_MARKUP = re.compile(r"[*_`#>]+")
_WRAPPED = re.compile(r"^\s*[(\[]?\s*([A-Za-z])\s*[)\].:]?\s*$")
_CUE_WORDS = r"(?:answer|choice|option|letter|risposta|scelta|opzione|lettera|soluzione)"
_FILLER = (r"(?:\s+(?:is|would|should|be|must|will|final|correct|right|best|the|option|letter|"
           r"corretta|giusta|migliore|esatta|finale|è|e'|e’|é|sarebbe|dovrebbe|essere|la|quindi))*")
# Upper case after a cue may be followed by a word ("Answer: C le pittrici"); lower case only by
# punctuation or the end, so an article or preposition after the cue is not read as a letter.
_CUE = re.compile(r"(?i:\b" + _CUE_WORDS + _FILLER + r")\s*[:=\-–]?\s*[(\[]?\s*"
                  r"(?:([A-Z])(?![A-Za-z'’])|([a-z])(?=\s*[)\].,;:!?]|\s*$))")
_LEADING = re.compile(r"^\s*[(\[]?\s*([A-Za-z])\s*(?:[)\]]|[.:\t]|\s+[-–]\s)")
_ALONE = re.compile(r"(?<![A-Za-z'’])([A-Z])(?![A-Za-z'’])")
_PRONOUN_I = re.compile(r"I\s+[a-z]")


def _norm(text: str) -> str:
    text = unicodedata.normalize("NFC", text).casefold()
    return " ".join(re.sub(r"[^\w\s']", " ", text).split())


def extract_answer(text: str, options: Sequence[str], option_texts: Sequence[str] | None = None
                   ) -> tuple[str | None, str | None]:
    """(chosen option letter or None, the rule in ``RULES`` that read it or None)."""
    options = [o.upper() for o in options]
    plain = _MARKUP.sub("", text).strip()

    def valid(letter: str | None) -> str | None:
        return letter.upper() if letter and letter.upper() in options else None

    if (m := _WRAPPED.match(plain)) and valid(m.group(1)):
        return valid(m.group(1)), "whole"
    cued = [letter for m in _CUE.finditer(plain) if (letter := valid(m.group(1) or m.group(2)))]
    if cued:
        return cued[-1], "cue"
    if (m := _LEADING.match(plain)) and valid(m.group(1)):
        return valid(m.group(1)), "leading"
    if option_texts:
        said = _norm(plain)
        quoted = {letter for letter, sentence in zip(options, option_texts) if _norm(sentence) and _norm(sentence) in said}
        if len(quoted) == 1:
            return quoted.pop(), "sentence"
    alone = {m.group(1) for m in _ALONE.finditer(plain)
             if m.group(1) in options and not (m.group(1) == "I" and _PRONOUN_I.match(plain, m.start()))}
    if len(alone) == 1:
        return alone.pop(), "alone"
    return None, None
