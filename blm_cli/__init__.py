"""The ``blm`` command: one package on top of blm_datasets, blm_models and blm_eval (which never import it)."""
