"""A real live session's committed words reach a viewer of the caption page's stream."""

import asyncio

import aiohttp
import numpy as np
import soundfile as sf

from engine.audio.file_source import FileSource
from engine.punctuation.streaming import StreamingDecoder
from engine.session.live import LiveSession
from engine.share import share_captions
from tests.engine.share.clients import Captions, read_stream, run
from tests.scripted import ScriptedRecognizer


def test_a_sessions_committed_words_reach_a_viewer_settled_as_the_transcript_has_them(tmp_path, tiny_model):
    words = ["captions", "on", "any", "screen", "today"]
    script = [(words[: i + 1], None) for i in range(len(words))] + [([], words)]
    script += [(["it", "works"], None)] * 2 + [([], ["it", "works"])]
    silence = tmp_path / "silence.wav"
    sf.write(silence, np.zeros(16000 * 2, np.int16), 16000, subtype="PCM_16")
    session = LiveSession(
        FileSource(silence), ScriptedRecognizer(script), StreamingDecoder.from_model(tiny_model)
    )
    server = share_captions(session)
    try:

        async def main():
            async with aiohttp.ClientSession() as client:
                stream = await client.get(server.url + "events")
                captions = Captions()
                reading = asyncio.create_task(read_stream(stream, captions))
                await asyncio.to_thread(session.start)
                assert await asyncio.to_thread(session.wait, 30)
                transcript = await asyncio.to_thread(session.stop)
                count = len(transcript.words)
                while not captions.settled(count) and not reading.done():
                    await asyncio.sleep(0.02)
                reading.cancel()
                return transcript, captions

        transcript, captions = run(main())
    finally:
        server.stop()
    assert [w.text for w in transcript.words] == words + ["it", "works"]
    assert [captions.words[p]["text"] for p in range(len(transcript.words))] == [
        w.display for w in transcript.words
    ]
    assert len(captions.words) == len(transcript.words)
    assert not server.running
