"""Reading the chosen letter out of realistic free-form model answers (001's generation protocol)."""

import pytest

from blm_eval import llm_eval
from blm_eval.answer_extraction import extract_answer

TEN = "ABCDEFGHIJ"  # od_it items have up to 10 candidates
EIGHT = "ABCDEFGH"
SENTENCES = ["le pittrici possono disegnare le scenografie", "le pittrici possono disegnare da un anno circa",
             "delle forme devono poter disegnare da pochi mesi"]


@pytest.mark.parametrize("text, options, letter, rule", [
    ("B", EIGHT, "B", "whole"),
    (" c\n", EIGHT, "C", "whole"),
    ("**C**", EIGHT, "C", "whole"),
    ("(C)", EIGHT, "C", "whole"),
    ("C)", EIGHT, "C", "whole"),
    ("C.", EIGHT, "C", "whole"),
    ("I", TEN, "I", "whole"),
    ("I think the answer is B", TEN, "B", "cue"),
    ("I think the answer is B.", EIGHT, "B", "cue"),
    ("E' la risposta C", TEN, "C", "cue"),
    ("È la risposta E", TEN, "E", "cue"),
    ("La risposta corretta è C", TEN, "C", "cue"),
    ("La risposta corretta è la C.", TEN, "C", "cue"),
    ("**La tua scelta**: D", EIGHT, "D", "cue"),
    ("Scelta corretta: d.", EIGHT, "D", "cue"),
    ("The correct answer is (F).", EIGHT, "F", "cue"),
    ("Answer: **G** le pittrici possono disegnare", EIGHT, "G", "cue"),
    ("The answer is not A; the correct answer is H", EIGHT, "H", "cue"),
    ("C) le pittrici possono disegnare le scenografie", EIGHT, "C", "leading"),
    ("(c) le pittrici possono disegnare le scenografie", EIGHT, "C", "leading"),
    ("E.\tle pittrici possono disegnare da un anno circa", TEN, "E", "leading"),
    ("B - le pittrici possono disegnare da un anno circa", TEN, "B", "leading"),
    ("C le pittrici possono disegnare le scenografie", EIGHT, "C", "alone"),
    ("I think J", TEN, "J", "alone"),
    ("E' la C", TEN, "C", "alone"),
])
def test_the_chosen_letter_is_read_from_realistic_answers(text, options, letter, rule):
    assert extract_answer(text, options) == (letter, rule)
    assert llm_eval.parse_letter(text, options) == letter


@pytest.mark.parametrize("text, options", [
    ("", EIGHT),
    ("Bravo", "ABC"),
    ("I think D", "ABC"),  # D is not an option, I is the pronoun
    ("The answer is a sentence about painters", EIGHT),  # an article, not option A
    ("Answer Set", EIGHT),
    ("A or B, I cannot tell", EIGHT),  # two letters, no cue: ambiguous
    ("La risposta è K", TEN),  # not an option
    ("Non lo so.", EIGHT),
])
def test_answers_with_no_readable_option_letter_are_invalid(text, options):
    assert extract_answer(text, options) == (None, None)
    assert llm_eval.parse_letter(text, options) is None


def test_an_answer_quoting_one_option_sentence_chooses_that_option():
    said = "La frase seguente è: le pittrici possono disegnare da un anno circa."
    assert extract_answer(said, "ABC", SENTENCES) == ("B", "sentence")
    assert extract_answer(said, "ABC") == (None, None)
    both = SENTENCES[0] + " oppure " + SENTENCES[2]
    assert extract_answer(both, "ABC", SENTENCES) == (None, None)


def test_invalid_answers_count_as_wrong_and_not_as_a_label():
    gold = ["A", "B", "B"]
    with_invalid = llm_eval.macro_f1(gold, ["A", None, "B"])
    assert with_invalid == pytest.approx((1 + 2 / 3) / 2)
    assert with_invalid < llm_eval.macro_f1(gold, ["A", "B", "B"])
