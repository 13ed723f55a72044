"""The toolkit's packages import each other in one direction only: no package cycle (hub_cards renders cards and
depends on builders alone; builders depends on no other package of ours)."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("builders", "blm_datasets", "blm_models", "blm_eval", "blm_cli", "hub_cards", "blm_augment")


def package_imports() -> dict[str, dict[str, list[str]]]:
    """{package: {imported package: [file:line, ...]}}, lazy imports inside functions included."""
    found: dict[str, dict[str, list[str]]] = {p: defaultdict(list) for p in PACKAGES}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                else:
                    continue
                for name in names:
                    top = name.split(".")[0]
                    if top in PACKAGES and top != package:
                        found[package][top].append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every elementary cycle's package list, found by depth-first search from each package."""
    found = []

    def walk(path: list[str]) -> None:
        for nxt in sorted(graph[path[-1]]):
            if nxt == path[0]:
                found.append(path + [nxt])
            elif nxt not in path and nxt > path[0]:
                walk(path + [nxt])

    for start in sorted(graph):
        walk([start])
    return found


def test_the_packages_import_each_other_without_a_cycle():
    imports = package_imports()
    graph = {package: set(targets) for package, targets in imports.items()}
    found = cycles(graph)
    where = [" -> ".join(cycle) + ": " + "; ".join(imports[a][b][0] for a, b in zip(cycle, cycle[1:]))
             for cycle in found]
    assert not found, where


def test_the_lower_layers_stay_low():
    imports = package_imports()
    assert not imports["builders"], dict(imports["builders"])
    assert set(imports["hub_cards"]) <= {"builders"}, dict(imports["hub_cards"])


def test_a_cycle_is_found():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == [["a", "b", "c", "a"]]
