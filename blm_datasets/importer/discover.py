"""Finding the release files among the SRC arguments, reading each with its format's module, and
giving rows the release's split (file names, ``datasets/<split>/sentences`` folders, ``split_info.json``).

A file named on the command line must be a release file; files found in a folder that are not
(READMEs, scripts) are skipped and listed in the report. A release file that cannot be read (a
header that cannot be repaired, an encoding error) is listed in ``failed`` with the reason, and the
other files are read all the same.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from blm_datasets.importer import agrf_csv, calamita_json, fourdev, split_files
from blm_datasets.importer.cells import head_line, squash_spaces
from blm_datasets.importer.rows import ReleaseError, ReleasedRow, SourceFile

TABLE_SUFFIXES = {".csv", ".tsv", ".txt", ".tab", ""}


@dataclass
class Discovered:
    """The release files read, the files skipped (with why) and notes on how splits were assigned."""

    sources: list[SourceFile] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    inputs: list[Path] = field(default_factory=list)      # every file read (data, split folders, split_info)
    failed: list[tuple[Path, str]] = field(default_factory=list)   # release files that could not be read, and why


def _files(srcs: list[str]) -> list[tuple[Path, bool]]:
    """(path, named on the command line) for every file under the SRC arguments, hidden ones left out."""
    out: list[tuple[Path, bool]] = []
    for src in srcs:
        path = Path(src).expanduser()
        if not path.exists():
            raise ReleaseError(f"SRC {src}: no such file or folder; give release files or folders holding them")
        if path.is_file():
            out.append((path, True))
            continue
        found = sorted(p for p in path.rglob("*") if p.is_file()
                       and not any(part.startswith(".") for part in p.relative_to(path).parts))
        out += [(p, False) for p in found]
    seen, unique = set(), []
    for path, named in out:
        key = path.resolve()
        if key not in seen:
            seen.add(key)
            unique.append((path, named))
    return unique


def read_file(path: Path, encoding: str, named: bool = True) -> SourceFile | str:
    """The file read with its format's module, or why it is not a release file.

    A JSON file found in a folder that does not parse is skipped (a named one is an error).
    """
    if path.suffix.lower() == ".json":
        try:
            data = calamita_json.load_json(path, encoding)
        except ReleaseError as err:
            if named:
                raise
            return f"not readable JSON: {str(err).split(': ', 1)[-1]}"
        if calamita_json.looks_like(data):
            return calamita_json.read(path, encoding, data)
        return "JSON, but not the CALAMITA layout (a list of objects with Context and Answer_set)"
    if path.suffix.lower() not in TABLE_SUFFIXES:
        return f"not a table or JSON file ({path.suffix})"
    first = head_line(path, encoding)
    if fourdev.looks_like(first):
        return fourdev.read(path, encoding)
    if agrf_csv.looks_like(first):
        return agrf_csv.read(path, encoding)
    return ("its first line is not a 4dev header (Sent_1 … Answer_1 …) nor a BLM-AgrF header (,0,1,…): "
            f"{first[:60]!r}")


def discover(srcs: list[str], encoding: str = "utf-8", use_release_split: bool = True) -> Discovered:
    """Read every release file under ``srcs`` and assign the release's splits to their rows."""
    found = Discovered()
    split_folders: dict[Path, Path] = {}     # sentences folder -> owner (the folder holding datasets/)
    infos: list[Path] = []
    for path, named in _files(srcs):
        if split_files.is_split_part(path):
            split_folders[path.parent] = path.parent.parent.parent.parent
            found.inputs.append(path)
            continue
        if path.name == "split_info.json":
            infos.append(path)
            found.inputs.append(path)
            continue
        try:
            result = read_file(path, encoding, named)
        except ReleaseError as err:
            found.failed.append((path, str(err)))
            continue
        if isinstance(result, str):
            if named:
                found.failed.append((path, f"{path}: not a BLM release file I can read: {result}; give 4dev TSV, "
                                           "early BLM-AgrF CSV or CALAMITA JSON files"))
                continue
            found.skipped.append(f"{path} ({result})")
            continue
        found.inputs.append(path)
        result.split = split_files.split_name(path.stem)
        if result.split:
            result.split_from = "file name"
            for row in result.rows:
                row.split = result.split
        found.sources.append(result)
    owners: dict[Path, list[SourceFile]] = {}
    for folder, owner in sorted(split_folders.items()):
        owners.setdefault(owner, []).append(split_files.read_split_folder(folder, encoding))
    for owner, parts in owners.items():
        mine = [s for s in found.sources if _under(s.path, owner) and not _under(s.path, owner / "datasets")]
        if not mine:
            for part in parts:
                part.split_from = f"datasets/{part.split} folder"
            found.sources += parts
            found.notes.append(f"{owner}: the datasets/ split folders are imported on their own (no release file "
                               "beside them)")
        elif use_release_split:
            found.notes.append(_assign_by_content(owner, mine, parts))
    for info in infos:
        mine = [s for s in found.sources if _under(s.path, info.parent) and s.split_from is None
                and s.format != "split-json"]
        lists, note = split_files.read_split_info(info, encoding)
        found.notes.append(note)
        if lists and mine and use_release_split:
            found.notes.append(_assign_by_index(info, mine, lists))
    return found


def _under(path: Path, folder: Path) -> bool:
    try:
        path.resolve().relative_to(folder.resolve())
        return True
    except ValueError:
        return False


def _key(row: ReleasedRow) -> tuple:
    return tuple(map(squash_spaces, row.context)), tuple(sorted(map(squash_spaces, row.answers)))


def _assign_by_content(owner: Path, sources: list[SourceFile], parts: list[SourceFile]) -> str:
    """Give each row the split of the split-folder instance with its context and answers."""
    where: dict[tuple, str] = {}
    both = 0
    for part in parts:
        for row in part.rows:
            if row.problem is None and part.split:
                key = _key(row)
                if key in where and where[key] != part.split:
                    both += 1
                where.setdefault(key, part.split)
    matched = total = 0
    for source in sources:
        source.split_from = f"{owner.name}/datasets split folders"
        for row in source.rows:
            if row.problem is None:
                total += 1
                row.split = where.get(_key(row))
                matched += row.split is not None
    if total and not matched:
        raise ReleaseError(f"{owner}/datasets: the split folders match none of the {total} rows of "
                           f"{', '.join(s.path.name for s in sources)}; pass --split random to split the rows yourself")
    return (f"{owner}/datasets: {matched} of {total} rows found in the split folders "
            f"({', '.join(p.split or '?' for p in parts)})" + (f"; {both} instances are in two splits" if both else ""))


def _assign_by_index(info: Path, sources: list[SourceFile], lists: dict[str, set[str]]) -> str:
    """Give each row the split whose list in split_info.json holds its index."""
    matched = total = 0
    for source in sources:
        source.split_from = info.name
        for row in source.rows:
            if row.problem is None:
                total += 1
                row.split = next((s for s, ids in sorted(lists.items()) if row.index in ids), None)
                matched += row.split is not None
    if total and not matched:
        raise ReleaseError(f"{info}: its row lists match none of the {total} row indices of "
                           f"{', '.join(s.path.name for s in sources)}; pass --split random to split the rows yourself")
    return f"{info}: {matched} of {total} rows listed"
