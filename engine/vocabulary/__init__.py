"""The user's vocabulary: names and terms that captions write the user's way.

``entries``: an entry and a vocabulary, parsed from lines; ``user_file``: the user's own file and
a session's; ``matching``: recognized words replaced by the terms they sound like;
``proposals``: the terms a text (an agenda) proposes.
"""

from engine.vocabulary.entries import Entry, Vocabulary, VocabularyError, parse_entry, parse_vocabulary
from engine.vocabulary.matching import Matched, match_vocabulary
from engine.vocabulary.user_file import (
    VocabularyFile,
    read_vocabulary,
    session_vocabulary,
    user_vocabulary_path,
)

__all__ = [
    "Entry",
    "Matched",
    "Vocabulary",
    "VocabularyError",
    "VocabularyFile",
    "match_vocabulary",
    "parse_entry",
    "parse_vocabulary",
    "read_vocabulary",
    "session_vocabulary",
    "user_vocabulary_path",
]
