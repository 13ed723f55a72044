"""Evaluation and analysis: cross-type grids, error-analysis figures, LLM prompting, lm-eval tasks."""
