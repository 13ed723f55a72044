"""The supported Hugging Face library ranges: one truth in setup.cfg, CI's lowest set and the import-time check,
and a too-old library is one line at the command line, not an ImportError traceback."""

import configparser
import os
import subprocess
import sys
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from builders.library_versions import SUPPORTED, UnsupportedLibraryError, check_supported, supported_range

ROOT = Path(__file__).resolve().parent.parent


def declared() -> dict[str, str]:
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg")
    requirements = [Requirement(line) for line in config["options"]["install_requires"].split("\n") if line.strip()]
    return {req.name.replace("-", "_"): str(req.specifier) for req in requirements}


def test_the_check_uses_setup_cfg_ranges():
    found = declared()
    for package in SUPPORTED:
        assert sorted(found[package].split(",")) == sorted(supported_range(package).split(","))


def test_ci_lowest_set_is_the_lower_bounds():
    lines = (ROOT / ".ci" / "lowest-constraints.txt").read_text().splitlines()
    pins = dict(line.split("==") for line in lines if line and not line.startswith("#"))
    assert set(pins) == set(SUPPORTED)
    for package, version in pins.items():
        assert version.startswith(SUPPORTED[package][0] + "."), (package, version)


def fake_installed(folder: Path, package: str, version: str) -> dict:
    """An environment in which importlib.metadata reports `package` at `version` (a dist-info first on the path)."""
    info = folder / f"{package}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {package}\nVersion: {version}\n")
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(folder), str(ROOT)])}


def test_check_names_package_installed_version_and_range(tmp_path, monkeypatch):
    fake_installed(tmp_path, "transformers", "5.0.0")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(UnsupportedLibraryError) as raised:
        check_supported()
    assert str(raised.value) == ("blm-toolkit needs transformers>=5.20,<6, but transformers 5.0.0 is installed; "
                                 "upgrade it with: pip install 'transformers>=5.20,<6'")


@pytest.mark.parametrize("command", [["train.py", "--help"], ["-m", "blm_cli", "list"]])
def test_too_old_library_is_one_line_and_exit_2(tmp_path, command):
    env = fake_installed(tmp_path, "datasets", "3.6.0")
    done = subprocess.run([sys.executable, *command], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert "datasets>=4.0,<6" in lines[0] and "datasets 3.6.0 is installed" in lines[0]
