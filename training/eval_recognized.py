"""The tables ``training.evaluate`` prints beside the text figures: recognizer output, and a source
left out of training.

Recognizer output (``recognized_tables``): the dev files read by a TTS engine that nothing was
tuned on (festival; training's timings come from espeak-ng), heard live by Whisper tiny.en and by
PocketSphinx, as ``engine.evaluation.recognized_dev`` recorded them. On the same words, scored
against the text that was read:

- ``engine_alone``: the streaming decoder on the words and their times, the recognizer's own
  writing ignored, fed in the batches the recognizer committed them in, the silence clock
  advancing as in a session (only as far as every word is committed);
- ``engine_with_hints``: the same, with Whisper's written marks and capitals as hints: folded
  into the model's probabilities as measured evidence (``engine.punctuation.hint_fusion``, what
  livecap's punctuation shows live with Whisper), and read as word cues by a model that reads them;
- ``engine_offline``, ``engine_offline_with_hints``: the offline decoder on the same words (what
  the text after Stop and an export get), without and with Whisper's writing;
- ``recognizer_own``: the marks and capitals Whisper wrote, as the live captions show them;
- ``recognizer_own_plus_engine``: Whisper's marks, and the engine's (with hints) where Whisper
  wrote none: the engine can only add.

Out of source (``out_of_source_table``): dev chitchat comes from the same source as a training
file, so it flatters. A model trained without that source (``training.train --exclude-source
chitchat``) read on the same dev words says how much: the live text F1 of both, side by side.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from engine.evaluation.scores import paired_f1_interval
from engine.evaluation.whisper_marks import engine_live_settled
from engine.punctuation.casing import CaseRenderer
from training.eval_tables import CachedScorer, run_streaming, timed_words
from training.metrics import Rows, f1_of


def engine_adds(own: list[tuple[str, str]], engine: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The recognizer's marks, and the engine's where the recognizer wrote none: the engine can only
    add. A word after an added sentence end takes a capital."""
    out, previous = [], "none"
    for (mark, form), (engine_mark, _) in zip(own, engine):
        if previous in ("period", "question") and form[:1].islower():
            form = form[:1].upper() + form[1:]
        chosen = mark if mark != "none" else engine_mark
        out.append((chosen, form))
        previous = chosen
    return out


def recognized_tables(model, sets) -> dict:
    """Per recognizer and dev file: the conditions above, and each condition over all files."""
    from engine.evaluation.recognized_sets import score_set
    from engine.session.batch import keep_written_marks, repunctuate

    out: dict = {}
    for rset in sets:
        words = rset.words
        bare = [replace(w, written="") for w in words]  # the times and prosody kept
        alone = engine_live_settled(model, rset.batches, hints=False, recognizer=rset.recognizer)
        conditions = {"engine_alone": [(e.mark, e.form) for e in alone]}
        lookahead = {"engine_alone": _mean_lookahead(alone)}
        writes = any(w.written for w in words)
        hints = writes and (model.uses_cues or model.config.hint_fusion is not None)
        if hints:
            hinted = engine_live_settled(
                model, rset.batches, hints=True, recognizer=rset.recognizer, writings=rset.writings
            )
            conditions["engine_with_hints"] = [(e.mark, e.form) for e in hinted]
            lookahead["engine_with_hints"] = _mean_lookahead(hinted)
        conditions["engine_offline"] = _marked(repunctuate(bare, model, recognizer=rset.recognizer))
        if hints:
            conditions["engine_offline_with_hints"] = _marked(
                repunctuate(words, model, recognizer=rset.recognizer)
            )
        if writes:  # as the live captions show them: a sentence's first word capitalised
            conditions["recognizer_own"] = _marked(keep_written_marks(words))
            if "engine_with_hints" in conditions:
                conditions["recognizer_own_plus_engine"] = engine_adds(
                    conditions["recognizer_own"], conditions["engine_with_hints"]
                )
        row = {
            "tts": rset.tts,
            "words": len(words),
            "reference_words": sum(len(e.words) for e in rset.excerpts),
        }
        for name, marked in conditions.items():
            row[name] = _percent(score_set(rset, [m for m, _ in marked], [f for _, f in marked]))
            if name in lookahead:  # words each live mark waited for (the recognizer's own: none)
                row[name]["avg_lookahead"] = lookahead[name]
        row["wer"] = row["engine_alone"]["wer"]
        out.setdefault(rset.recognizer, {})[rset.file] = row
    for files in out.values():
        rows = list(files.values())
        names = [k for k, v in rows[0].items() if isinstance(v, dict)]
        files["mean"] = {
            name: {
                key: round(float(np.mean([r[name][key] for r in rows])), 1)
                for key in ("marks_f1", "nonlower_f1")
            }
            for name in names
        }
    return out


