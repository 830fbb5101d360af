"""Audio sources: microphone, system audio (meetings) and files, all delivered as 16 kHz mono int16."""
