"""livecap's headless engine: audio, recognition, streaming punctuation, transcripts.

Nothing in this package imports Qt or torch. Front ends (the app, and any other) use only the names
in ``__all__``; the modules behind them are grouped by pipeline stage (docs/ARCHITECTURE.md).

The names load on first use (PEP 562), so ``import engine`` stays instant: the command line's
``--version`` and the app's first window must not wait for numpy or ONNX Runtime.
"""

from __future__ import annotations

import importlib
import os

# One OpenBLAS thread, set before numpy loads (a user's own setting wins). numpy's matrix products
# here are small (Whisper's mel filterbank), and a second BLAS thread spinning beside CTranslate2's
# made each live decode cost more CPU for no speed (docs/PERFORMANCE.md).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from engine.version import __version__ as __version__  # `engine.__version__`, for anyone who asks

# The public API, listed once: public name -> (module, name in that module). ``__all__`` is its keys.
_PUBLIC = {
    # words and their labels
    "Word": ("engine.words", "Word"),
    "apply_case": ("engine.words", "apply_case"),
    # audio: sources of 16 kHz chunks
    "SAMPLE_RATE": ("engine.audio", "SAMPLE_RATE"),
    "AudioError": ("engine.audio.base", "AudioError"),
    "audio_duration": ("engine.audio.file_source", "audio_duration"),
    "list_input_devices": ("engine.audio.microphone", "list_input_devices"),
    "list_monitor_sources": ("engine.audio.system_audio", "list_monitor_sources"),
    "SourceChoice": ("engine.audio.pausable", "SourceChoice"),
    "describe_sources": ("engine.audio.sources", "describe_sources"),
    "PausableSource": ("engine.audio.pausable", "PausableSource"),
    "open_source": ("engine.audio.pausable", "open_source"),
    "SETTLE_SECONDS": ("engine.audio.pausable", "SETTLE_SECONDS"),
    "Application": ("engine.audio.applications", "Application"),
    "list_applications": ("engine.audio.applications", "list_applications"),
    # speakers: a meeting's sides and the voices among the others
    "SpeakerNames": ("engine.speakers.labels", "SpeakerNames"),
    "SPEAKER_ME": ("engine.speakers.labels", "ME"),
    "SPEAKER_OTHERS": ("engine.speakers.labels", "OTHERS"),
    "is_others": ("engine.speakers.labels", "is_others"),
    "others_voice": ("engine.speakers.labels", "others_voice"),
    "voice_number": ("engine.speakers.labels", "voice_number"),
    # punctuation
    "PunctuationModel": ("engine.punctuation.model", "PunctuationModel"),
    "ModelConfig": ("engine.punctuation.model_config", "ModelConfig"),
    "ModelError": ("engine.punctuation.model_config", "ModelError"),
    "default_model_dir": ("engine.punctuation.model", "default_model_dir"),
    "model_folder": ("engine.punctuation.model", "model_folder"),
    "DecoderSettings": ("engine.punctuation.settings", "DecoderSettings"),
    "LatencyMap": ("engine.punctuation.latency", "LatencyMap"),
    "LatencySetting": ("engine.punctuation.latency", "LatencySetting"),
    # the events a session's subscribers receive (all in ``engine.events``)
    "Appended": ("engine.events", "Appended"),
    "Provisional": ("engine.events", "Provisional"),
    "Settled": ("engine.events", "Settled"),
    "Withdrawn": ("engine.events", "Withdrawn"),
    "Retracted": ("engine.events", "Retracted"),
    "Finalized": ("engine.events", "Finalized"),
    "EngineFailed": ("engine.events", "EngineFailed"),
    "AudioLevel": ("engine.events", "AudioLevel"),
    "PartialWords": ("engine.events", "PartialWords"),
    "SourceNotice": ("engine.events", "SourceNotice"),
    "SpeakersLabelled": ("engine.events", "SpeakersLabelled"),
    "LanguageDetected": ("engine.events", "LanguageDetected"),
    "InputHint": ("engine.events", "InputHint"),
    "WordsHidden": ("engine.events", "WordsHidden"),
    "hidden_as_echo_notice": ("engine.speakers.echo_guard", "hidden_notice"),
    # recognizers: the one list of kinds and what each declares
    "RecognizerKind": ("engine.recognizers.kinds", "RecognizerKind"),
    "RECOGNIZER_KINDS": ("engine.recognizers.kinds", "KINDS"),
    "RECOGNIZER_CHOICES": ("engine.recognizers.kinds", "CHOICES"),
    "best_built_in_recognizer": ("engine.recognizers.kinds", "best_built_in"),
    "Accuracy": ("engine.recognizers.accuracy", "Accuracy"),
    "LanguagePackStatus": ("engine.recognizers.language_pack", "LanguagePackStatus"),
    "language_pack_status": ("engine.recognizers.language_pack", "language_pack_status"),
    "ensure_language_pack": ("engine.recognizers.language_pack", "ensure_language_pack"),
    "LANGUAGES": ("engine.recognizers.language_pack", "LANGUAGES"),
    # sessions: the one factory every front end builds its pipeline with
    "SessionSpec": ("engine.session.build", "SessionSpec"),
    "SessionResources": ("engine.session.resources", "SessionResources"),
    "RecognizerInfo": ("engine.session.resources", "RecognizerInfo"),
    "build_live_session": ("engine.session.build", "build_live_session"),
    "isolated_recognizer": ("engine.session.resources", "isolated_recognizer"),
    "RecognitionChoice": ("engine.session.plan", "RecognitionChoice"),
    "RecognitionPlan": ("engine.session.plan", "RecognitionPlan"),
    "ENGLISH_LANGUAGE": ("engine.session.plan", "ENGLISH"),
    "AUTO_LANGUAGE": ("engine.session.plan", "AUTO_LANGUAGE"),
    "MARK_CHOICES": ("engine.session.marks", "MARKS"),
    "MARK_LABELS": ("engine.session.marks", "MARK_LABELS"),
    "repunctuate": ("engine.session.batch", "repunctuate"),
    # transcripts
    "Transcript": ("engine.transcript.transcript", "Transcript"),
    "TranscriptWord": ("engine.transcript.transcript", "TranscriptWord"),
    "ParagraphRule": ("engine.transcript.transcript", "ParagraphRule"),
    "TranscriptBuilder": ("engine.transcript.builder", "TranscriptBuilder"),
    "CaptionFold": ("engine.transcript.caption_fold", "CaptionFold"),
    "CaptionChange": ("engine.transcript.caption_fold", "CaptionChange"),
    "CaptionLine": ("engine.transcript.caption_fold", "CaptionLine"),
    "words_by_speaker": ("engine.transcript.caption_fold", "by_speaker"),
    "EXPORT_FORMATS": ("engine.transcript.formats", "FORMATS"),
    "DEFAULT_EXPORT_FORMAT": ("engine.transcript.formats", "DEFAULT"),
    "ExportError": ("engine.transcript.cues", "ExportError"),
    "export_transcript": ("engine.transcript.export", "export"),
    "export_format_from_path": ("engine.transcript.formats", "format_from_path"),
    "JournalContents": ("engine.transcript.journal", "JournalContents"),
    "JournalWriter": ("engine.transcript.journal", "JournalWriter"),
    "read_journal": ("engine.transcript.journal", "read_journal"),
    "recover_journal": ("engine.transcript.journal", "recover"),
    "mark_recovered": ("engine.transcript.journal", "mark_recovered"),
    "keep_days": ("engine.transcript.journal_folder", "keep_days"),
    # history: every kept session, listed and searched (an index beside the journals)
    "HistoryIndex": ("engine.history", "HistoryIndex"),
    "HistoryError": ("engine.history", "HistoryError"),
    "HistoryQueryError": ("engine.history", "HistoryQueryError"),
    "SessionSummary": ("engine.history", "SessionSummary"),
    "SearchHit": ("engine.history", "SearchHit"),
    # vocabulary: the user's names and terms, which captions write their way
    "Vocabulary": ("engine.vocabulary", "Vocabulary"),
    "VocabularyEntry": ("engine.vocabulary", "Entry"),
    "VocabularyError": ("engine.vocabulary", "VocabularyError"),
    "VocabularyFile": ("engine.vocabulary", "VocabularyFile"),
    "parse_vocabulary_entry": ("engine.vocabulary", "parse_entry"),
    "propose_terms": ("engine.vocabulary.proposals", "propose_terms"),
    "session_vocabulary": ("engine.vocabulary", "session_vocabulary"),
    "user_vocabulary_path": ("engine.vocabulary", "user_vocabulary_path"),
    # Vosk models: catalogue, install, removal
    "CatalogueEntry": ("engine.vosk_models.catalogue", "CatalogueEntry"),
    "CatalogueError": ("engine.vosk_models.catalogue", "CatalogueError"),
    "InstalledModel": ("engine.vosk_models.catalogue", "InstalledModel"),
    "load_catalogue": ("engine.vosk_models.catalogue", "load_catalogue"),
    "installed_models": ("engine.vosk_models.catalogue", "installed_models"),
    "default_english": ("engine.vosk_models.catalogue", "default_english"),
    "remove_model": ("engine.vosk_models.catalogue", "remove_model"),
    "install_model": ("engine.vosk_models.install", "install_model"),
    "DownloadError": ("engine.vosk_models.errors", "DownloadError"),
    "DownloadCancelled": ("engine.vosk_models.errors", "DownloadCancelled"),
    # sharing: the captions as a page on this computer or the local network
    "ShareServer": ("engine.share.server", "ShareServer"),
    "share_captions": ("engine.share", "share_captions"),
    "share_qr_png": ("engine.share.qr", "qr_png"),
    "SHARE_DEFAULT_PORT": ("engine.share.server", "DEFAULT_PORT"),
    "SHARE_OBS_OPTIONS": ("engine.share.server", "OBS_OPTIONS"),
    # dictation: typing settled words into other applications
    "DictationSink": ("engine.dictation.sink", "DictationSink"),
    "DictationSwitch": ("engine.dictation.switch", "DictationSwitch"),
    "DictationUnavailable": ("engine.dictation.typists", "DictationUnavailable"),
    "choose_typist": ("engine.dictation.typists", "choose_typist"),
    "SPOKEN_COMMANDS": ("engine.dictation.typed_text", "COMMANDS"),
    "ControlServer": ("engine.dictation.control", "ControlServer"),
    "ControlUnavailable": ("engine.dictation.control", "ControlUnavailable"),
    # privacy: ONNX Runtime's telemetry off, before anything imports it
    "disable_telemetry": ("engine.onnx_runtime", "disable_telemetry"),
    # files and folders
    "journal_dir": ("engine.files.paths", "journal_dir"),
    "recognizer_models_dir": ("engine.files.paths", "recognizer_models_dir"),
    "atomic_write_text": ("engine.files.atomic", "atomic_write_text"),
    # the machine a measured figure was measured on
    "cpu_description": ("engine.machine", "cpu_description"),
    # the command line, which the one `livecap` command shares with the app
    "run_cli": ("engine.cli.main", "main"),
    "CommandParser": ("engine.cli.main", "CommandParser"),
    "add_model_options": ("engine.cli.main", "add_model_options"),
    "format_bytes": ("engine.files.sizes", "format_bytes"),
    "format_elapsed": ("engine.elapsed", "format_elapsed"),
    # what Help → About says: the licences and the folders
    "about_licences": ("engine.about", "licences"),
    "about_folders": ("engine.about", "folders"),
}

__all__ = sorted(_PUBLIC)


def __getattr__(name: str):
    try:
        module, attribute = _PUBLIC[name]
    except KeyError:
        raise AttributeError(f"module 'engine' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module), attribute)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
