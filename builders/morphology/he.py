"""Hebrew: no article rules (caush realises its Hebrew sentences from a corpus); the spell-check
dictionary of its lexicon and, in ``function_words/he.txt``, its closed-class words."""

HUNSPELL = "he_IL"  # spell-check dictionary (builders/spellcheck.py)
HUNSPELL_PACKAGE = "hunspell-he"
