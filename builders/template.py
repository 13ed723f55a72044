"""Template files: one schema, checked on load, with errors that name file and line.

A phenomenon's template is ``<package>/template.yaml`` or, when one package serves several
phenomena, ``<package>/<phenomenon>.yaml``; either may ``include:`` a shared file whose keys it
overrides (as lm-evaluation-harness task files do). The common keys are declared here once
(:class:`Template`); a phenomenon subclasses it for its own sections. Unknown keys, missing keys,
wrong types and unknown rule names are errors ``file:line: entry: reason``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from builders.errors import InputError
from builders.lexicon import Entry, Items, LexiconError, load_yaml

LexicalType = Literal["I", "II", "III"]


class Strict(BaseModel):
    """A template section: unknown keys are errors, values are immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class RuleRef(Strict):
    """A rule of the phenomenon's rule book, with the parameters this use gives it.

    YAML: ``agreement`` or ``{mapping: {order: [object, subject, pp]}}``.
    """

    name: str
    params: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _short_forms(cls, value: Any) -> Any:
        if isinstance(value, str):
            return {"name": value}
        if isinstance(value, Mapping) and len(value) == 1 and "name" not in value:
            (name, params), = value.items()
            return {"name": name, "params": dict(params or {})}
        return value

    def key(self) -> tuple:
        return self.name, tuple(sorted((k, repr(v)) for k, v in self.params.items()))


Fraction = Annotated[float, Field(gt=0, lt=1)]


class CandidateDecl(Strict):
    """A wrong candidate of the paper answer set: the gold with these rules corrupted, in order.

    The label is the rule's own label (joined by ``+`` for several rules) unless the template names
    the combination (``IER-PASS``); the error class is never written here: it follows from the rules.
    """

    rules: tuple[RuleRef, ...] = Field(min_length=1)
    label: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _short_forms(cls, value: Any) -> Any:
        if isinstance(value, (str, Mapping)) and not (isinstance(value, Mapping) and "rules" in value):
            return {"rules": [value]}
        return value


class BalancedDecl(Strict):
    """The balanced answer set (SPEC §6): the full crossing of these rules, each kept or corrupted.

    ``wellformed_from``: the rules whose corruption may leave a candidate well-formed; a candidate
    that corrupts any other factor is kept only where it is GRAMMAR (a well-formed candidate that
    is never the gold would let an answer-only model reject it). ``labels``: names for the joined
    labels of some combinations (the paper's ``IE-SI`` for ``I-INT+E-SI``).
    """

    factors: tuple[RuleRef, ...] = Field(min_length=1)
    wellformed_from: tuple[str, ...] | None = None
    labels: dict[str, str] = Field(default_factory=dict)


class AnswersDecl(Strict):
    paper: tuple[CandidateDecl, ...] = Field(min_length=1)
    balanced: BalancedDecl | None = None


class TemplateBase(Strict):
    """The keys every template has; a phenomenon subclasses ``Template`` (one answer-set declaration for all its
    sentences) or, where each template variant declares its own answer sets (COS+), this base."""

    phenomenon: str
    description: str = ""
    context_size: int = Field(ge=2)
    sizes: dict[LexicalType, int]
    # the share of lemmas held out for test: one, or one per config variant (CausH: natural, synthetic)
    test_lemma_fraction: Fraction | dict[str, Fraction]
    type_i_min_jaccard: float = Field(default=0.3, ge=0, le=1)
    # type II/III: well-formed candidates with the gold's frame that are nevertheless not a second answer,
    # because a filler takes another role there ("LABEL" or "TEMPLATE:LABEL" -> why); builders/checks.py
    same_frame_distractors: dict[str, str] = Field(default_factory=dict)

    @field_validator("sizes")
    @classmethod
    def _positive_sizes(cls, sizes: dict[str, int]) -> dict[str, int]:
        for lexical_type, size in sizes.items():
            if size < 2:
                raise InputError(f"size of type {lexical_type} must be at least 2, got {size}")
        return sizes

    def rule_refs(self) -> list[tuple[RuleRef, tuple]]:
        """Every rule the template names, with its location in the parsed model (for errors)."""
        raise NotImplementedError


class Template(TemplateBase):
    """A template whose answer sets (``answers``) hold for every sentence pattern it declares."""

    answers: AnswersDecl

    def rule_refs(self) -> list[tuple[RuleRef, tuple]]:
        refs = []
        for i, cand in enumerate(self.answers.paper):
            refs += [(ref, ("answers", "paper", i, "rules", j)) for j, ref in enumerate(cand.rules)]
        if self.answers.balanced:
            refs += [(ref, ("answers", "balanced", "factors", j)) for j, ref in enumerate(self.answers.balanced.factors)]
            refs += [(RuleRef(name=name), ("answers", "balanced", "wellformed_from", j))
                     for j, name in enumerate(self.answers.balanced.wellformed_from or ())]
        return refs


