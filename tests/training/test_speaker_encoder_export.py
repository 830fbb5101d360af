"""The speaker encoder's conversion: ONNX (fresh and shipped) against resemblyzer's network in torch,
and the runtime's numpy front end against librosa's, all on real synthetic speech.

The torch reference is ``training.voice_encoder.VoiceEncoder``, resemblyzer's network written out
layer for layer over resemblyzer's own ``pretrained.pt`` (importing resemblyzer itself would pull
in webrtcvad and librosa)."""

import subprocess

import numpy as np
import pytest

from engine.speakers.embedding import (
    SAMPLE_RATE,
    SpeakerEncoder,
    mel_spectrogram,
    normalize_volume,
    partial_slices,
    shipped_encoder_path,
)
from tests.engine.speakers.conftest import SENTENCES, speak

pytestmark = [pytest.mark.train, pytest.mark.slow]

VOICES = (("espeak-ng", "en-us+m3"), ("espeak-ng", "en-us+f2"), ("festival", None), ("flite", "slt"))


@pytest.fixture(scope="module")
def torch_encoder():
    from training.voice_encoder import fetch_weights, load_voice_encoder

    try:
        weights = fetch_weights()
    except subprocess.CalledProcessError as exc:
        pytest.skip(f"cannot download resemblyzer==0.1.4 (pip download): {exc}")
    return load_voice_encoder(weights)


@pytest.fixture(scope="module")
def speech() -> dict[str, np.ndarray]:
    return {
        f"{tts}:{voice}:{i}": speak(tts, voice, text)
        for tts, voice in VOICES
        for i, text in enumerate(SENTENCES[:2])
    }


def test_onnx_embeddings_match_torch_on_the_same_frames(torch_encoder, speech, tmp_path):
    from training.export_speaker_encoder import export_onnx, parity

    fresh = tmp_path / "fp32.onnx"
    export_onnx(torch_encoder, fresh)
    report = parity(torch_encoder, {"fresh": fresh, "shipped": shipped_encoder_path()}, speech)
    assert report["partials"] >= len(speech)
    for name, worst in report["min_cosine_to_torch"].items():
        assert worst["partial"] >= 0.99, (name, worst)
        assert worst["utterance"] >= 0.99, (name, worst)


def test_numpy_front_end_matches_librosa(torch_encoder, speech):
    librosa = pytest.importorskip(
        "librosa", reason="librosa is not installed: the front end is checked against it"
    )
    import torch

    encoder = SpeakerEncoder()
    for name, audio in speech.items():
        # resemblyzer's call, with the reflection padding the encoder was trained with.
        reference = librosa.feature.melspectrogram(
            y=audio, sr=SAMPLE_RATE, n_fft=400, hop_length=160, n_mels=40, pad_mode="reflect"
        ).T
        ours = mel_spectrogram(audio)
        assert ours.shape == reference.shape
        assert np.abs(ours - reference).max() <= 1e-4 * reference.max(), name
        # The whole path, resemblyzer's way (volume raised, zero-padded to the last partial,
        # today's librosa frames, torch), against the runtime's embedding.
        audio = normalize_volume(audio)
        slices = partial_slices(len(audio))
        padded = np.pad(audio, (0, max(0, slices[-1].stop * 160 - len(audio))))
        frames = librosa.feature.melspectrogram(
            y=padded, sr=SAMPLE_RATE, n_fft=400, hop_length=160, n_mels=40
        ).T
        with torch.no_grad():
            partials = torch_encoder(
                torch.from_numpy(np.stack([frames[s] for s in slices]).astype(np.float32))
            )
        expected = partials.numpy().mean(axis=0)
        assert float(np.dot(expected / np.linalg.norm(expected), encoder.embed(audio))) >= 0.99, name
