"""``python -m blm_eval.lm_eval_tasks`` prints the folder to pass to ``lm_eval --include_path``."""

from blm_eval.lm_eval_tasks import include_path

print(include_path())