def _merge(base: Mapping, override: Mapping) -> Entry:
    """``override``'s keys replace ``base``'s; mappings merge recursively, lists are replaced."""
    out = Entry(base)
    out.line, out.source = getattr(override, "line", None), getattr(override, "source", None)
    for key, value in override.items():
        if isinstance(value, Mapping) and isinstance(base.get(key), Mapping):
            value = _merge(base[key], value)
        out[key] = value
    return out


def read(path: Path) -> Entry:
    """A template file with its ``include:`` (a file name beside it) merged in."""
    data = load_yaml(path)
    include = data.get("include")
    if include is None:
        return data
    if not isinstance(include, str):
        raise LexiconError(path, data.line, "include", "must be the name of a template file beside this one")
    base_path = path.parent / include
    if base_path == path:
        raise LexiconError(path, data.line, "include", "a template cannot include itself")
    merged = _merge(read(base_path), {k: v for k, v in data.items() if k != "include"})
    merged.line, merged.source = data.line, data.source
    return merged


def locate(data: Any, loc: tuple) -> tuple[str | None, int | None]:
    """The file and line of the deepest node on ``loc`` that knows them (for pydantic errors)."""
    source, line, node = getattr(data, "source", None), getattr(data, "line", None), data
    for part in loc:
        key_line = (getattr(node, "key_lines", None) or {}).get(part)
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            if key_line:
                line = key_line
            break
        if getattr(node, "line", None):
            source, line = node.source or source, node.line
        elif key_line:
            line = key_line
    return source, line


def load(path: Path, model: type[Template] = Template) -> Template:
    """Read and validate a template; the first problem is raised as ``file:line: entry: reason``."""
    return validated(read(path), model, path)


def validated(data: Any, model: type[BaseModel], path: Path) -> BaseModel:
    """``data`` (read with line marks) as ``model``; the first problem is a LexiconError ``file:line: entry:
    reason`` (templates and lexicons alike)."""
    try:
        return model.model_validate(data)
    except ValidationError as err:
        first = err.errors()[0]
        loc = tuple(p for p in first["loc"] if not (isinstance(p, str) and p.endswith("]")))
        source, line = locate(data, loc)
        entry = ".".join(str(p) for p in loc) or "template"
        reason = first["msg"]
        if first["type"] == "extra_forbidden":
            known = ", ".join(_fields_at(model, loc[:-1]))
            reason = f"unknown key; this section takes: {known}"
        elif first["type"] == "missing":
            reason = "missing key"
        elif first["type"] == "value_error":  # a validator's own message, without pydantic's "Value error, "
            reason = str(first.get("ctx", {}).get("error") or reason.removeprefix("Value error, "))
        raise LexiconError(source or path, line, entry, reason) from None


def _fields_at(model: type[BaseModel], loc: tuple) -> list[str]:
    """The keys the section at ``loc`` accepts (for an 'unknown key' message)."""
    current: Any = model
    for part in loc:
        if isinstance(part, int) or not (isinstance(current, type) and issubclass(current, BaseModel)):
            continue
        field = current.model_fields.get(part)
        if field is None:  # a key of a dict[str, Model] section (a root, a lemma): the model is already current
            continue
        current = _model_in(field.annotation)
    if isinstance(current, type) and issubclass(current, BaseModel):
        return list(current.model_fields)
    return []


def _model_in(annotation: Any) -> Any:
    """The pydantic model inside ``X``, ``X | None``, ``tuple[X, ...]``, ``dict[str, X]``."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()):
        found = _model_in(arg)
        if found is not None:
            return found
    return None


def check_rules(template: Template, known: Mapping[str, Any], path: Path, data: Any = None) -> None:
    """Every rule the template names exists in the phenomenon's rule book."""
    for ref, loc in template.rule_refs():
        if ref.name not in known:
            source, line = locate(data if data is not None else read(path), loc)
            raise LexiconError(source or path, line, ".".join(map(str, loc)),
                               f"unknown rule {ref.name!r}; the rules of {template.phenomenon} are: {', '.join(known)}")


__all__ = ["AnswersDecl", "BalancedDecl", "CandidateDecl", "Items", "LexicalType", "RuleRef", "Strict", "Template",
           "check_rules", "load", "read", "validated"]
