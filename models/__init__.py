"""Shipped model artefacts, importable as ``livecap_models`` so that installs find them.

``punct/`` holds the punctuation + casing model; ``speaker/`` the voice encoder that tells a
meeting's voices apart (converted from resemblyzer's, with its provenance and licence);
``vosk_catalogue.json`` lists the downloadable recognizer models.
"""
