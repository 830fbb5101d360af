"""Shipped model artefacts, importable as ``livecap_models`` so that installs find them.

``punct/`` holds the punctuation + casing model; ``vosk_catalogue.json`` lists the
downloadable recognizer models.
"""
