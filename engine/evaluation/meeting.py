"""Meetings measured: ``python -m engine.evaluation.meeting`` (prints JSON; progress on stderr).

A synthetic meeting (``meeting_speech``: Me in Piper's voice, the others in flite's and
festival's, taking turns, a few overlaps) is played on a private PulseAudio server
(``pulse_server``) into two null sinks: one stands in for the microphone, the other is the
meeting application's output, played as an application stream named "Meeting". The others come
back into the microphone as from speakers: a loopback from what the output plays into the
microphone's sink, 10 dB down and about 60 ms late, so the echo is always of what was played, as
the canceller's reference is (two players started together still start apart by a varying delay).
Each run is a child process running the session ``livecap listen --source mic --source
app:Meeting`` builds (``build_live_session``), so its CPU and memory are livecap's alone:

- **meeting**: both sides, with the echo canceller where the server has one, and the guard;
- **guard only**: the same without the canceller (the echo leakage the guard alone leaves);
- **alone**: each side's audio captioned by itself (Me's without the echo), for the WER ratio;
- **silence**: both sides open and nothing said, for the idle CPU.

Scores (``meeting_score``): WER per side against the turns read; Me/Others attribution error;
echo leakage (the others' words shown as Me, over the others' words); committed-word latency
p90 per side; CPU share of one core; peak RSS; Me's words the echo guard hid, overall and in
double talk (both sides speaking at once), against ``DOUBLE_TALK_HIDDEN_BOUND``.

``--files`` is the short run: no sound server, the two tracks read as files as fast as they
decode (the guard alone, no canceller: its worst case), on a meeting where ``--double-talk`` of
Me's turns (default: all of them) start halfway through the others' turn before them. It
measures how often the guard hides the user's own words said over the others', in minutes.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import soundfile as sf

from engine.evaluation.e2e_speech import SAMPLE_RATE

__all__ = ["main"]

MIC_SINK, OTHERS_SINK, APP = "mic", "others", "Meeting"
TAIL = 4.0  # seconds listened to after the audio ends: the last decodes and marks
LEAD = 10.0  # seconds of silence the players start with, while the session is built
ECHO_DB, ECHO_MS = -10.0, 60  # the speakers-to-microphone path: its loss and delay


def _progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# ---- one run, in a child process ---------------------------------------------------------------
def run_child(args) -> dict:
    """Play the tracks and caption them with the session ``listen`` builds; what was shown, when."""
    from engine.audio.pausable import SourceChoice
    from engine.evaluation.pulse_server import PlaybackStream
    from engine.session.build import SessionSpec, build_live_session
    from engine.session.resources import SessionResources

    me_audio = sf.read(args.me, dtype="int16")[0] if args.me else None
    others_audio = sf.read(args.others, dtype="int16")[0] if args.others else None
    sources = []
    if "me" in args.sides:
        sources.append(SourceChoice("system", f"{MIC_SINK}.monitor"))
    if "others" in args.sides:
        app = SourceChoice("app", APP) if args.app_capture else None
        sources.append(app or SourceChoice("system", f"{OTHERS_SINK}.monitor"))
    # Both streams start before the session is built, with LEAD seconds of silence first: the
    # meeting application is playing when the user starts captioning (the echo canceller routes
    # its stream), and the tracks' time 0 is LEAD seconds after the players started, both sides.
    lead = np.zeros(int(LEAD * SAMPLE_RATE), np.int16)
    echo = _echo_path() if args.echo else None
    players = []
    for sink, audio, app in ((MIC_SINK, me_audio, "Microphone"), (OTHERS_SINK, others_audio, APP)):
        if audio is not None:
            players.append(
                PlaybackStream(sink, np.concatenate([lead, audio]), SAMPLE_RATE, app, False, "pacat")
            )
    played = time.monotonic()
    for player in players:
        player.sink_input()
    spec = SessionSpec(
        source=sources[0], others=sources[1] if len(sources) > 1 else None, journal=False,
        echo_cancel=args.echo_cancel,
    )  # fmt: skip
    session, info = build_live_session(spec, SessionResources())
    if len(sources) > 1 and not args.guard:
        session.merger.guard = None
    shown, labels, hidden = _recorder(session)
    cpu0 = time.process_time()
    session.start()
    started = time.monotonic()
    if started > played + LEAD:
        raise RuntimeError(f"the session took over {LEAD:.0f} s to build: the meeting began before it")
    tracks = [len(a) / SAMPLE_RATE for a in (me_audio, others_audio) if a is not None]
    time.sleep(max(0.0, played + LEAD - time.monotonic()) + max(tracks) + TAIL if tracks else args.seconds)
    session.stop()
    wall = time.monotonic() - started
    cpu = time.process_time() - cpu0
    for player in players:
        player.stop()
    if echo is not None:
        subprocess.run(["pactl", "unload-module", str(echo)], capture_output=True)
    for word in shown:
        word["latency"] = word.pop("at") - started - (word["end"] or 0.0)
    _relabel(shown, labels)
    return {
        "words": shown,
        "hidden": hidden,
        "offset": played + LEAD - started,  # track time + offset = stream time
        "wall_s": round(wall, 1),
        "cpu_cores": round(cpu / wall, 3),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "echo": info.echo,
        "hidden_as_echo": session.merger.guard.hidden if session.merger.guard is not None else 0,
    }


def _recorder(session) -> tuple[list[dict], dict[int, str], list[dict]]:
    """(words shown, with when; their voice labels' corrections; words hidden as echo), filled
    as the session publishes them."""
    from engine.events import Appended, SpeakersLabelled, WordsHidden

    shown: list[dict] = []
    labels: dict[int, str] = {}
    hidden: list[dict] = []

    def record(events) -> None:
        now = time.monotonic()
        for event in events:
            if isinstance(event, Appended):
                w = event.word
                shown.append(
                    {"text": w.text, "speaker": w.speaker, "start": w.start, "end": w.end, "at": now}
                )
            elif isinstance(event, SpeakersLabelled):
                labels.update(dict(event.labels))
            elif isinstance(event, WordsHidden):
                hidden.extend({"text": w.text, "start": w.start, "end": w.end} for w in event.words)

    session.subscribe(record)
    return shown, labels, hidden


def _relabel(shown: list[dict], labels: dict[int, str]) -> None:
    for position, speaker in labels.items():
        if position < len(shown):
            shown[position]["speaker"] = speaker


def run_files(me: Path, others: Path) -> dict:
    """Caption the two tracks as files, read as fast as they decode (the sides merged by their
    timelines), with the echo guard and no canceller; Whisper decodes at the audio's pace, not
    the machine's load, so the words do not depend on what else runs."""
    from engine.audio.pausable import SourceChoice
    from engine.recognizers.whisper_options import WhisperOptions
    from engine.recognizers.whisper_rec import WhisperRecognizer
    from engine.session.build import SessionSpec, build_live_session
    from engine.session.resources import SessionResources

    whisper = WhisperRecognizer(live=True, options=WhisperOptions(keep_pace=False))
    spec = SessionSpec(
        source=SourceChoice("file", str(me)), others=SourceChoice("file", str(others)),
        journal=False, realtime=False,
    )  # fmt: skip
    session, _ = build_live_session(spec, SessionResources(lambda kind, name: (whisper, "")))
    shown, labels, hidden = _recorder(session)
    started = time.monotonic()
    session.start()
    session.wait()
    session.stop()
    whisper.close()
    for word in shown:
        del word["at"]
    _relabel(shown, labels)
    return {"words": shown, "hidden": hidden, "offset": 0.0, "wall_s": round(time.monotonic() - started, 1)}


def _echo_path() -> int:
    """Load a loopback from the meeting's output into the microphone's sink (the speakers heard
    by the microphone), ECHO_DB down; returns its module index."""

    def pactl(*args: str) -> str:
        return subprocess.run(["pactl", *args], capture_output=True, text=True, check=True).stdout

    loopback = [
        "module-loopback",
        f"source={OTHERS_SINK}.monitor",
        f"sink={MIC_SINK}",
        f"latency_msec={ECHO_MS}",
    ]
    module = int(pactl("load-module", *loopback, "source_dont_move=true", "sink_dont_move=true").strip())
    deadline = time.monotonic() + 5.0
    while time.monotonic() < deadline:  # its stream shows on the server a moment after the load
        for block in pactl("list", "sink-inputs").split("Sink Input #")[1:]:
            if f"Owner Module: {module}\n" in block:
                pactl("set-sink-input-volume", block.split("\n", 1)[0].strip(), f"{ECHO_DB:.0f}dB")
                return module
        time.sleep(0.1)
    raise RuntimeError("the echo loopback's stream did not show on the server")


def _child(server_env: dict, folder: Path, name: str, **options) -> dict:
    cmd = [sys.executable, "-m", "engine.evaluation.meeting", "--child", str(folder / f"{name}.json")]
    for key, value in options.items():
        if value is True:
            cmd.append(f"--{key.replace('_', '-')}")
        elif value not in (None, False):
            cmd += [f"--{key.replace('_', '-')}", str(value)]
    _progress(f"meeting: run {name}")
    done = subprocess.run(cmd, env=server_env, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"run {name} failed:\n{done.stderr[-3000:]}")
    return json.loads((folder / f"{name}.json").read_text())


# ---- the benchmark ----------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m engine.evaluation.meeting", description=__doc__.split("\n")[0]
    )
    p.add_argument("--turns", type=int, default=12, help="turns in the meeting (default: 12)")
    p.add_argument(
        "--voices", type=int, default=2, choices=(1, 2, 3), help="voices among the others (default: 2)"
    )
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--silence", type=float, default=60.0, help="seconds of the silent run (0: none)")
    p.add_argument("--no-alone", action="store_true", help="skip the runs of each side alone")
    p.add_argument("--only", help="only these runs, comma-separated: meeting, guard_only, me_alone, ...")
    p.add_argument("--out", type=Path, help="also write the JSON here")
    p.add_argument("--keep", type=Path, help="keep the tracks and each run's shown words in this folder")
    p.add_argument("--server", choices=("pulseaudio", "pipewire"), default="pulseaudio", help="sound server")
    p.add_argument(
        "--files",
        action="store_true",
        help="the short run: the tracks read as files, the guard alone, no sound server",
    )
    p.add_argument(
        "--double-talk",
        type=int,
        default=None,
        metavar="N",
        help="Me's turns that start halfway through the others' turn (default: all with --files, else 0)",
    )
    # the child's own options
    p.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    p.add_argument("--me", help=argparse.SUPPRESS)
    p.add_argument("--others", help=argparse.SUPPRESS)
    p.add_argument("--sides", default="me,others", help=argparse.SUPPRESS)
    p.add_argument("--seconds", type=float, default=0.0, help=argparse.SUPPRESS)
    p.add_argument("--guard", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--echo", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--echo-cancel", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--app-capture", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child is not None:
        result = run_child(args)
        args.child.write_text(json.dumps(result))
        return 0
    return _benchmark(args)


def _benchmark(args) -> int:
    from engine.evaluation.meeting_score import score_run
    from engine.evaluation.meeting_speech import make_meeting
    from engine.machine import cpu_description

    _progress(f"meeting: {args.turns} turns, {args.voices} voices among the others: synthesising")
    double_talk = args.double_talk if args.double_talk is not None else (args.turns if args.files else 0)
    meeting = make_meeting(args.turns, args.voices, args.seed, double_talk=double_talk)
    out: dict = {
        "date": time.strftime("%Y-%m-%d"),
        **cpu_description(),
        "audio_s": round(meeting.seconds, 1),
        "turns": [
            {"speaker": t.speaker, "start": round(t.start, 2), "end": round(t.end, 2), "words": len(t.words)}
            for t in meeting.turns
        ],
    }
    with tempfile.TemporaryDirectory(prefix="livecap-meeting-") as tmp:
        folder = Path(tmp)
        for name, track in (
            ("me", meeting.me_track),
            ("others", meeting.others_track),
            ("me_alone", meeting.me_alone),
        ):
            sf.write(folder / f"{name}.wav", track, SAMPLE_RATE, subtype="PCM_16")
        me, others, me_alone = (str(folder / f"{n}.wav") for n in ("me", "others", "me_alone"))
        if args.files:
            _progress("meeting: the tracks as files, the guard alone")
            runs = {"files": run_files(Path(me), Path(others))}
        else:
            runs = _sound_server_runs(args, folder, me, others, me_alone)
        if args.keep:
            shutil.copytree(folder, args.keep, dirs_exist_ok=True)
    out["double_talk_turns"] = double_talk
    for name, run in runs.items():
        alone = name[: -len("_alone")] if name.endswith("_alone") else ""
        out[name] = score_run(meeting, run, alone=alone, silence=name == "silence")
    for side in ("me", "others"):
        alone = out.get(f"{side}_alone", {}).get(f"wer_{side}")
        if alone and "meeting" in out:
            out["meeting"][f"wer_ratio_{side}"] = round(out["meeting"][f"wer_{side}"] / alone, 2)
    text = json.dumps(out, indent=1)
    print(text)
    if args.out:
        args.out.write_text(text)
    return 0


def _sound_server_runs(args, folder: Path, me: str, others: str, me_alone: str) -> dict:
    """The runs on a private sound server, each in a child process: what each run showed."""
    from engine.evaluation.pipewire_server import sound_server

    with sound_server(args.server, sinks=[MIC_SINK, OTHERS_SINK]):
        env = dict(os.environ)
        plan = {
            "meeting": dict(
                me=me_alone, others=others, echo=True, guard=True, echo_cancel=True, app_capture=True
            ),
            "guard_only": dict(me=me_alone, others=others, echo=True, guard=True, app_capture=True),
        }
        if not args.no_alone:
            plan["me_alone"] = dict(me=me_alone, sides="me")
            plan["others_alone"] = dict(others=others, sides="others", app_capture=True)
        if args.silence:
            plan["silence"] = dict(seconds=args.silence)
        wanted = set(args.only.split(",")) if args.only else set(plan)
        return {name: _child(env, folder, name, **opts) for name, opts in plan.items() if name in wanted}


if __name__ == "__main__":
    sys.exit(main())
