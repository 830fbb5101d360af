"""How captions read, in every window that shows them: the words' styles, the paragraphs and the
line height (``style``), and who spoke (``speaker_labels``). The captions window, the overlay and
the History window all draw from here, so none of them imports another.
"""