# Targets on recognizer output and out of source (docs/QUALITY.md): the engine alone at least
# level with Whisper's own marks on Whisper's words, on every dev file; with Whisper's marks as
# hints, 3 points ahead; a source left out of training within 5 points of its in-source figure.
HINT_MARGIN = 3.0
OUT_OF_SOURCE_GAP = 5.0


def recognized_targets(report: dict) -> dict:
    out = protocol_targets(report.get("protocol", []), HINT_MARGIN)
    whisper = report.get("recognized", {}).get("whisper")
    if whisper:
        files = {f: r for f, r in whisper.items() if f != "mean"}
        own = {f: r["recognizer_own"]["marks_f1"] for f, r in files.items()}
        alone = {f: round(r["engine_alone"]["marks_f1"] - own[f], 1) for f, r in files.items()}
        out["whisper_words_engine_alone_minus_whisper"] = {
            "target": 0.0,
            "measured": alone,
            "met": all(v >= 0 for v in alone.values()),
        }
        if all("engine_with_hints" in r for r in files.values()):
            hinted = {f: round(r["engine_with_hints"]["marks_f1"] - own[f], 1) for f, r in files.items()}
            out["whisper_words_with_hints_minus_whisper"] = {
                "target": HINT_MARGIN,
                "measured": hinted,
                "met": all(v >= HINT_MARGIN for v in hinted.values()),
            }
    if "out_of_source" in report:
        gap = report["out_of_source"]["gap"]
        out["out_of_source_gap"] = {
            "target": OUT_OF_SOURCE_GAP,
            "measured": gap,
            "met": gap <= OUT_OF_SOURCE_GAP,
        }
    return out


def reading_label(sets) -> str:
    """What a reading is, for the tables: its voice, and Piper's style where it is not the voice's own."""
    first = sets[0]
    if first.style is None:
        return first.tts
    s = first.style
    return f"{first.tts} {s['length_scale']}/{s['noise_scale']}/{s['noise_w']}"


def protocol_rows(readings: dict[str, dict]) -> list[dict]:
    """Per reading (``reading_label`` -> ``recognized_tables``) and dev file, Whisper's words: the
    engine alone and with Whisper's marks as hints, each minus Whisper's own marks (marks F1)."""
    rows = []
    for label, tables in readings.items():
        for file, row in tables.get("whisper", {}).items():
            if file == "mean" or "recognizer_own" not in row:
                continue
            own_row = row["recognizer_own"]
            own = own_row["marks_f1"]
            hinted = row.get("engine_with_hints")
            rows.append(
                {
                    "reading": label,
                    "file": file,
                    "wer": row["wer"],
                    "whisper_own": own,
                    "engine_alone": row["engine_alone"]["marks_f1"],
                    "alone_minus_own": round(row["engine_alone"]["marks_f1"] - own, 1),
                    "alone_minus_own_interval": _gap_interval(row["engine_alone"], own_row),
                    "with_hints": hinted["marks_f1"] if hinted else None,
                    "hints_minus_own": round(hinted["marks_f1"] - own, 1) if hinted else None,
                    "hints_minus_own_interval": _gap_interval(hinted, own_row) if hinted else None,
                }
            )
    return rows


def _gap_interval(first: dict, second: dict) -> list[float] | None:
    """The 90 % interval of a file's F1 gap (``first`` − ``second``, percent), by a paired
    bootstrap over the file's excerpts: how far one recording's per-file figure can be trusted."""
    if "marks_by_excerpt" not in first or "marks_by_excerpt" not in second:
        return None  # a report written before the counts were kept
    low, high = paired_f1_interval(first["marks_by_excerpt"], second["marks_by_excerpt"])
    return [round(100 * low, 1), round(100 * high, 1)]


def protocol_targets(rows: list[dict], hint_margin: float = 3.0) -> dict:
    """Issue 46's targets on the rows: on every held-out reading's every file (festival, flite,
    Piper outside its training styles) the engine alone at least level with Whisper's own marks
    and, with Whisper's marks as hints, ``hint_margin`` ahead; on the Piper reading at the voice's
    own settings, the engine alone at least level."""
    held_out = [r for r in rows if r["reading"] != "piper"]
    own_voice = [r for r in rows if r["reading"] == "piper"]

    def target(name, chosen, key, margin):
        measured = {f"{r['reading']} {r['file']}": r[key] for r in chosen if r[key] is not None}
        if measured:
            intervals = {f"{r['reading']} {r['file']}": r.get(key + "_interval") for r in chosen}
            out[name] = {
                "target": margin,
                "measured": measured,
                "worst": min(measured.values()),
                "met": all(v >= margin for v in measured.values()),
                # missed beyond the noise of one recording: the file's whole 90 % interval is short
                "clear_misses": sorted(f for f, i in intervals.items() if i and i[1] < margin),
            }

    out: dict = {}
    target("held_out_engine_alone_minus_whisper", held_out, "alone_minus_own", 0.0)
    target("held_out_with_hints_minus_whisper", held_out, "hints_minus_own", hint_margin)
    target("piper_engine_alone_minus_whisper", own_voice, "alone_minus_own", 0.0)
    return out


