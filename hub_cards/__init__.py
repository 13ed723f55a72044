"""Hub cards: Jinja templates and code that render, check and merge dataset and model cards.

``dataset_card`` renders the README.md of ``blm export``; ``model_card`` the README.md of a trained
checkpoint; ``schema`` checks their YAML headers; ``sections`` merges generated text into a card
that others have edited.
"""
