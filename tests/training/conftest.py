"""A tiny dev folder (two files named as the real dev files) and a small random model over it."""

import pytest

from engine.evaluation.synthetic_model import write_model_dir

AUSTEN = """Sir Walter Elliot, of Kellynch Hall, in Somersetshire, was a man who, for his own amusement,
never took up any book but the Baronetage; there he found occupation for an idle hour, and consolation
in a distressed one. Was he vain? He was. Anne had been a very pretty girl, but her bloom had vanished
early. What could she do? She walked to the window, looked at the sea, and said nothing at all. Lady
Russell came in the morning, and they talked of Bath, of the Crofts, and of Captain Wentworth, who had
gone to sea again. Would he come back? Nobody knew, and nobody asked.
"""
SKY = """Welcome aboard, Captain. The ship is ready, but the crew is not. Do you want to hire more
crew before we leave? We can reach Earth in three jumps, if the pirates stay away. I told you the
engines were old, didn't I? Still, they work. Are you sure about this plan? The Navy will not like it,
and the Free Worlds will like it even less. Land on New Boston, sell the cargo, and come back here.
Is that clear? Good. Then let us go now, before the Republic changes its mind.
"""


@pytest.fixture(scope="module")
def tiny_dev(tmp_path_factory):
    root = tmp_path_factory.mktemp("evaluate")
    model_dir = write_model_dir(root / "model", lexicon={"iphone": "iPhone"})
    dev = root / "dev"
    dev.mkdir()
    (dev / "austen_persuasion.txt").write_text(AUSTEN, encoding="utf-8")
    (dev / "endless_sky.txt").write_text(SKY, encoding="utf-8")
    return root, model_dir, dev