def protocol_lines(rows: list[dict]) -> list[str]:
    lines = ["Whisper tiny.en's words, live, marks F1: the engine alone and with hints, minus Whisper's own:"]
    lines.append(
        "  " + "reading".ljust(22) + "file".ljust(20) + "WER".rjust(6) + "own".rjust(7) + "alone".rjust(7)
        + "-own".rjust(7) + "90 %".rjust(15) + "hints".rjust(7) + "-own".rjust(7) + "90 %".rjust(15)
    )  # fmt: skip
    for r in rows:
        hinted = (
            ""
            if r["with_hints"] is None
            else f"{r['with_hints']:>7.1f}{r['hints_minus_own']:>+7.1f}"
            + _interval_text(r.get("hints_minus_own_interval"))
        )
        lines.append(
            "  " + r["reading"].ljust(22) + r["file"].ljust(20) + f"{r['wer']:>6.1f}{r['whisper_own']:>7.1f}"
            f"{r['engine_alone']:>7.1f}{r['alone_minus_own']:>+7.1f}"
            + _interval_text(r.get("alone_minus_own_interval"))
            + hinted
        )
    lines.append("  [ ]: the gap's 90 % interval, by a paired bootstrap over the file's excerpts")
    return lines


def _interval_text(interval: list[float] | None) -> str:
    return " " * 15 if interval is None else f" [{interval[0]:+5.1f},{interval[1]:+5.1f}]"


def table_lines(recognized: dict, out_of_source: dict | None) -> list[str]:
    """The tables as text, for the terminal."""
    lines = []
    for recognizer, files in recognized.items():
        names = list(files["mean"])
        tts = next(iter(files.values())).get("tts", "")
        lines.append(f"{recognizer} words ({tts} speech), marks F1 / non-lowercase F1:")
        lines.append("  " + "file".ljust(20) + "".join(n.rjust(28) for n in names))
        for file, row in files.items():
            cells = "".join(f"{row[n]['marks_f1']:>20.1f} / {row[n]['nonlower_f1']:>5.1f}" for n in names)
            lines.append("  " + file.ljust(20) + cells)
    if out_of_source:
        i, o = out_of_source["in_source"], out_of_source["out_of_source"]
        lines.append(
            f"out of source ({out_of_source['dev_file']}, live text F1): trained on it {i['f1']:.1f}, "
            f"trained without it {o['f1']:.1f} (gap {out_of_source['gap']:.1f}); questions "
            f"{i['question_f1']:.1f} vs {o['question_f1']:.1f}"
        )
    return lines


def _marked(transcript) -> list[tuple[str, str]]:
    """(mark, displayed form) per word of a punctuated ``Transcript``."""
    return [(w.mark, w.word) for w in transcript.words]


def _mean_lookahead(settled) -> float:
    return round(float(np.mean([e.lookahead_used for e in settled])), 3) if settled else 0.0


def _percent(scores: dict) -> dict:
    """``score_set``'s fractions as percentages, as the text tables give them."""
    return {
        k: _percent(v) if isinstance(v, dict) else round(100 * v, 1) if isinstance(v, float) else v
        for k, v in scores.items()
    }


def text_live_f1(model, docs) -> dict:
    """Live F1 (the model's default decoder, text only) over ``docs``, as ``training.evaluate``
    measures its main rows."""
    casing = CaseRenderer(model.config.lexicon)
    live = replace(model.config.decoder, silence_gap=None, pause_threshold=None)
    rows = Rows()
    for d in docs:
        scorer = CachedScorer(model, d.words, [False] * len(d.words))
        marks, _, used = run_streaming(scorer, timed_words(d.words, None, None), live, casing)
        rows.add("live", "file", d.marks, marks, used)
    result = rows.punctuation("live")
    return {
        "f1": f1_of(result),
        "question_f1": result["overall"]["question"]["f1"],
        "words": int(sum(len(d.words) for d in docs)),
    }


def out_of_source_table(model, held_out_model, files: dict, source: str) -> dict:
    """Live text F1 on the dev file of ``source``: the main model (trained on that source) and
    ``held_out_model`` (trained without it)."""
    matching = [f for f in files if source in f]
    if not matching:
        raise ValueError(f"no dev file matches {source!r}")
    docs = files[matching[0]]
    in_source = text_live_f1(model, docs)
    out_source = text_live_f1(held_out_model, docs)
    return {
        "dev_file": matching[0],
        "left_out_of_training": source,
        "in_source": in_source,
        "out_of_source": out_source,
        "gap": round(in_source["f1"] - out_source["f1"], 1),
    }
