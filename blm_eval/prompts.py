"""The zero- and one-shot BLM prompts of BLM-It (001 Figs. 8–9), in English and Italian.

A prompt is Markdown: a task statement, an output-format rule ("output only the letter"), then the
puzzle as a numbered **Context** (``1\\tsentence``) and a lettered **Answer Set** (``A\\tsentence``),
ending with the cue the model answers after (``**Your Choice**``). The one-shot prompt puts one
solved puzzle (``# EXAMPLE 1`` … ``**Correct Choice**`` + its letter) before the ``# QUESTION``.
Fig. 8 gives the English zero-shot prompt and Fig. 9 the Italian one-shot prompt; the English
one-shot and Italian zero-shot prompts are composed from the same pieces. The papers' "The language
of the puzzle is Italian" and "numbered from 1 to 7" are filled in from the instance (data language,
context length), so the prompts also fit the other languages and the 4-sentence COS+ contexts.
"""

from __future__ import annotations

import string
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from builders.errors import InputError

LETTERS = string.ascii_uppercase


@dataclass(frozen=True)
class PromptText:
    """The fixed wording of one prompt language (placeholders: ``{language}``, ``{n}``)."""

    task: str
    instructions: str
    goal: str
    format: str
    example: str
    question: str
    context: str
    answers: str
    correct: str
    choice: str
    language_names: Mapping[str, str]


PROMPTS: dict[str, PromptText] = {
    "en": PromptText(
        task="# TASK: I'm asking you to solve a puzzle. The language of the puzzle is {language}.",
        instructions="I will give you a list of sentences (numbered from 1 to {n}) called the **Context**, "
                     "and a set of sentences (identified by capital letters) called the **Answer Set**.",
        goal="Your task is to choose among the **Answer Set** the sentence that could be the next sentence "
             "following the **Context**.",
        format="# FORMAT: You should **ONLY** output the letter corresponding to the best answer. "
               "Do not output other text before or after.",
        example="# EXAMPLE {i}",
        question="# QUESTION",
        context="**Context**",
        answers="**Answer Set**",
        correct="**Correct Choice**",
        choice="**Your Choice**",
        language_names={"en": "English", "it": "Italian", "fr": "French", "ro": "Romanian", "de": "German",
                        "he": "Hebrew"},
    ),
    "it": PromptText(
        task="# COMPITO: Ti chiedo di risolvere un quesito. La lingua di questo quesito e' {language}.",
        instructions="Ti daro' una lista di frasi (numerate da 1 a {n}) che chiameremo **Contesto**, "
                     "e un insieme di frasi (identificate da una lettera) che chiameremo **Risposte**.",
        goal="Il tuo compito e' di scegliere fra le **Risposte** la frase che potrebbe essere la frase "
             "seguente del **Contesto**.",
        format="# FORMATO: Devi mettere **SOLO** la lettera che corrisponde alla risposta migliore. "
               "Non inserire altro testo, ne' prima ne' dopo.",
        example="# ESEMPIO {i}",
        question="# DOMANDA",
        context="**Contesto**",
        answers="**Risposte**",
        correct="**Scelta corretta**",
        choice="**La tua scelta**",
        language_names={"en": "l'inglese", "it": "l'italiano", "fr": "il francese", "ro": "il rumeno",
                        "de": "il tedesco", "he": "l'ebraico"},
    ),
}
PROMPT_LANGUAGES = tuple(PROMPTS)


def letters(k: int) -> list[str]:
    """The option letters of a k-candidate answer set: A, B, C, …"""
    if not 0 < k <= len(LETTERS):
        raise InputError(f"an answer set needs 1 to {len(LETTERS)} candidates, got {k}")
    return list(LETTERS[:k])


def context_concatenated(context: Sequence[str]) -> str:
    """The numbered context block of the papers' data format: ``1\\tsentence`` per line."""
    return "\n".join(f"{i}\t{sentence}" for i, sentence in enumerate(context, 1))


def answer_concatenated(answers: Sequence[str]) -> str:
    """The lettered answer block: ``A\\tsentence`` per line."""
    return "\n".join(f"{letter}\t{answer}" for letter, answer in zip(letters(len(answers)), answers))


def gold_letter(row: Mapping[str, Any]) -> str:
    """The letter of the gold answer of a BLM record."""
    return letters(len(row["answers"]))[row["label"]]


def _check_language(prompt_lang: str) -> PromptText:
    if prompt_lang not in PROMPTS:
        raise InputError(f"no prompt in language {prompt_lang!r}; available: {', '.join(PROMPT_LANGUAGES)}")
    return PROMPTS[prompt_lang]


def _puzzle(text: PromptText, row: Mapping[str, Any]) -> list[str]:
    return [text.context, context_concatenated(row["context"]), text.answers, answer_concatenated(row["answers"])]


def render_prompt(row: Mapping[str, Any], prompt_lang: str = "en",
                  examples: Sequence[Mapping[str, Any]] = ()) -> str:
    """The prompt for one BLM record: zero-shot without ``examples``, k-shot with k solved records.

    The text ends with the answer cue (``**Your Choice**``); the model's answer is the letter that follows
    on the next line (or the assistant turn, when a chat template wraps the prompt).
    """
    text = _check_language(prompt_lang)
    language = text.language_names.get(row.get("language", ""), row.get("language", "") or "unknown")
    lines = [text.task.format(language=language),
             text.instructions.format(n=len(row["context"])),
             text.goal,
             text.format]
    for i, example in enumerate(examples, 1):
        lines += [text.example.format(i=i), *_puzzle(text, example), text.correct, gold_letter(example)]
    lines += [text.question, *_puzzle(text, row), text.choice]
    return "\n".join(lines)
